"""Goose sessions and OpenCode runs (docs/adapters.md, `goose`, `opencode`): what each
conversion must carry beyond the goldens: calls paired with results, failures, the
file's token totals, the final answer, and refusal of what is not theirs."""

from __future__ import annotations

import copy
from typing import Any

import cli_goose
import cli_opencode
import pytest

from agent_reliability_harness.adapters import BY_NAME, convert_session, detect, to_canonical
from agent_reliability_harness.errors import AdapterError


def _session(fmt: str, lines: list[Any]) -> dict[str, Any]:
    (trace,) = convert_session(BY_NAME[fmt], iter(enumerate(lines, 1)), "t")
    return trace


def _calls(trace: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["step_id"]: s for s in trace["steps"] if s["type"] == "tool_call"}


def _total(trace: dict[str, Any], key: str) -> float:
    return sum(s.get(key) or 0 for s in trace["steps"])


@pytest.mark.parametrize("shape", ["export", "jsonl"])
def test_goose_calls_results_failures_and_answer(shape: str) -> None:
    if shape == "export":
        (trace,) = to_canonical(cli_goose.EXPORT, "auto", "t")
    else:
        trace = _session("goose", cli_goose.JSONL)
    calls = _calls(trace)
    assert list(calls) == ["toolu_1", "toolu_2"]
    assert calls["toolu_1"]["status"] == "error"  # a CallToolResult with isError
    assert calls["toolu_2"] == {
        **calls["toolu_2"],
        "status": "ok",
        "output": "The file /repo/calc.py has been edited",
    }
    assert trace["steps"][-1]["text"] == "Fixed: add() now adds."
    assert trace["inputs"] == [{"role": "user", "text": "Fix the failing test in calc.py"}]
    assert trace["metadata"]["cwd"] == "/repo"
    notes = trace["metadata"]["adapter"]["notes"]
    assert [n["issue"] for n in notes] == ["tool call Goose could not parse (no tool ran)"]


def test_goose_totals_are_the_sessions_accumulated_ones() -> None:
    (trace,) = to_canonical(cli_goose.EXPORT, "auto", "t")
    assert (_total(trace, "input_tokens"), _total(trace, "output_tokens")) == (4700, 450)
    # No accumulated figures: the plain ones are one request's usage, never the run's.
    older = _session("goose", cli_goose.JSONL)
    assert (_total(older, "input_tokens"), _total(older, "output_tokens")) == (0, 0)
    assert older["metadata"]["goose_last_usage"] == {"input_tokens": 2000, "output_tokens": 300}


def test_goose_failed_tool_result_status_is_a_failed_call() -> None:
    doc = copy.deepcopy(cli_goose.EXPORT)
    doc["conversation"][2]["content"][0]["toolResult"] = {"status": "error", "error": "boom"}
    (trace,) = to_canonical(doc, "goose", "t")
    assert _calls(trace)["toolu_1"]["status"] == "error"
    assert _calls(trace)["toolu_1"]["error"] == "boom"


def test_a_goose_message_line_is_goose_not_anthropic() -> None:
    line = cli_goose.CONVERSATION[1]
    assert detect(line).name == "goose"
    with pytest.raises(AdapterError, match="goose"):
        to_canonical(line, "anthropic-messages", "t")


@pytest.mark.parametrize("shape", ["stream", "export"])
def test_opencode_calls_failures_tokens_and_answer(shape: str) -> None:
    if shape == "stream":
        trace = _session("opencode", cli_opencode.STREAM)
    else:
        (trace,) = to_canonical(cli_opencode.EXPORT, "auto", "t")
    calls = _calls(trace)
    assert [c["status"] for c in calls.values()] == ["ok", "error", "error"]
    assert calls["call_2"]["error"] == "exit code 1"
    assert calls["call_3"]["error"] == "oldString not found in content"
    assert trace["steps"][-1]["text"] == "Tests fail; the edit did not apply."
    assert trace["trace_id"] == cli_opencode.SESSION
    # input + cache read + cache write; output + reasoning; cost as recorded
    assert _total(trace, "input_tokens") == 21772 + 671 + 21415
    assert _total(trace, "output_tokens") == 110 + 20 + 8
    assert _total(trace, "cost_usd") == pytest.approx(0.003)
    assert trace["metadata"]["adapter"]["notes"] == []


def test_opencode_unfinished_tool_part_is_a_note() -> None:
    lines = copy.deepcopy(cli_opencode.STREAM)
    lines[2]["part"]["state"]["status"] = "running"
    trace = _session("opencode", lines)
    assert "call_1" in _calls(trace)
    assert [n["issue"] for n in trace["metadata"]["adapter"]["notes"]] == [
        "tool call that had not finished (status running)"
    ]


def test_opencode_lines_are_refused_by_other_stream_formats() -> None:
    for fmt in ("claude-code", "codex-exec", "gemini-stream"):
        with pytest.raises(AdapterError):
            to_canonical(cli_opencode.STREAM, fmt, "t")
