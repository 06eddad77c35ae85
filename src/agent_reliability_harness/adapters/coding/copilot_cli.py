"""The "copilot-cli" format: GitHub Copilot CLI session event logs.

`~/.copilot/session-state/<session>/events.jsonl` (and the events the Copilot SDK
streams): one event a line, `{id, timestamp, parentId, type, data}` (+ `agentId`,
`ephemeral`), the SDK's `SessionEvent`. What a run holds:
- `session.start` / `session.resume`: the session id, `context.cwd`, the CLI version;
- `user.message` (`content`): an input; `assistant.message` (`content`, `toolRequests`
  with `toolCallId`, `name`, `arguments`; `reasoningText`): a response and its calls;
  `assistant.reasoning`: reasoning; `assistant.usage` (`inputTokens`, `outputTokens`,
  `model`, `cost` in premium requests, not dollars): the last message's usage;
- `tool.execution_start` (a call the message did not request: its start makes the call)
  and `tool.execution_complete` (`success`, `result.content`, `error.message`);
- `subagent.started` (`toolCallId`, `agentName`): the events carrying that
  `parentToolCallId` are the sub-agent's steps (`agent`, `parent_step_id`);
- `session.shutdown` (`modelMetrics`: each model's usage): the run's token totals
  (adapters/_totals.py); `session.error`: a failed request, kept in `metadata.errors`.
Every other event type is bookkeeping (docs/adapters.md) and an unknown one a note.
"""

from __future__ import annotations

from typing import Any

from ..core.base import Adapter
from ..core.common import TraceBuilder, opt_count, opt_list, opt_obj, opt_str
from ..core.sessions import session_adapter
from ..core.totals import RecordedTotals

NAME = "copilot-cli"
_MAPPED = (
    "session.start",
    "session.resume",
    "user.message",
    "assistant.message",
    "assistant.reasoning",
    "assistant.usage",
    "tool.execution_start",
    "tool.execution_complete",
    "subagent.started",
    "session.shutdown",
    "session.error",
)
# Families of events that carry no run content of their own: streaming deltas and
# progress of what a later event holds whole, UI and session state, hooks, permissions.
_BOOKKEEPING_PREFIXES = (
    "session.",
    "assistant.",
    "tool.",
    "subagent.",
    "skill.",
    "hook.",
    "permission.",
    "model.",
    "system.",
    "pending_messages.",
    "tool_search.",
    "sandbox.",
    "instruction.",
    "agent.",
)
_BOOKKEEPING_EXACT = ("abort", "prompt_cache_break")


def _is_event(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("type"), str)
        and isinstance(value.get("data"), dict)
        and isinstance(value.get("id"), str)
        and "parentId" in value
        and "timestamp" in value
    )


def detect_line(line: Any) -> bool:
    """A log's first line: `session.start` written by the Copilot agent (its `producer`
    and `copilotVersion`), or any Copilot event (a log cut from a longer one)."""
    return _is_event(line) and (
        line["type"] in _MAPPED
        or (line["type"].startswith(_BOOKKEEPING_PREFIXES) and "copilotVersion" in line["data"])
    )


def detect(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value) and detect_line(value[0])
    return detect_line(value)


