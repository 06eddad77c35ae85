"""`arh guard hook` run as a process with real event JSON, per dialect: allow, deny,
state across events, two sessions, parallel calls, concurrent hooks of one session,
malformed input, damaged state, the fail rule, --record and --approve."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from guard_e2e import SAFETY, arh, env, hook_command, post, pre, run, write_policy

LOOKUP = {"order_id": "A1"}
REFUND = {"order_id": "A1", "amount": 5}


@pytest.fixture
def hook(tmp_path: Path) -> Any:
    policy = write_policy(tmp_path)
    state = tmp_path / "state"

    def call(event: Any, *extra: str) -> subprocess.CompletedProcess[str]:
        return run(hook_command(policy, state, *extra), event)

    call.state = state  # type: ignore[attr-defined]
    call.policy = policy  # type: ignore[attr-defined]
    return call


def _decision(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)["hookSpecificOutput"]
    return out


def test_claude_code_deny_then_state_across_events(hook: Any) -> None:
    denied = _decision(hook(pre("s1", "refund", REFUND, "c1")))
    assert denied["permissionDecision"] == "deny"
    assert denied["hookEventName"] == "PreToolUse"
    assert "ARH-SEQ-008" in denied["permissionDecisionReason"]
    allowed = hook(pre("s1", "lookup_order", LOOKUP, "c2"))
    assert (allowed.returncode, allowed.stdout, allowed.stderr) == (0, "", "")
    assert hook(post("s1", "lookup_order", LOOKUP, "c2", {"order": "A1"})).returncode == 0
    # the denied refund counts as a call (max_calls 1), exactly as validate counts it
    again = _decision(hook(pre("s1", "refund", REFUND, "c3")))
    assert "ARH-SEQ-004" in again["permissionDecisionReason"]
    assert "ARH-SEQ-008" not in again["permissionDecisionReason"]


def test_two_sessions_are_apart(hook: Any) -> None:
    hook(pre("a", "lookup_order", LOOKUP, "c1"))
    hook(post("a", "lookup_order", LOOKUP, "c1", "found"))
    assert hook(pre("a", "refund", REFUND, "c2")).stdout == ""
    other = _decision(hook(pre("b", "refund", REFUND, "c2")))
    assert "ARH-SEQ-008" in other["permissionDecisionReason"]


def test_parallel_calls_are_decided_cumulatively(hook: Any) -> None:
    hook(pre("p", "lookup_order", LOOKUP, "c1"))
    hook(post("p", "lookup_order", LOOKUP, "c1", "found"))
    first = hook(pre("p", "refund", REFUND, "r1"))
    second = _decision(hook(pre("p", "refund", {"order_id": "A1", "amount": 6}, "r2")))
    assert first.stdout == ""
    assert "ARH-SEQ-004" in second["permissionDecisionReason"]


def test_two_hooks_of_one_session_at_once_lose_no_step(hook: Any, tmp_path: Path) -> None:
    command = hook_command(hook.policy, hook.state)
    events = [pre("c", "echo", {"text": str(n)}, f"e{n}") for n in range(2)]
    running = [
        subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env(),
        )
        for _ in events
    ]
    for process, event in zip(running, events, strict=True):
        assert process.stdin is not None
        process.stdin.write(json.dumps(event).encode())
        process.stdin.close()
    for process in running:
        assert process.wait(timeout=SAFETY) == 0
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()
        process.stderr.close()
    state = json.loads((hook.state / "c.json").read_text(encoding="utf-8"))
    assert sorted(s["step_id"] for s in state["trace"]["steps"]) == ["e0", "e1"]


def test_sub_agent_events_set_the_agent(hook: Any) -> None:
    allowed = hook(pre("g", "echo", {}, "c1", agent_id="a-1", agent_type="Explore"))
    assert allowed.stdout == ""
    denied = _decision(hook(pre("g", "lookup_order", LOOKUP, "c2", agent_type="Explore")))
    assert "ARH-SCH-001" in denied["permissionDecisionReason"]


def test_malformed_input_fails_closed_or_open(hook: Any) -> None:
    for bad in ("not json", "[1]", json.dumps({"hook_event_name": "PreToolUse"})):
        done = hook(bad)
        assert done.returncode == 2
        assert done.stderr.startswith("error: arh guard: ") and done.stderr.count("\n") == 1
        assert "Traceback" not in done.stderr
    opened = hook("not json", "--fail", "open")
    assert opened.returncode == 0 and opened.stderr.startswith("warning: arh guard: ")
    unknown = hook({"hook_event_name": "Bogus", "session_id": "x"})
    assert unknown.returncode == 2


def test_damaged_state_is_set_aside(hook: Any) -> None:
    hook.state.mkdir()
    (hook.state / "d.json").write_text("{broken", encoding="utf-8")
    done = _decision(hook(pre("d", "echo", {}, "c1")))
    assert done["permissionDecision"] == "deny"
    assert "damaged state" in done["permissionDecisionReason"]
    assert (hook.state / "d.json.damaged-1").read_text(encoding="utf-8") == "{broken"
    assert hook(pre("d", "echo", {}, "c2")).stdout == ""


def test_a_policy_that_does_not_load(tmp_path: Path) -> None:
    command = hook_command(str(tmp_path / "missing.json"), tmp_path / "state")
    done = run(command, pre("s", "echo", {}, "c1"))
    assert _decision(done)["permissionDecision"] == "deny"
    assert done.stderr.startswith("error: arh guard: ")
    opened = run([*command, "--fail", "open"], pre("s", "echo", {}, "c1"))
    assert (opened.returncode, opened.stdout) == (0, "")
    assert opened.stderr.startswith("warning: arh guard: ")


def test_a_decision_past_the_timeout_fails_closed(hook: Any, tmp_path: Path) -> None:
    # A lock held by someone else: the hook waits for it no longer than --timeout-ms.
    import fcntl  # noqa: PLC0415

    hook.state.mkdir()
    with open(hook.state / "t.json.lock", "w", encoding="utf-8") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        command = [*hook_command(hook.policy, hook.state)[:-2], "--timeout-ms", "300"]
        done = run(command, pre("t", "echo", {}, "c1"))
    assert _decision(done)["permissionDecision"] == "deny"
    assert "locked" in done.stderr or "no decision within" in done.stderr


def test_codex_denies_by_exit_code_and_allows_in_silence(hook: Any) -> None:
    event = {**pre("x", "delete_account", {}, "c1"), "turn_id": "t1"}
    denied = hook(event)
    assert (denied.returncode, denied.stdout) == (2, "")
    assert "ARH-SEQ-002" in denied.stderr
    allowed = hook({**pre("x", "echo", {}, "c2"), "turn_id": "t1"}, "--dialect", "codex")
    assert (allowed.returncode, allowed.stdout, allowed.stderr) == (0, "", "")


def test_gemini_before_and_after_tool(hook: Any) -> None:
    def event(name: str, tool: str, arguments: dict[str, Any], **extra: Any) -> dict[str, Any]:
        base = {"hook_event_name": name, "session_id": "gem", "tool_name": tool}
        return {**base, "tool_input": arguments, **extra}

    denied = hook(event("BeforeTool", "refund", REFUND))
    assert json.loads(denied.stdout)["decision"] == "deny"
    allowed = hook(event("BeforeTool", "lookup_order", LOOKUP))
    assert json.loads(allowed.stdout) == {"decision": "allow"}
    hook(event("AfterTool", "lookup_order", LOOKUP, tool_response={"llmContent": "A1 found"}))
    state = json.loads((hook.state / "gem.json").read_text(encoding="utf-8"))
    assert state["pending"] == []
    assert state["trace"]["steps"][1]["output"] == {"llmContent": "A1 found"}


def test_record_is_a_trace_validate_reads(hook: Any, tmp_path: Path) -> None:
    record = tmp_path / "record"
    hook(pre("r", "refund", REFUND, "c1"), "--record", str(record))
    hook(pre("r", "lookup_order", LOOKUP, "c2"), "--record", str(record))
    hook(post("r", "lookup_order", LOOKUP, "c2", "found"), "--record", str(record))
    closing = hook({"hook_event_name": "Stop", "session_id": "r"}, "--record", str(record))
    assert closing.returncode == 0 and closing.stdout == ""
    assert "arh guard: session r: failed" in closing.stderr
    trace = json.loads((record / "r.jsonl").read_text(encoding="utf-8"))
    denied = trace["steps"][0]
    assert denied["status"] == "error"
    assert denied["metadata"]["arh_guard"]["denied"] == ["ARH-SEQ-008"]
    out = tmp_path / "report.json"
    subprocess.run(
        arh("validate", "--policy", hook.policy, "--json-out", str(out), str(record / "r.jsonl")),
        capture_output=True,
        text=True,
        env=env(),
        timeout=SAFETY,
        check=False,
    )
    report = json.loads(out.read_text(encoding="utf-8"))
    rules = {f["rule_id"] for t in report["reports"] for f in t["findings"]}
    assert "ARH-SEQ-008" in rules


def test_approve_answers_an_explicit_allow(hook: Any) -> None:
    done = _decision(hook(pre("ap", "echo", {}, "c1"), "--approve"))
    assert done["permissionDecision"] == "allow"


def test_warnings_are_context(hook: Any) -> None:
    done = _decision(hook(pre("w", "echo", {"text": "hi", "extra": 1}, "c1")))
    assert "permissionDecision" not in done
    assert "ARH-SCH-005" in done["additionalContext"]
