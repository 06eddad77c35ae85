"""Hook events in, replies out: the three dialects of docs/guard.md (Claude Code, Codex
CLI, gemini-cli), each in its own protocol. Nothing here decides: an event becomes an
`Event` (what the session is asked), and a decision becomes the dialect's `Reply`."""

from __future__ import annotations

import json
from typing import Any

import msgspec

__all__ = [
    "DIALECTS",
    "Event",
    "EventError",
    "Reply",
    "allow_reply",
    "deny_reply",
    "detect",
    "fail_reply",
    "parse_event",
]

DIALECTS = ("claude-code", "codex", "gemini")
_BEFORE = {"PreToolUse", "BeforeTool"}
_AFTER = {"PostToolUse", "PostToolUseFailure", "AfterTool"}
_CLOSE = {"SubagentStop", "Stop", "SessionEnd", "AfterAgent"}
_GEMINI = {"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel"}
# Events a session has no use for (prompts, notifications, compaction): answered with
# silence, never a failure.
_QUIET = {
    "UserPromptSubmit",
    "SessionStart",
    "Notification",
    "PreCompact",
    "PostCompact",
    "PermissionRequest",
    "BeforeAgent",
    "BeforeModel",
    "AfterModel",
    "BeforeToolSelection",
}


class EventError(ValueError):
    """Hook input that is not an event this dialect sends."""


class Event(msgspec.Struct, frozen=True):
    """What one hook event asks of a session: `kind` before / after / close / quiet."""

    kind: str
    name: str
    session_id: str
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    call_id: str | None = None
    agent: str | None = None
    output: Any = None
    error: str | None = None
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)


class Reply(msgspec.Struct, frozen=True):
    """What the hook command writes and how it exits."""

    stdout: str = ""
    stderr: str = ""
    code: int = 0


def detect(data: dict[str, Any], given: str | None) -> str:
    """The dialect: `--dialect`, else gemini-cli's event names, Codex's `turn_id`, else
    Claude Code."""
    if given is not None:
        return given
    name = data.get("hook_event_name")
    if name in _GEMINI:
        return "gemini"
    return "codex" if "turn_id" in data else "claude-code"


def parse_event(text: str | bytes, given: str | None) -> tuple[str, Event]:
    """The dialect and the event of one hook input (EventError when malformed)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise EventError(f"hook input is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise EventError("hook input is not a JSON object")
    dialect = detect(data, given)
    name = data.get("hook_event_name")
    if not isinstance(name, str) or not name:
        raise EventError("hook input has no hook_event_name")
    session = data.get("session_id")
    if not isinstance(session, str) or not session:
        raise EventError(f"{name}: hook input has no session_id")
    if name in _QUIET:
        return dialect, Event("quiet", name, session)
    if name in _CLOSE:
        return dialect, Event("close", name, session, agent=_agent(data))
    if name not in _BEFORE and name not in _AFTER:
        raise EventError(f"unknown hook event {name!r}")
    return dialect, _tool_event(name, session, data)


def _tool_event(name: str, session: str, data: dict[str, Any]) -> Event:
    tool = data.get("tool_name")
    if not isinstance(tool, str) or not tool:
        raise EventError(f"{name}: hook input has no tool_name")
    arguments = data.get("tool_input", {})
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise EventError(f"{name}: tool_input is not a JSON object")
    call_id = data.get("tool_use_id") or data.get("call_id") or data.get("tool_call_id")
    metadata = {k: data[k] for k in ("agent_id", "turn_id", "cwd") if isinstance(data.get(k), str)}
    if name in _BEFORE:
        return Event(
            "before", name, session, tool, arguments, _id(call_id), _agent(data), metadata=metadata
        )
    output = data.get("tool_response", data.get("tool_output"))
    error = data.get("error") if isinstance(data.get("error"), str) else None
    if error is None and isinstance(output, dict):
        error = _response_error(output)
    return Event(
        "after", name, session, tool, arguments, _id(call_id), _agent(data), output, error, metadata
    )


def _id(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _agent(data: dict[str, Any]) -> str | None:
    """A sub-agent's events name it (`agent_type`, else `agent_id`)."""
    for key in ("agent_type", "agent_id"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _response_error(output: dict[str, Any]) -> str | None:
    """A tool response that reports its own failure (`is_error`, `error`)."""
    error = output.get("error")
    if isinstance(error, str) and error:
        return error
    if output.get("is_error") is True or output.get("success") is False:
        content = output.get("content") or output.get("message") or "the tool reported an error"
        return content if isinstance(content, str) else json.dumps(content)[:500]
    return None


def deny_reply(dialect: str, name: str, reason: str) -> Reply:
    """A denied call, in the dialect's protocol."""
    if dialect == "claude-code":
        out = {
            "hookSpecificOutput": {
                "hookEventName": name,
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }
        return Reply(json.dumps(out) + "\n")
    if dialect == "gemini":
        return Reply(json.dumps({"decision": "deny", "reason": reason}) + "\n")
    return Reply("", reason + "\n", 2)  # Codex honours a deny only: exit 2, reason on stderr


def allow_reply(dialect: str, name: str, context: str, approve: bool) -> Reply:
    """An allowed call: no decision (the agent's own permission rules still apply), with
    the warnings as context; an explicit allow only under --approve."""
    if dialect == "claude-code":
        specific: dict[str, Any] = {}
        if approve:
            specific["permissionDecision"] = "allow"
        if context:
            specific["additionalContext"] = context
        if not specific:
            return Reply()
        return Reply(json.dumps({"hookSpecificOutput": {"hookEventName": name, **specific}}) + "\n")
    if dialect == "gemini":
        out: dict[str, Any] = {"decision": "allow"}
        if context:
            out["hookSpecificOutput"] = {"hookEventName": name, "additionalContext": context}
        return Reply(json.dumps(out) + "\n")
    return Reply()  # Codex: silence allows (unknown fields would make it ignore the reply)


def fail_reply(dialect: str | None, name: str | None, message: str, closed: bool) -> Reply:
    """A fault (malformed input, a policy or state that cannot be used, a timeout): with
    --fail closed a tool call is denied; with --fail open it runs, with a warning."""
    line = f"error: arh guard: {message}\n" if closed else f"warning: arh guard: {message}\n"
    if not closed or (name is not None and name not in _BEFORE):
        return Reply("", line, 0)
    if dialect in ("claude-code", "gemini") and name is not None:
        reply = deny_reply(dialect, name, f"arh guard failed closed: {message}")
        return Reply(reply.stdout, line, 0)
    return Reply("", line, 2)
