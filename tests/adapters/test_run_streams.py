"""The run-stream and trajectory formats (codex-exec, gemini-stream, atif, autogen): what
each conversion must carry, beyond the goldens (docs/adapters.md, "Run streams and
trajectories")."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import cli_gemini_stream as cgs
import make_cli_fixtures as mk
import make_sdk_fixtures as gen
import pytest

from agent_reliability_harness.adapters import BY_NAME, convert_session, to_canonical
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.errors import AdapterError

HERE = Path(__file__).resolve().parent
FIX = HERE / "fixtures"


def traces(relative: str) -> list[dict[str, Any]]:
    path = FIX / relative
    if path.parent.name == "autogen":
        return gen.convert_file("autogen", path.name, path.read_bytes())
    return mk.convert_fixture(path)


def steps(trace: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["step_id"]: s for s in trace["steps"]}


def arh(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def test_codex_exec_maps_each_item_once_from_its_last_event() -> None:
    (trace,) = traces("codex-exec/exec-clean.jsonl")
    by_id = steps(trace)
    assert [s["type"] for s in trace["steps"]] == ["tool_call", "tool_call", "model_response"]
    shell = by_id["item_1"]
    assert shell["arguments"] == {"command": "bash -lc 'cat config.toml'"}
    assert (shell["output"], shell["status"]) == ("port = 8080\n", "ok")
    assert shell["metadata"]["reasoning"] == ["**Reading the config**"]
    assert by_id["item_2"]["tool_name"] == "docs.search"
    assert trace["steps"][-1]["text"] == "It listens on 8080."
    assert (
        trace["metadata"]["adapter"]["skipped"][
            "item event superseded by a later event of the item"
        ]
        == 2
    )


def test_codex_exec_failures_and_cumulative_usage() -> None:
    (trace,) = traces("codex-exec/exec-failures.jsonl")
    by_id = steps(trace)
    assert by_id["item_1"]["error"] == "exit code 127"
    assert by_id["item_2"]["error"] == "status failed"
    assert by_id["item_3"]["error"] == "403 Forbidden"
    assert by_id["item_4"]["error"] == "status declined"
    assert "status" not in by_id["item_5"]  # a web search reports no outcome
    # turn.completed carries the thread's running total: 6000/300, then 13000/420.
    assert sum(s.get("input_tokens") or 0 for s in trace["steps"]) == 13000
    assert sum(s.get("output_tokens") or 0 for s in trace["steps"]) == 420
    assert (trace["steps"][-2]["input_tokens"], trace["steps"][-2]["output_tokens"]) == (7000, 120)
    failed = trace["steps"][-1]
    assert (failed["text"], failed["status"]) == (None, "error")
    assert failed["error"] == "stream disconnected before completion"  # once, not twice
    assert trace["metadata"]["todo_list"][0]["completed"] is True
    assert trace["metadata"]["adapter"]["notes"] == []


def test_codex_exec_cut_short_call_is_noted() -> None:
    lines = mk.cli_codex_exec.CLEAN[:4]  # the shell command started and never completed
    (trace,) = convert_session(BY_NAME["codex-exec"], iter(enumerate(lines, 1)), "s")
    (note,) = trace["metadata"]["adapter"]["notes"]
    assert note["issue"] == "tool call that had not finished (status in_progress)"


def test_gemini_stream_joins_deltas_and_counts_the_result_stats_once() -> None:
    (trace,) = traces("gemini-stream/stream-clean.jsonl")
    texts = [s["text"] for s in trace["steps"] if s["type"] == "model_response"]
    assert texts == ["Let me read the config.", "It listens on port 8080."]
    assert sum(s.get("input_tokens") or 0 for s in trace["steps"]) == 12400
    assert sum(s.get("output_tokens") or 0 for s in trace["steps"]) == 250
    assert trace["inputs"] == [{"role": "user", "text": "What port does the server use?"}]
    assert trace["metadata"]["adapter"]["mapped"] == 9  # every line


def test_gemini_stream_counts_thinking_tokens_as_output() -> None:
    """gemini-cli's stream `stats` (StreamJsonFormatter.convertToStreamStats) write
    `output_tokens` = response candidates only; the thinking tokens are in `total_tokens`
    alone (prompt + candidates + thoughts + tool-use prompt). Output is total - input, as
    the chat recording's `tokens.output + tokens.thoughts` of the same run."""
    stats = {"total_tokens": 1700, "input_tokens": 1000, "output_tokens": 200, "cached": 0}
    stats.update(input=1000, duration_ms=10, tool_calls=0)
    lines = [*cgs.CLEAN[:4], {"type": "result", "timestamp": "t", "status": "success"}]
    lines[-1]["stats"] = stats
    (trace,) = convert_session(BY_NAME["gemini-stream"], iter(enumerate(lines, 1)), "s")
    assert sum(s.get("input_tokens") or 0 for s in trace["steps"]) == 1000
    assert sum(s.get("output_tokens") or 0 for s in trace["steps"]) == 700
    # a total that does not cover input and output says nothing more: output as written
    lines[-1] = dict(lines[-1], stats=dict(stats, total_tokens=1100))
    (trace,) = convert_session(BY_NAME["gemini-stream"], iter(enumerate(lines, 1)), "s")
    assert sum(s.get("output_tokens") or 0 for s in trace["steps"]) == 200


