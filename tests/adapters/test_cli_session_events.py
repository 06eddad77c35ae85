"""Session lines found by the real-data sweep: Claude Code 2.1.x attachment lines, Codex CLI
error events, and the note of an end event whose call the rollout does not hold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cli_claude
import make_cli_fixtures as mk

from agent_reliability_harness.adapters import BY_NAME, convert_session

HERE = Path(__file__).resolve().parent


def traces(relative: str) -> list[dict[str, Any]]:
    return mk.convert_fixture(HERE / "fixtures" / relative)


def _session(fmt: str, lines: list[dict[str, Any]]) -> dict[str, Any]:
    (trace,) = convert_session(BY_NAME[fmt], iter(enumerate(lines, 1)), "s")
    return trace


def test_claude_code_attachments_are_bookkeeping_inputs_or_notes() -> None:
    (trace,) = traces("claude-code/session-attachments.jsonl")
    record = trace["metadata"]["adapter"]
    assert record["skipped"] == {
        "attachment line (deferred_tools_delta)": 1,
        "attachment line (hook_success)": 2,
        "attachment line (skill_listing)": 1,
        "attachment line (todo_reminder)": 1,
        "repeated line (same uuid)": 1,
    }
    # Prompts queued while the agent worked are inputs, in order; the image is a note.
    assert [i["text"] for i in trace["inputs"]] == [
        "Add a test for the refund rounding.",
        "Use pytest, not unittest.",
        "Like this one.",
    ]
    notes = [(n["at"], n["issue"], n["value"].get("type")) for n in record["notes"]]
    assert notes == [
        ("line 6.attachment", "failed hook (hook_non_blocking_error)", "hook_non_blocking_error"),
        ("line 9.attachment.prompt[0]", "image block is not a step", "image"),
        ("line 12.attachment", "failed hook (hook_blocking_error)", "hook_blocking_error"),
    ]
    assert record["notes"][2]["value"]["blockingError"] == {"blockingError": "lint failed"}
    first = mk.read_fixture(HERE / "fixtures" / "claude-code" / "session-attachments.jsonl")[0]
    detect_line = BY_NAME["claude-code"].detect_line
    assert detect_line is not None and detect_line(first[1])  # a session may start with one


def test_a_short_claude_code_session_with_attachments_is_read_not_refused() -> None:
    """The sweep's case: one prompt, one answer and four attachment lines (refused before:
    4 lines of an unknown kind against 2 items mapped)."""
    s = cli_claude._Session("2b9d8116-e1de-4038-a101-5fd575fdcb0e")
    s.user("what does this repo do?")
    s.attachment("deferred_tools_delta", addedNames=["WebFetch"], removedNames=[])
    s.attachment("skill_listing", content="- init", skillCount=1, isInitial=True)
    s.attachment("hook_success", hookName="UserPromptSubmit", exitCode=0)
    s.assistant("msg_011", {"type": "text", "text": "A tax-form generator."}, (2, 28463, 0, 14))
    s.attachment("hook_success", hookName="Stop", exitCode=0)
    trace = _session("claude-code", s.lines)
    assert [st["text"] for st in trace["steps"]] == ["A tax-form generator."]
    assert trace["metadata"]["adapter"]["notes"] == []
    assert sum(trace["metadata"]["adapter"]["skipped"].values()) == 4


def test_codex_error_events_are_failed_model_requests() -> None:
    (trace,) = traces("codex-cli/rollout-errors.jsonl")
    failed = [
        (s["error"], s["metadata"].get("codex_error_info"), s["metadata"].get("error_kind"))
        for s in trace["steps"]
        if s.get("status") == "error"
    ]
    assert failed == [
        # turn t2: the error event; its task_complete repeats it and adds no step
        ("You've hit your usage limit. Try again at 4:05 AM.", "usage_limit_exceeded", None),
        # turn t3: only its task_complete holds the error
        ("stream disconnected", "response_stream_failed", None),
        # the older shape {"type": "error", "error": {"kind", "message"}}
        ("Rate limit exceeded", None, "rate_limit"),
    ]
    assert all(s["type"] == "model_response" and s["text"] is None for s in trace["steps"][1:])
    skipped = trace["metadata"]["adapter"]["skipped"]
    assert skipped["task_complete repeating the turn's error event"] == 1
    assert skipped["event_msg task_complete"] == 1  # t1 ended well


def test_codex_end_event_without_its_call_is_noted_where_it_was_read() -> None:
    (trace,) = traces("codex-cli/rollout-errors.jsonl")
    (note,) = trace["metadata"]["adapter"]["notes"]
    line = mk.read_fixture(HERE / "fixtures" / "codex-cli" / "rollout-errors.jsonl")[5]
    assert note["value"] == line[1]["payload"]
    assert note["step"] == "step-1"  # the step before the event, not the trace's last
    # Read before any step: the first step after it.
    head = {"type": "session_meta", "payload": {"id": "r1"}}
    end = {"type": "patch_apply_end", "call_id": "call_x", "success": True}
    text = {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "ok"}]}
    lines = [head, {"type": "event_msg", "payload": end}]
    lines += [{"type": "response_item", "payload": text}] * 2
    trace = _session("codex-cli", lines)
    (note,) = trace["metadata"]["adapter"]["notes"]
    assert (note["step"], note["value"]) == ("step-1", end)
    assert json.dumps(trace)  # a plain JSON trace
