"""agentops, google-adk, moatless and autocoderover: each claims only documents carrying its
own markers (positive evidence), reads them under `--format` as under `auto`, and the
shapes that look like them without those markers are left to others (or refused)."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import cli_sources
import cli_sources_runs
import pytest

from agent_reliability_harness.adapters import BY_NAME, detect, to_canonical
from agent_reliability_harness.adapters.core.detect import scan
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.errors import AdapterError

DOCUMENTS: dict[str, Any] = {
    "agentops": cli_sources.agentops_agents_sdk(),
    "google-adk": cli_sources.adk_session(),
    "moatless": cli_sources_runs.moatless_tree(),
    "autocoderover": cli_sources_runs.acr_thread(True),
}


@pytest.mark.parametrize("fmt", sorted(DOCUMENTS))
def test_detected_and_explicit_agree(fmt: str) -> None:
    value = DOCUMENTS[fmt]
    assert detect(value) is BY_NAME[fmt]
    assert to_canonical(value, fmt, "run") == to_canonical(value, "auto", "run")


@pytest.mark.parametrize("fmt", sorted(DOCUMENTS))
def test_no_other_format_claims_it(fmt: str) -> None:
    found = [a.name for a in scan(DOCUMENTS[fmt]).claimants()]
    assert found == [fmt]
    assert not scan(DOCUMENTS[fmt]).canonical()


def test_an_agentops_export_is_not_a_canonical_trace() -> None:
    value = DOCUMENTS["agentops"]
    with pytest.raises(AdapterError, match="agentops"):
        to_canonical(value, "arh", "run")


def test_a_plain_conversation_is_not_autocoderover() -> None:
    plain = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert not BY_NAME["autocoderover"].detect(plain)
    # a conversation that only mentions an API name in passing is not ACR's either
    chat = [{"role": "user", "content": "What does search_class(x) do?"}]
    assert not BY_NAME["autocoderover"].detect(chat)


def test_spans_without_agentops_attributes_are_not_agentops() -> None:
    value = copy.deepcopy(DOCUMENTS["agentops"])
    for span in value["spans"]:
        span["attributes"] = span.pop("span_attributes")
    assert not BY_NAME["agentops"].detect(value)


def test_adk_events_need_their_author_and_invocation() -> None:
    value = copy.deepcopy(DOCUMENTS["google-adk"])
    for event in value["events"]:
        event.pop("invocation_id")
    assert not BY_NAME["google-adk"].detect(value)
    camel = cli_sources.adk_session_by_alias()
    assert "invocationId" in camel["events"][0] and detect(camel) is BY_NAME["google-adk"]


def test_moatless_branches_are_agents_under_their_fork() -> None:
    (trace,) = to_canonical(DOCUMENTS["moatless"], "moatless", "tree")
    steps = {s["step_id"]: s for s in trace["steps"]}
    branch = [s for s in trace["steps"] if s["agent"] != "tree"]
    assert [s["tool_name"] for s in branch] == ["StringReplace"]
    assert branch[0]["agent"] == "branch-2" and branch[0]["status"] == "error"
    assert steps[branch[0]["parent_step_id"]]["tool_name"] == "FindClass"
    main = [s["tool_name"] for s in trace["steps"] if s["agent"] == "tree"]
    assert main == ["FindClass", "StringReplace", "Finish"]
    assert trace["metadata"]["final_answer"] == "Expired keys now return None."


def test_a_linear_tree_names_no_agent() -> None:
    value = copy.deepcopy(DOCUMENTS["moatless"])
    value["root"]["children"][0]["children"].pop(0)  # drop the failed branch
    (trace,) = to_canonical(value, "moatless", "tree")
    assert all("agent" not in s for s in trace["steps"])


def test_autocoderover_arguments_by_signature() -> None:
    (trace,) = to_canonical(DOCUMENTS["autocoderover"], "autocoderover", "acr")
    calls = [s for s in trace["steps"] if s["type"] == "tool_call"]
    assert calls[2]["arguments"] == {"method_name": "get", "file_name": "cache.py"}
    assert [c["status"] for c in calls] == ["ok", "error", "ok"]


def test_a_wrong_format_is_refused_with_the_right_name() -> None:
    with pytest.raises(AdapterError, match="autocoderover"):
        to_canonical(DOCUMENTS["autocoderover"], "openai-chat", "acr")
    with pytest.raises(AdapterError, match="google-adk"):
        to_canonical(DOCUMENTS["google-adk"], "google-genai", "adk")


def test_copilot_session_file_is_detected_by_its_first_line(tmp_path: Path) -> None:
    sdk_copilot = pytest.importorskip("sdk_copilot", exc_type=ImportError)
    path = tmp_path / "events.jsonl"
    path.write_bytes(sdk_copilot.session())
    out, err = io.StringIO(), io.StringIO()
    assert main(["convert", str(path)], Streams(out, err, io.BytesIO())) == 0, err.getvalue()
    trace = json.loads(out.getvalue())
    assert trace["source"] == "copilot-cli" and trace["metadata"]["adapter"]["notes"] == []
    steps = trace["steps"]
    assert sum(s.get("input_tokens") or 0 for s in steps) == 4700  # the shutdown's total
    assert [s["tool_name"] for s in steps if s.get("status") == "error"] == ["bash"]
    assert [s["agent"] for s in steps if s.get("parent_step_id") == "call_3"] == ["explore"]


def test_copilot_lines_are_the_sdks_events() -> None:
    events = pytest.importorskip("copilot.generated.session_events")
    sdk_copilot = pytest.importorskip("sdk_copilot", exc_type=ImportError)
    for raw in sdk_copilot.session().splitlines():
        line = json.loads(raw)
        assert events.SessionEvent.from_dict(line).to_dict() == line


def test_dotted_events_without_data_are_not_copilot() -> None:
    codex = {"type": "thread.started", "thread_id": "t-1"}
    assert not BY_NAME["copilot-cli"].detect_line(codex)  # type: ignore[misc]
    turn = {"type": "session.start", "id": "1", "timestamp": "t", "payload": {}}
    assert not BY_NAME["copilot-cli"].detect_line(turn)  # type: ignore[misc]
