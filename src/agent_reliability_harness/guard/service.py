"""One hook event applied to one guarded session: the part every front end shares (the
hook command with its state files, the daemon with its sessions in memory)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import msgspec

from ..models.common import Status, StepType
from ..models.trace import Step, Trace
from .api import Decision, Guard
from .events import Event, Reply, allow_reply, deny_reply

__all__ = ["answer", "apply", "file_name", "head_for", "write_record"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def file_name(session_id: str) -> str:
    """A file name for a session id (other characters as `_XX`, never a path)."""
    name = _UNSAFE.sub(lambda m: f"_{ord(m.group()):02x}", session_id)[:200]
    return name if name not in {"", ".", ".."} else f"_{name}"


def head_for(session_id: str, policy_id: str) -> Trace:
    """The top-level fields of a guarded session's trace."""
    return Trace(
        trace_id=session_id,
        agent_name="agent",
        workflow="arh-guard",
        steps=(),
        source="arh guard",
        metadata={"arh_guard": {"policy_id": policy_id}},
    )


def apply(guard: Guard, event: Event) -> Decision | None:
    """The event's effect on the session: a decision for a call about to run."""
    if event.kind == "before":
        step_id = event.call_id
        return guard.before(
            event.tool, event.arguments, agent=event.agent, step_id=step_id, metadata=event.metadata
        )
    if event.kind == "after":
        _after(guard, event)
    return None


def _after(guard: Guard, event: Event) -> None:
    status = Status.ERROR if event.error else Status.OK
    call_id = event.call_id
    if call_id is None:  # no id (gemini-cli): the oldest pending call of the tool
        call_id = next(
            (i for i in guard.pending() if guard.session.pending_step(i).tool_name == event.tool),
            None,
        )
    if call_id is not None and guard.session.is_pending(call_id):
        guard.after(call_id, output=event.output, error=event.error, status=status)
        return
    guard.record(  # a call the guard was not asked about (or whose state was set aside)
        Step(
            step_id=call_id or f"after-{len(guard.session.steps) + 1}",
            type=StepType.TOOL_CALL,
            tool_name=event.tool,
            arguments=event.arguments,
            output=event.output,
            error=event.error,
            status=status,
            agent=event.agent,
            metadata=dict(event.metadata),
        )
    )


def answer(dialect: str, event: Event, decision: Decision | None, approve: bool) -> Reply:
    if decision is None:
        return Reply()
    if not decision.allowed:
        return deny_reply(dialect, event.name, decision.reason)
    return allow_reply(dialect, event.name, decision.context, approve)


def write_record(directory: str, trace: Trace) -> None:
    """The session as a canonical trace, one JSON line, in DIR/<session>.jsonl."""
    from ..atomic import write_atomic  # noqa: PLC0415

    os.makedirs(directory, exist_ok=True)
    text = msgspec.json.encode(_plain(trace)).decode()
    write_atomic(str(Path(directory) / f"{file_name(trace.trace_id)}.jsonl"), [text, "\n"])


def _plain(trace: Trace) -> dict[str, Any]:
    """The trace as canonical JSON, without the fields left at their defaults."""
    data: dict[str, Any] = msgspec.to_builtins(trace)
    data["steps"] = [
        {k: v for k, v in step.items() if not _default(k, v)} for step in data["steps"]
    ]
    return {k: v for k, v in data.items() if not _default(k, v)}


def _default(key: str, value: Any) -> bool:
    if value is None:
        return True
    if key in ("citations", "metadata", "inputs"):
        return not value
    return key == "requires_grounding" and value is False