class _Log:
    def __init__(self, name_hint: str) -> None:
        self.b = TraceBuilder(NAME, name_hint, agent_name="copilot-cli")
        self.message_start: int | None = None
        self.agents: dict[str, str] = {}  # a sub-agent's tool call id -> its name
        self.labelled = False

    def feed(self, at: str, event: Any) -> None:
        b = self.b
        if not _is_event(event):
            b.note(at, "line that is not a Copilot session event", event)
            return
        kind, data = event["type"], event["data"]
        handler = _HANDLERS.get(kind)
        if handler is not None:
            self._owner(data)
            handler(self, data, f"{at}.data")
        elif kind.startswith(_BOOKKEEPING_PREFIXES) or kind in _BOOKKEEPING_EXACT:
            b.skip(at, f"{kind} event")
        else:
            b.note(at, "event of an unknown type", event)

    def _owner(self, data: dict[str, Any]) -> None:
        """Steps of a sub-agent carry the tool call that started it."""
        parent = data.get("parentToolCallId")
        if isinstance(parent, str) and parent in self.agents:
            self.b.agent, self.b.parent_step_id = self.agents[parent], parent
        else:
            self.b.agent = self.b.parent_step_id = None

    def _start(self, data: dict[str, Any], at: str) -> None:
        b = self.b
        if not self.labelled and isinstance(data.get("sessionId"), str):
            self.labelled = True
            b.labels({"trace_id": data["sessionId"]}, at)
        context = opt_obj(data, "context", at) or {}
        if isinstance(context.get("cwd"), str):
            b.metadata["cwd"] = context["cwd"]
        if isinstance(data.get("copilotVersion"), str):
            b.metadata["copilot_version"] = data["copilotVersion"]
        b.mark(at)

    def _user(self, data: dict[str, Any], at: str) -> None:
        self.b.input("user", opt_str(data, "content", at) or "", at)

    def _message(self, data: dict[str, Any], at: str) -> None:
        b = self.b
        reasoning = opt_str(data, "reasoningText", at)
        if reasoning:
            b.reasoning(reasoning, f"{at}.reasoningText")
        self.message_start = len(b.steps)
        text = opt_str(data, "content", at)
        requests = opt_list(data, "toolRequests", at)
        model = opt_str(data, "model", at)
        if text or not requests:
            b.text(text or None, at, model=model)
        else:
            b.mark(at)  # the message is its calls
        for index, request in enumerate(requests):
            where = f"{at}.toolRequests[{index}]"
            if not isinstance(request, dict):
                b.note(where, "tool request that is not an object", request)
                continue
            b.call(
                opt_str(request, "toolCallId", where),
                opt_str(request, "name", where),
                request.get("arguments"),
                f"{where}.arguments",
                model=model,
            )

    def _reasoning(self, data: dict[str, Any], at: str) -> None:
        self.b.reasoning(opt_str(data, "content", at), at)

    def _usage(self, data: dict[str, Any], at: str) -> None:
        b = self.b
        start = self.message_start if self.message_start is not None else len(b.steps)
        b.tokens(start, opt_count(data, "inputTokens", at), opt_count(data, "outputTokens", at), at)
        b.mark(at)

    def _tool_start(self, data: dict[str, Any], at: str) -> None:
        b = self.b
        call_id = opt_str(data, "toolCallId", at)
        if call_id is not None and b.is_open(call_id):
            b.skip(at, "tool.execution_start of a requested call")
            return
        b.call(call_id, opt_str(data, "toolName", at), data.get("arguments"), f"{at}.arguments")

    def _tool_end(self, data: dict[str, Any], at: str) -> None:
        result = opt_obj(data, "result", at) or {}
        failure = opt_obj(data, "error", at)
        output = result.get("content")
        if data.get("success") is True:
            self.b.result(opt_str(data, "toolCallId", at), output, at, is_error=False)
            return
        error = opt_str(failure, "message", f"{at}.error") if failure else None
        self.b.result(
            opt_str(data, "toolCallId", at), output, at, error=error or "tool failed", is_error=True
        )

    def _subagent(self, data: dict[str, Any], at: str) -> None:
        call_id, name = opt_str(data, "toolCallId", at), opt_str(data, "agentName", at)
        if call_id is not None and name is not None:
            self.agents[call_id] = name
        self.b.mark(at)

    def _shutdown(self, data: dict[str, Any], at: str) -> None:
        b = self.b
        totals = {"input_tokens": 0, "output_tokens": 0}
        found = False
        for model, metric in sorted((opt_obj(data, "modelMetrics", at) or {}).items()):
            usage = metric.get("usage") if isinstance(metric, dict) else None
            where = f"{at}.modelMetrics.{model}.usage"
            if not isinstance(usage, dict):
                b.note(where, "model metric without usage", metric)
                continue
            found = True
            totals["input_tokens"] += opt_count(usage, "inputTokens", where) or 0
            totals["output_tokens"] += opt_count(usage, "outputTokens", where) or 0
        if found:
            b.recorded_totals(RecordedTotals(f"{at}.modelMetrics", **totals))
        b.mark(at)

    def _error(self, data: dict[str, Any], at: str) -> None:
        message = data.get("message") or data.get("errorType") or "session error"
        self.b.metadata.setdefault("errors", []).append(str(message))
        self.b.mark(at)

    def finish(self) -> list[dict[str, Any]]:
        return [self.b.build()]


_HANDLERS = {
    "session.start": _Log._start,
    "session.resume": _Log._start,
    "user.message": _Log._user,
    "assistant.message": _Log._message,
    "assistant.reasoning": _Log._reasoning,
    "assistant.usage": _Log._usage,
    "tool.execution_start": _Log._tool_start,
    "tool.execution_complete": _Log._tool_end,
    "subagent.started": _Log._subagent,
    "session.shutdown": _Log._shutdown,
    "session.error": _Log._error,
}

ADAPTER: Adapter = session_adapter(
    NAME,
    "GitHub Copilot CLI session event logs (events.jsonl) and SDK session events",
    start=_Log,
    detect=detect,
    detect_line=detect_line,
)