def test_gemini_stream_errors_and_appended_runs() -> None:
    first, second = traces("gemini-stream/stream-errors.jsonl")
    calls = [s for s in first["steps"] if s["type"] == "tool_call"]
    assert [c["status"] for c in calls] == ["error", "error"]
    assert calls[0]["error"] == "Command failed: remote: Permission denied"
    assert first["steps"][-1]["error"] == "Reached max session turns"
    assert first["metadata"]["errors"] == [{"severity": "warning", "message": "Loop detected"}]
    assert second["trace_id"] == "a81e5d0c-37b4-4f2a-9c6e-0d5b8f1e2a47"
    (open_call,) = second["steps"]
    assert "status" not in open_call and "output" not in open_call
    assert second["metadata"]["status"] == "cut short (no result event)"


def test_gemini_stream_takes_a_harness_prompt_line_before_init() -> None:
    prompt = {
        "type": "message",
        "role": "user",
        "content": "Task: fix it",
        "ts": "2026-01-30T06:09",
    }
    lines = [prompt, *mk.cli_gemini_stream.CLEAN]
    assert BY_NAME["gemini-stream"].detect_line(prompt)
    (trace,) = convert_session(BY_NAME["gemini-stream"], iter(enumerate(lines, 1)), "s")
    assert trace["inputs"][0] == {"role": "user", "text": "Task: fix it"}
    # A Responses API message item (no timestamp) is not claimed.
    assert not BY_NAME["gemini-stream"].detect_line(
        {"type": "message", "role": "user", "content": "x"}
    )


def test_atif_maps_steps_metrics_once_and_observations() -> None:
    (trace,) = traces("atif/trajectory-basic.json")
    assert trace["agent_name"] == "terminus-2"
    assert [i["role"] for i in trace["inputs"]] == ["system", "user"]
    by_id = steps(trace)
    assert by_id["call_2"]["output"] == "Hello\n"
    # Step metrics are read; final_metrics (their sums) are not added again.
    assert sum(s.get("input_tokens") or 0 for s in trace["steps"]) == 2100
    assert sum(s.get("cost_usd") or 0 for s in trace["steps"]) == 0.0091


def test_atif_subagent_steps_run_under_the_delegating_call() -> None:
    (trace,) = traces("atif/trajectory-subagent.json")
    by_id = steps(trace)
    delegate = by_id["delegate_1"]
    assert delegate["output"] == "1 failure: test_parse"
    assert delegate["metadata"]["subagent_tasks"] == ["run the tests"]
    sub = [s for s in trace["steps"] if s.get("agent") == "tester"]
    assert [s["step_id"] for s in sub] == ["t_1", "step-3"]
    assert {s["parent_step_id"] for s in sub} == {"delegate_1"}
    assert trace["inputs"] == [{"role": "user", "text": "Find the failing test and report it."}]
    # No step metrics: the trajectory totals are the usage, on the last model response.
    responses = [s for s in trace["steps"] if s["type"] == "model_response"]
    assert responses[-1]["input_tokens"] == 900 and responses[-1]["output_tokens"] == 75
    assert sum(s.get("input_tokens") or 0 for s in trace["steps"]) == 900


def test_atif_is_never_taken_for_a_canonical_trace() -> None:
    value = json.loads((FIX / "atif" / "trajectory-basic.json").read_text("utf-8"))
    assert to_canonical(value)[0]["source"] == "atif"
    code, _, err = arh("convert", "--format", "arh", str(FIX / "atif" / "trajectory-basic.json"))
    assert code == 1 and "it looks like atif; pass --format atif" in err


def test_autogen_sources_are_agents_and_tool_failures_are_errors() -> None:
    (trace,) = traces("autogen/taskresult-tools.json")
    assert {s["agent"] for s in trace["steps"]} == {"weather_agent"}
    by_id = steps(trace)
    assert by_id["call_2"]["status"] == "error"
    assert by_id["call_2"]["error"] == "Error: unknown city Atlantis"
    assert by_id["call_1"]["metadata"]["reasoning"] == ["Two cities: two calls."]
    assert sum(s.get("input_tokens") or 0 for s in trace["steps"]) == 320
    assert trace["metadata"]["stop_reason"] == "Text 'TERMINATE' mentioned"


def test_autogen_handoff_is_the_parent_of_the_target_agents_steps() -> None:
    (trace,) = traces("autogen/swarm-handoff.json")
    handoff = next(
        s for s in trace["steps"] if s.get("metadata", {}).get("handoff_target") == "refunds"
    )
    for step in trace["steps"]:
        expected = handoff["step_id"] if step.get("agent") == "refunds" else None
        assert step.get("parent_step_id") == expected
    assert trace["metadata"]["agents"] == ["triage", "refunds"]


