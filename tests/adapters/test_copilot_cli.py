"""GitHub Copilot CLI session logs (docs/adapters.md, `copilot-cli`), built with the Copilot
SDK's own event classes: calls from the messages' tool requests, results and failures from
`tool.execution_complete`, the sub-agent's steps, and the shutdown's totals."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_reliability_harness.adapters import BY_NAME, detect, to_canonical
from agent_reliability_harness.errors import AdapterError

sdk_copilot = pytest.importorskip("sdk_copilot", exc_type=ImportError)


def _lines() -> list[Any]:
    return [json.loads(line) for line in sdk_copilot.session().splitlines()]


def _trace() -> dict[str, Any]:
    (trace,) = BY_NAME["copilot-cli"].convert_lines(enumerate(_lines(), 1), "t")
    return dict(trace)


def test_calls_results_failures_and_the_answer() -> None:
    trace = _trace()
    calls = {s["step_id"]: s for s in trace["steps"] if s["type"] == "tool_call"}
    assert [(k, c["tool_name"], c["status"]) for k, c in calls.items()] == [
        ("call_1", "bash", "error"),
        ("call_2", "edit", "ok"),
        ("call_3", "task", "ok"),
        ("call_4", "grep", "ok"),
    ]
    assert calls["call_1"]["error"] == "Command exited with code 1"
    assert trace["steps"][-1]["text"] == "Fixed: add() now adds."
    assert trace["inputs"] == [{"role": "user", "text": "Fix the failing test"}]
    assert trace["trace_id"] == "9d9f07e1-2696-40b4-87af-eab2d03b4e01"
    assert trace["metadata"]["cwd"] == "/repo"
    assert trace["metadata"]["adapter"]["notes"] == []


def test_the_sub_agents_steps_name_it_and_the_call_that_started_it() -> None:
    steps = {s["step_id"]: s for s in _trace()["steps"]}
    assert (steps["call_4"]["agent"], steps["call_4"]["parent_step_id"]) == ("explore", "call_3")
    assert steps["call_3"]["agent"] == "copilot-cli"


def test_token_totals_equal_the_shutdowns_model_metrics() -> None:
    steps = _trace()["steps"]
    assert sum(s.get("input_tokens") or 0 for s in steps) == 4700
    assert sum(s.get("output_tokens") or 0 for s in steps) == 150


def test_an_event_line_is_copilot_and_no_other_format_reads_it() -> None:
    line = _lines()[3]  # an assistant.message
    assert detect(line).name == "copilot-cli"
    for fmt in ("claude-code", "codex-exec", "openai-chat", "anthropic-messages"):
        with pytest.raises(AdapterError):
            to_canonical(_lines(), fmt, "t")


def test_an_unknown_event_type_is_a_note() -> None:
    lines = _lines()
    lines.insert(3, {**lines[2], "type": "brand_new.kind"})
    (trace,) = BY_NAME["copilot-cli"].convert_lines(enumerate(lines, 1), "t")
    assert [n["issue"] for n in trace["metadata"]["adapter"]["notes"]] == [
        "event of an unknown type"
    ]
