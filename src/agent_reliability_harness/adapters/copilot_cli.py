"""The "copilot-cli" format: a GitHub Copilot CLI session's `events.jsonl`
(`~/.copilot/session-state/<session id>/events.jsonl`; the Copilot SDK's `SessionEvent`).

One event per line: `{type, data, id, timestamp, parentId}` (camelCase data, as the SDK's
`SessionEvent.to_dict()` writes it). `user.message` is an input; `assistant.message` the
model's text (`reasoningText` or `assistant.reasoning` events: reasoning) and its
`toolRequests` (calls by `toolCallId`); `tool.execution_complete` a call's outcome
(`success`, `result.content`, `error.message`); `assistant.usage` one model request's
tokens and cost (by `apiCallId`); `session.error` a failed model request;
`session.shutdown`'s `modelMetrics` the run totals. A sub-agent's events carry
`parentToolCallId`: its steps name the agent `subagent.started` gave that call and run
under it. One trace per file.
"""

from __future__ import annotations

from typing import Any

from ._common import TraceBuilder, obj, opt_amount, opt_count, opt_obj, opt_str
from ._sessions import session_adapter
from ._totals import RecordedTotals
from .base import Adapter

NAME = "copilot-cli"
_PREFIXES = ("session.", "user.", "assistant.", "tool.", "subagent.", "hook.", "skill.")
# Events that record how the session ran, not what the agent did (listed in docs).
_STATE = ("session.", "hook.", "skill.", "tool_search.", "permission.", "elicitation.")
_PROGRESS = (
    "assistant.turn_start",
    "assistant.intent",
    "assistant.message_start",
    "assistant.idle",
    "tool.execution_progress",
    "tool.execution_partial_result",
    "tool.shell_output",
    "subagent.completed",
    "subagent.selected",
    "subagent.deselected",
    "subagent.configured",
    "subagent.failed",
    "assistant.turn_retry",
    "assistant.server_tool_progress",
    "tool.user_requested",
    "abort",
)


def detect_line(line: Any) -> bool:
    """An event line: a dotted Copilot event type with its `data` object, `id` and
    `timestamp` (codex exec's dotted events have no `data`)."""
    if not isinstance(line, dict) or not isinstance(line.get("data"), dict):
        return False
    kind = line.get("type")
    return (
        isinstance(kind, str)
        and kind.startswith(_PREFIXES)
        and "id" in line
        and "timestamp" in line
    )


def detect(value: Any) -> bool:
    """The session given as a JSON array of its lines (a `session.start` among them)."""
    return (
        isinstance(value, list)
        and bool(value)
        and detect_line(value[0])
        and any(isinstance(v, dict) and v.get("type") == "session.start" for v in value[:1000])
    )


def _streamed(kind: Any) -> bool:
    """A delta of a message, reasoning or tool call being streamed, or a fusion phase."""
    return isinstance(kind, str) and (
        kind.endswith("_delta") or kind.startswith("assistant.fusion_")
    )