def test_autogen_team_state_reads_the_thread_once() -> None:
    (trace,) = traces("autogen/team-state.json")
    assert [s["agent"] for s in trace["steps"]] == ["poet", "critic"]
    assert trace["metadata"]["adapter"]["skipped"] == {
        "agent state (its model context repeats the team's thread)": 1
    }
    (alone,) = traces("autogen/agent-state.json")
    assert alone["steps"][0]["status"] == "error"
    assert alone["steps"][0]["metadata"]["reasoning"] == ["Use the shell."]


def test_autogen_malformed_state_or_summary_is_an_input_error() -> None:
    """Bad shapes in a saved state or a tool call summary: one AdapterError naming where,
    never another exception (a traceback)."""
    state = json.loads((FIX / "autogen" / "team-state.json").read_text("utf-8"))
    manager = state["agent_states"]["RoundRobinGroupChatManager"]
    for where, bad in (
        ("$.agent_states.RoundRobinGroupChatManager.message_thread", 7),
        ("$.agent_states.poet", None),  # read alone: no thread holds its run
    ):
        value = json.loads(json.dumps(state))
        if bad is None:
            del value["agent_states"]["RoundRobinGroupChatManager"]
            value["agent_states"]["poet"] = ["not", "a", "state"]
        else:
            value["agent_states"]["RoundRobinGroupChatManager"] = {**manager, "message_thread": 7}
        with pytest.raises(AdapterError, match=re.escape(where)):
            to_canonical(value, "autogen", "run")
    summary = {
        "type": "ToolCallSummaryMessage",
        "source": "agent",
        "content": "done",
        "tool_calls": [{"id": {"not": "an id"}, "name": "f", "arguments": "{}"}],
        "results": [],
    }
    with pytest.raises(AdapterError, match=re.escape("$[0].tool_calls[0].id: expected a string")):
        to_canonical([summary], "autogen", "run")


def test_an_ill_fitting_explicit_format_is_one_clear_error() -> None:
    rollout = str(FIX / "codex-cli" / "rollout-clean.jsonl")
    code, out, err = arh("convert", "--format", "codex-exec", rollout)
    assert (code, out) == (1, "")
    assert "not a codex-exec transcript: it is a codex-cli document" in err.splitlines()[0]
    code, out, err = arh(
        "convert", "--format", "autogen", str(FIX / "atif" / "trajectory-basic.json")
    )
    assert (code, out) == (1, "")
    assert err.splitlines()[0].endswith(
        "not an autogen transcript: it is an atif document; pass --format atif"
    )


def test_autogen_user_handoff_is_an_input_and_images_are_noted() -> None:
    messages = [
        {"type": "HandoffMessage", "source": "user", "target": "agent", "content": "Go on."},
        {"type": "MultiModalMessage", "source": "agent", "content": ["A cat.", {"data": "iVBO"}]},
    ]
    (trace,) = to_canonical(messages, "autogen", "run")
    assert trace["inputs"] == [{"role": "user", "text": "Go on."}]
    assert trace["steps"][0]["text"] == "A cat."
    (note,) = trace["metadata"]["adapter"]["notes"]
    assert (note["at"], note["issue"]) == ("$[1].content[1]", "content part that is not text")


def test_codex_exec_reads_the_early_item_type_key() -> None:
    item = {"id": "item_0", "item_type": "command_execution", "command": "ls"}
    item.update(aggregated_output="a\n", exit_code=2, status="failed")
    lines = [{"type": "thread.started", "thread_id": "t"}, {"type": "item.completed", "item": item}]
    (trace,) = convert_session(BY_NAME["codex-exec"], iter(enumerate(lines, 1)), "s")
    (call,) = trace["steps"]
    assert (call["tool_name"], call["status"], call["error"]) == ("shell", "error", "exit code 2")


def test_gemini_stream_run_cut_short_before_its_first_step_is_a_note() -> None:
    prompt = {"type": "message", "role": "user", "content": "Next task", "ts": "2026-01-30T07:00"}
    lines = [*mk.cli_gemini_stream.CLEAN, prompt]
    (trace,) = convert_session(BY_NAME["gemini-stream"], iter(enumerate(lines, 1)), "s")
    (note,) = trace["metadata"]["adapter"]["notes"]
    assert (note["at"], note["issue"]) == ("line 10", "run cut short before its first step")
    assert note["value"] == {"inputs": [{"role": "user", "text": "Next task"}]}


def test_autogen_code_execution_exit_code_is_the_outcome() -> None:
    (trace,) = traces("autogen/code-executor.json")
    reply, run, answer = trace["steps"]
    assert reply["text"].startswith("```python") and reply["input_tokens"] == 60
    assert (run["tool_name"], run["arguments"]["code_blocks"][0]["language"]) == (
        "execute_code",
        "python",
    )
    assert (run["status"], run["error"]) == ("error", "exit code 1")
    assert run["output"] == "ZeroDivisionError: division by zero"
    assert answer["text"] == "It raises ZeroDivisionError."
