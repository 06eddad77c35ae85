"""Each format's declared evidence (adapters/core/base.py, Evidence; docs/adapters.md, "How a
format is detected"): a claim rests on positive evidence, contradicting evidence withdraws
it (whatever `detect` says), two claims on own evidence are ambiguous, and the refusal
says why. Documents are built from the fixtures (written with the vendors' classes) plus
the fields the other tools document (Cline's per-message `metrics` and `modelInfo`, its
`[tool] Result:` text blocks; cursor-agent's `tool_call` and `thinking` stream lines)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness import adapters
from agent_reliability_harness.adapters import Adapter, Evidence, convert_session, to_canonical
from agent_reliability_harness.adapters.core import plugins as format_plugins
from agent_reliability_harness.adapters.core.claims import Seen
from agent_reliability_harness.errors import AdapterError

FIX = Path(__file__).parent / "fixtures"
ANTHROPIC = {"messages": json.loads((FIX / "anthropic-messages" / "clean.json").read_text())}
SESSION = FIX / "claude-code" / "sdk-stream.jsonl"
CURSOR_LINE = {"type": "tool_call", "subtype": "started", "call_id": "c1", "session_id": "s"}


def _lines() -> list[Any]:
    return [json.loads(line) for line in SESSION.read_text().splitlines() if line.strip()]


def test_every_format_declares_its_own_markers() -> None:
    for adapter in adapters.ADAPTERS:
        assert adapter.evidence.marks, adapter.name
        assert adapter.family in ("core", "coding", "providers", "tracing", "frameworks",
                                  "harnesses"), adapter.name  # fmt: skip


@pytest.mark.parametrize("folder", sorted(p for p in FIX.iterdir() if p.is_dir()), ids=str)
def test_no_fixture_shows_what_its_format_never_writes(folder: Path) -> None:
    adapter = adapters.BY_NAME[folder.name]
    for path in sorted(folder.glob("*.json*")):
        text = path.read_text()
        values = (
            [json.loads(x) for x in text.splitlines() if x.strip()]
            if path.suffix == ".jsonl"
            else [json.loads(text)]
        )
        for value in values:
            seen = Seen(value)
            assert not [m for m in adapter.evidence.against if seen.shows(m)], path


def test_messages_with_cline_metrics_are_not_anthropic_messages() -> None:
    value = copy.deepcopy(ANTHROPIC)
    value["messages"][0]["metrics"] = {"tokens": {"prompt": 10, "completion": 2}}
    assert to_canonical(ANTHROPIC)[0]["source"] == "anthropic-messages"
    with pytest.raises(AdapterError) as auto:
        to_canonical(value)
    assert str(auto.value).startswith(
        "unrecognised input format: it looks like anthropic-messages, but it has 'metrics', "
        "which anthropic-messages never writes; pass --format with one of: arh, claude-code"
    )
    with pytest.raises(AdapterError) as named:
        to_canonical(value, "anthropic-messages")
    assert str(named.value) == (
        "not an anthropic-messages transcript: it has 'metrics', which anthropic-messages "
        "never writes"
    )


def test_tool_results_written_as_text_blocks_are_not_anthropic_messages() -> None:
    value = copy.deepcopy(ANTHROPIC["messages"])
    value.append({"role": "user", "content": [
        {"type": "text", "text": "[read_file for 'a.py'] Result:\nprint('hi')"}]})  # fmt: skip
    with pytest.raises(
        AdapterError,
        match=r"it has 'text=\[read_file for 'a.py'\] Result:', which anthropic-messages",
    ):
        to_canonical(value)


def test_a_session_with_a_line_kind_claude_code_never_writes_is_refused() -> None:
    lines = _lines()
    assert convert_session(adapters.BY_NAME["claude-code"], enumerate(lines, 1))
    lines.insert(2, CURSOR_LINE)
    with pytest.raises(AdapterError) as refused:
        convert_session(adapters.BY_NAME["claude-code"], enumerate(lines, 1))
    assert str(refused.value) == (
        "not a claude-code transcript: line 3: it has 'type=tool_call', which claude-code "
        "never writes"
    )
    with pytest.raises(
        AdapterError, match="it looks like claude-code, but it has 'type=tool_call'"
    ):
        to_canonical(lines)  # the same session as a JSON array of its lines


def _own(name: str) -> Adapter:
    def detect(value: Any) -> bool:
        return isinstance(value, dict) and "acme_run" in value

    def convert(value: Any, name_hint: str) -> list[Any]:
        return [{"trace_id": "t", "agent_name": "a", "workflow": "w", "source": name,
                 "steps": [{"step_id": "s", "type": "model_response", "text": "x"}]}]  # fmt: skip

    return Adapter(name, "a test format", detect, convert, family="plugin",
                   evidence=Evidence(marks=("acme_run",), own=True))  # fmt: skip


def test_two_claims_on_own_evidence_are_ambiguous(monkeypatch: pytest.MonkeyPatch) -> None:
    one, two = _own("acme-one"), _own("acme-two")
    every = (*adapters.ADAPTERS, one, two)
    loaded = format_plugins.Plugins((one, two), (), {"acme-one": one, "acme-two": two}, every)
    monkeypatch.setattr(format_plugins, "_LOADED", [loaded])
    value = {"acme_run": 1, "messages": [{"role": "user", "content": "hi"}]}
    with pytest.raises(AdapterError) as ambiguous:
        to_canonical(value)
    assert str(ambiguous.value) == (
        "ambiguous input format: acme-one, acme-two each claim it on evidence of their own; "
        "pass --format with one of them"
    )
    assert to_canonical(value, "acme-two")[0]["source"] == "acme-two"