class _Session:
    """One session file: its events in order."""

    def __init__(self, name_hint: str) -> None:
        self.b = TraceBuilder(NAME, name_hint, agent_name="copilot")
        self.agents: dict[str, str] = {}  # task tool call id -> sub-agent name
        self.requests: dict[str, int] = {}  # apiCallId -> first step of its message
        self.thought = False  # an assistant.reasoning event waits for its message

    def feed(self, at: str, record: Any) -> None:
        if not detect_line(record):
            self.b.note(at, "line that is not a Copilot CLI event", record)
            return
        event = obj(record, at)
        kind = event.get("type")
        data = obj(event.get("data"), f"{at}.data")
        where = f"{at}.data"
        if event.get("ephemeral") is True:
            self.b.skip(at, "ephemeral (streaming) event")
            return
        self._owner(data)
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(self, data, where)
        elif kind in _PROGRESS or _streamed(kind):
            self.b.skip(at, f"progress event ({kind})")
        elif isinstance(kind, str) and kind.startswith(_STATE):
            self.b.skip(at, f"session state event ({kind})")
        else:
            self.b.note(at, "event of an unknown type", kind)

    def _owner(self, data: dict[str, Any]) -> None:
        parent = data.get("parentToolCallId")
        if isinstance(parent, str) and parent:
            self.b.agent = self.agents.get(parent, "subagent")
            self.b.parent_step_id = parent
        else:
            self.b.agent, self.b.parent_step_id = None, None

    def start(self, data: dict[str, Any], at: str) -> None:
        self.b.labels({"trace_id": data.get("sessionId")}, at)
        self.b.mark(at)

    def user(self, data: dict[str, Any], at: str) -> None:
        self.b.input("user", opt_str(data, "content", at) or "", at)

    def reasoning(self, data: dict[str, Any], at: str) -> None:
        self.b.reasoning(opt_str(data, "content", at) or "", at)
        self.thought = True

    def message(self, data: dict[str, Any], at: str) -> None:
        b = self.b
        start = len(b.steps)
        thinking = opt_str(data, "reasoningText", at)
        if thinking and not self.thought:
            b.reasoning(thinking, f"{at}.reasoningText")
        self.thought = False
        content = opt_str(data, "content", at)
        model = opt_str(data, "model", at)
        if content:
            b.text(content, at, model=model)
        requests = data.get("toolRequests")
        for n, raw in enumerate(requests if isinstance(requests, list) else []):
            where = f"{at}.toolRequests[{n}]"
            request = obj(raw, where)
            call_id, name = opt_str(request, "toolCallId", where), opt_str(request, "name", where)
            b.call(call_id, name, request.get("arguments"), where)
        if len(b.steps) == start:
            b.skip(at, "assistant message without content or tool requests")
            return
        api = data.get("apiCallId")
        if isinstance(api, str):
            self.requests.setdefault(api, start)

    def tool_start(self, data: dict[str, Any], at: str) -> None:
        """A tool the model asked for starts (bookkeeping), or a tool the user ran."""
        call_id = opt_str(data, "toolCallId", at)
        if self.b.is_open(call_id):
            self.b.skip(at, "tool start of a requested call")
            return
        self.b.call(call_id, opt_str(data, "toolName", at), data.get("arguments"), at)

    def tool_end(self, data: dict[str, Any], at: str) -> None:
        result = opt_obj(data, "result", at) or {}
        error = opt_obj(data, "error", at)
        failed = data.get("success") is False
        message = error.get("message") if error else None
        text = str(message) if message else ("the tool failed" if failed else None)
        self.b.result(
            opt_str(data, "toolCallId", at), result.get("content"), at, error=text, is_error=failed
        )

    def usage(self, data: dict[str, Any], at: str) -> None:
        """One model request's usage, on the first step of its message (by apiCallId)."""
        api = data.get("apiCallId")
        index = self.requests.get(api) if isinstance(api, str) else None
        self.b.tokens(
            len(self.b.steps) if index is None else index,
            opt_count(data, "inputTokens", at),
            opt_count(data, "outputTokens", at),
            at,
            cost_usd=opt_amount(data, "cost", at),
        )
        self.b.mark(at)

    def error(self, data: dict[str, Any], at: str) -> None:
        index = self.b.text(None, at)
        self.b.settle(index, error=str(data.get("message") or data.get("errorType")))

    def subagent(self, data: dict[str, Any], at: str) -> None:
        call_id, name = data.get("toolCallId"), data.get("agentName")
        if isinstance(call_id, str) and isinstance(name, str):
            self.agents[call_id] = name
        self.b.mark(at)

    def shutdown(self, data: dict[str, Any], at: str) -> None:
        """The session's totals per model (`modelMetrics`): the run totals."""
        metrics = opt_obj(data, "modelMetrics", at) or {}
        tokens_in = tokens_out = 0
        for model, raw in sorted(metrics.items()):
            where = f"{at}.modelMetrics.{model}"
            usage = opt_obj(obj(raw, where), "usage", where) or {}
            tokens_in += opt_count(usage, "inputTokens", f"{where}.usage") or 0
            tokens_out += opt_count(usage, "outputTokens", f"{where}.usage") or 0
        if metrics:
            self.b.recorded_totals(RecordedTotals(at, tokens_in, tokens_out))
        self.b.mark(at)

    def turn_end(self, data: dict[str, Any], at: str) -> None:
        self.b.end_turn()
        self.b.skip(at, "turn boundary")

    def finish(self) -> list[dict[str, Any]]:
        return [self.b.build()]


_HANDLERS: dict[str, Any] = {
    "session.start": _Session.start,
    "session.error": _Session.error,
    "session.shutdown": _Session.shutdown,
    "user.message": _Session.user,
    "assistant.reasoning": _Session.reasoning,
    "assistant.message": _Session.message,
    "assistant.usage": _Session.usage,
    "assistant.turn_end": _Session.turn_end,
    "tool.execution_start": _Session.tool_start,
    "tool.execution_complete": _Session.tool_end,
    "subagent.started": _Session.subagent,
}


ADAPTER: Adapter = session_adapter(
    NAME,
    "GitHub Copilot CLI session events (events.jsonl)",
    start=_Session,
    detect=detect,
    detect_line=detect_line,
)
