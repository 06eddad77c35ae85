"""`arh convert`, the identity flags on convert and validate, detection errors."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.adapters import BY_NAME, Identity, detect, to_canonical
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.errors import AdapterError

HERE = Path(__file__).resolve().parent
FIX = HERE / "fixtures"
ROOT = HERE.parents[1]


def arh(*argv: str, stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(out, err, io.BytesIO(stdin)))
    return code, out.getvalue(), err.getvalue()


def test_convert_prints_expected_golden() -> None:
    code, out, err = arh("convert", str(FIX / "anthropic-messages" / "retry.json"))
    assert (code, err) == (0, "")
    assert out == (HERE / "expected" / "anthropic-messages" / "retry.json").read_text()


def test_convert_is_deterministic_and_array_for_several_traces() -> None:
    path = str(FIX / "otel-genai" / "two-traces-foreign-span.json")
    first, second = arh("convert", path), arh("convert", path)
    assert first == second
    assert isinstance(json.loads(first[1]), list)
    assert first[1].endswith("}\n]\n")


def test_identity_flags_override_transcript_labels() -> None:
    path = str(FIX / "openai-agents" / "clean.json")
    code, out, _ = arh("convert", "--trace-id", "T-1", "--agent-name", "A", "--workflow", "W", path)
    trace = json.loads(out)
    assert code == 0
    assert (trace["trace_id"], trace["agent_name"], trace["workflow"]) == ("T-1", "A", "W")


def test_several_traces_get_numbered_ids() -> None:
    path = str(FIX / "otel-genai" / "two-traces-foreign-span.json")
    _, out, _ = arh("convert", "--trace-id", "run", path)
    assert [t["trace_id"] for t in json.loads(out)] == ["run-1", "run-2"]


def test_labels_default_to_file_name_then_transcript() -> None:
    chat = json.loads(arh("convert", str(FIX / "openai-chat" / "clean.json"))[1])
    assert (chat["trace_id"], chat["agent_name"], chat["workflow"]) == ("clean",) * 3
    agents = json.loads(arh("convert", str(FIX / "openai-agents" / "clean.json"))[1])
    assert agents["agent_name"] == "refund-agent"
    assert agents["workflow"] == "refund-support"
    assert agents["trace_id"].startswith("trace_")


def test_validate_accepts_identity_flags_and_format(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    code, _, err = arh(
        "validate",
        "--policy",
        str(ROOT / "samples" / "policy.json"),
        "--format",
        "cohere-chat",
        "--trace-id",
        "cohere-run",
        "--json-out",
        str(report),
        "--quiet",
        str(FIX / "cohere-chat" / "clean.json"),
    )
    assert err == ""
    assert code in (0, 1)
    assert json.loads(report.read_text())["reports"][0]["trace_id"] == "cohere-run"


def test_stdin_and_jsonl_lines_are_named_by_line(tmp_path: Path) -> None:
    message = [
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        }
    ]
    lines = tmp_path / "batch.jsonl"
    lines.write_text(json.dumps(message) + "\n" + json.dumps(message) + "\n")
    code, out, _ = arh("convert", str(lines))
    assert code == 0
    assert [t["trace_id"] for t in json.loads(out)] == ["batch-1", "batch-2"]
    code, out, _ = arh("convert", "-", stdin=json.dumps(message).encode())
    assert json.loads(out)["source"] == "openai-chat"


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        (
            [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
            "unrecognised input format",
        ),
        ({"hello": "world"}, "unrecognised input format"),
        (42, "unrecognised input format"),
    ],
)
def test_unknown_or_ambiguous_input_lists_formats(
    value: Any, fragment: str, tmp_path: Path
) -> None:
    path = tmp_path / "x.json"
    path.write_text(json.dumps(value))
    code, out, err = arh("convert", str(path))
    assert (code, out) == (1, "")
    assert fragment in err
    for name in BY_NAME:
        assert name in err
    assert err.startswith(f"error: {path.as_posix()}") or "x.json" in err


def test_plain_conversation_converts_when_format_is_named() -> None:
    value = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    for fmt in ("openai-chat", "anthropic-messages", "cohere-chat"):
        (trace,) = to_canonical(value, fmt, "plain")
        assert [s["text"] for s in trace["steps"]] == ["hello"]


def test_unknown_format_name() -> None:
    with pytest.raises(AdapterError, match=r"unknown format 'nope'.*openai-chat"):
        to_canonical([], "nope")


def test_malformed_transcript_is_a_clean_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([{"role": "assistant", "tool_calls": [{"id": 3, "function": {}}]}]))
    code, out, err = arh("convert", "--format", "openai-chat", str(path))
    assert (code, out) == (1, "")
    assert "[0].tool_calls[0].id: expected a string (got number)" in err
    assert "Traceback" not in err


def test_canonical_traces_pass_through_and_win_detection() -> None:
    trace = json.loads((ROOT / "samples" / "traces" / "refund-ok.json").read_text())
    assert detect(trace).name == "arh"
    assert to_canonical(trace, identity=Identity(workflow="w"))[0]["workflow"] == "w"


def test_collector_file_exporter_batches_join_into_one_trace(tmp_path: Path) -> None:
    """The Collector writes one export request per line, even into a `.json` file."""
    export = json.loads((FIX / "otel-genai" / "clean.json").read_text())
    spans = export["resourceSpans"][0]["scopeSpans"][0]["spans"]
    lines = []
    for chunk in (spans[:2], spans[2:4], spans[4:]):
        batch = json.loads(json.dumps(export))
        batch["resourceSpans"][0]["scopeSpans"][0]["spans"] = chunk
        lines.append(json.dumps(batch))
    path = tmp_path / "traces.json"
    path.write_text("\n".join(lines) + "\n")
    code, out, err = arh("convert", str(path))
    assert (code, err) == (0, "")
    expected = json.loads((HERE / "expected" / "otel-genai" / "clean.json").read_text())
    converted = json.loads(out)
    assert converted["steps"] == expected["steps"]
    assert converted["workflow"] == "traces"


def test_agents_items_one_per_line(tmp_path: Path) -> None:
    export = json.loads((FIX / "openai-agents" / "retry.json").read_text())
    path = tmp_path / "spans.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in export["data"]))
    code, out, _ = arh("convert", str(path))
    expected = json.loads((HERE / "expected" / "openai-agents" / "retry.json").read_text())
    assert code == 0
    assert json.loads(out)["steps"] == expected["steps"]


def test_bare_array_of_agents_items_is_not_taken_for_traces(tmp_path: Path) -> None:
    """Span items carry `trace_id`, a canonical key; they must still detect as spans."""
    export = json.loads((FIX / "openai-agents" / "clean.json").read_text())
    path = tmp_path / "bare.json"
    path.write_text(json.dumps(export["data"]))
    code, out, err = arh("convert", str(path))
    assert (code, err) == (0, "")
    assert json.loads(out)["source"] == "openai-agents"
