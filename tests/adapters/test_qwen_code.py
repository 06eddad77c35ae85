"""Qwen Code chat recordings (docs/adapters.md, `qwen-code`): calls and their results,
failures, reasoning, usage, sub-agent records; and a recording is never read as a Claude
Code session, whose lines share the uuid tree but hold `content`, not Gemini `parts`."""

from __future__ import annotations

import copy
from typing import Any

import cli_qwen
import pytest

from agent_reliability_harness.adapters import BY_NAME, detect, to_canonical
from agent_reliability_harness.errors import AdapterError


def _trace(lines: list[Any]) -> dict[str, Any]:
    (trace,) = BY_NAME["qwen-code"].convert_lines(enumerate(lines, 1), "t")
    return dict(trace)


def test_calls_results_failures_usage_and_answer() -> None:
    trace = _trace(cli_qwen.RECORDING)
    calls = [s for s in trace["steps"] if s["type"] == "tool_call"]
    assert [(c["tool_name"], c["status"]) for c in calls] == [
        ("run_shell_command", "ok"),
        ("replace", "error"),
    ]
    assert calls[0]["output"] == "1 failed"
    assert calls[1]["error"] == "old_string not found"
    assert trace["steps"][0]["metadata"]["reasoning"] == ["Run the tests first."]
    assert sum(s.get("input_tokens") or 0 for s in trace["steps"]) == 4400
    assert sum(s.get("output_tokens") or 0 for s in trace["steps"]) == 102
    assert trace["steps"][-1]["text"] == "The edit did not apply; the test still fails."
    assert trace["trace_id"] == cli_qwen.SESSION
    assert trace["metadata"]["adapter"]["notes"] == []


def test_a_cancelled_call_failed() -> None:
    lines = copy.deepcopy(cli_qwen.RECORDING)
    lines[3]["toolCallResult"]["status"] = "cancelled"
    calls = [s for s in _trace(lines)["steps"] if s["type"] == "tool_call"]
    assert (calls[0]["status"], calls[0]["error"]) == ("error", "tool call cancelled")


def test_sidechain_records_are_the_sub_agents_steps() -> None:
    lines = copy.deepcopy(cli_qwen.RECORDING)
    for line in lines[4:6]:
        line.update(isSidechain=True, agentId="explore-7f3c", agentName="Explore")
    steps = {s["step_id"]: s for s in _trace(lines)["steps"]}
    assert steps["call_2"]["agent"] == "Explore"
    assert steps["call_1"]["agent"] == "qwen-code"


def test_a_recording_is_qwen_code_and_never_claude_code() -> None:
    assert detect(cli_qwen.RECORDING).name == "qwen-code"
    assert detect(cli_qwen.RECORDING[2]).name == "qwen-code"
    with pytest.raises(AdapterError):
        to_canonical(cli_qwen.RECORDING, "claude-code", "t")
