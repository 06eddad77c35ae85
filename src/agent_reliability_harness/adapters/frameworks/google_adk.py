"""The "google-adk" format: a Google Agent Development Kit (ADK) session as its session
service saves it (`Session.model_dump_json()`, snake_case or camelCase by alias:
`{"id", "app_name", "user_id", "state", "events": [...]}`), and the pre-release session
schema (2024-12: `context`, `past_events`, `pending_events`, `event_logs`).

Each event has an `author` (the user or an agent) and a `content` whose `parts` are text
(`thought` text is reasoning), `function_call` / `function_response` (paired by `id`,
else by name), `executable_code` / `code_execution_result`; `usage_metadata` is the
event's model usage (pre-release sessions record it in `event_logs`, per model call, by
`event_id`). Agents' steps name their agent; a sub-agent reached by
`transfer_to_agent` runs under that call. One trace per session.
"""

from __future__ import annotations

from typing import Any

from ..core.base import Adapter
from ..core.common import TraceBuilder, arr, fail, first, obj, opt_count, opt_obj

NAME = "google-adk"
_TRANSFERS = ("transfer_to_agent", "transfer_to_other_agent")


def _is_event(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and isinstance(item.get("author"), str)
        and ("invocation_id" in item or "invocationId" in item)
    )


def detect(value: Any) -> bool:
    """A session object whose `events` carry ADK's `author` and `invocation_id`."""
    events = value.get("events") if isinstance(value, dict) else None
    return isinstance(events, list) and any(_is_event(e) for e in events[:1000])


def convert(value: Any, name_hint: str) -> list[Any]:
    if not detect(value):
        raise fail("$", 'expected an ADK session ({"id", "events": [...]} with authored events)')
    b = TraceBuilder(NAME, name_hint)
    b.labels({"trace_id": value.get("id"), "workflow": first(value, "app_name", "appName")})
    events: list[tuple[str, Any]] = []
    for key in ("past_events", "events"):
        events += [(f"{key}[{i}]", e) for i, e in enumerate(arr(value.get(key) or [], key))]
    found = [e.get("author") for _, e in events if isinstance(e, dict)]
    authors = {a for a in found if isinstance(a, str)} - {"user"}
    session = _Session(b, multi=len(authors) > 1)
    for at, raw in events:
        session.event(obj(raw, at), at)
    pending = value.get("pending_events")
    if pending:
        b.note("pending_events", "events pending when the session was saved", pending)
    for n, raw in enumerate(arr(value.get("event_logs") or [], "event_logs")):
        session.log(obj(raw, f"event_logs[{n}]"), f"event_logs[{n}]")
    return [b.build()]


class _Session:
    """The walk over a session's events: which step each event started, the hand-offs."""

    def __init__(self, b: TraceBuilder, multi: bool) -> None:
        self.b = b
        self.multi = multi
        self.starts: dict[str, int] = {}  # event id -> index of its first step
        self.handoffs: dict[str, str] = {}  # agent -> step id of the call that transferred

    def event(self, event: dict[str, Any], at: str) -> None:
        b = self.b
        if event.get("partial") is True:
            b.skip(at, "partial (streaming) event")
            return
        author = event.get("author")
        if self.multi and author != "user" and isinstance(author, str):
            b.agent, b.parent_step_id = author, self.handoffs.get(author)
        start = len(b.steps)
        content = opt_obj(event, "content", at)
        parts = arr(content.get("parts") or [], f"{at}.content.parts") if content else []
        for n, raw in enumerate(parts):
            self.part(obj(raw, f"{at}.content.parts[{n}]"), author, f"{at}.content.parts[{n}]")
        self.failure(event, at, start)
        usage = opt_obj(event, "usage_metadata", at) or opt_obj(event, "usageMetadata", at)
        if usage is not None:
            self.usage(start, usage, f"{at}.usage_metadata")
        if not parts and len(b.steps) == start:
            b.skip(at, "event without content (state, artifact or control actions)")
        event_id = event.get("id")
        if isinstance(event_id, str) and len(b.steps) > start:
            self.starts.setdefault(event_id, start)

    def part(self, part: dict[str, Any], author: Any, at: str) -> None:
        b = self.b
        call = first(part, "function_call", "functionCall")
        response = first(part, "function_response", "functionResponse")
        code = first(part, "executable_code", "executableCode")
        outcome = first(part, "code_execution_result", "codeExecutionResult")
        if isinstance(part.get("text"), str):
            if part.get("thought") is True:
                b.reasoning(part["text"], at)
            elif author == "user":
                b.input("user", part["text"], at)
            else:
                b.text(part["text"], at)
        elif isinstance(call, dict):
            self.call(call, at)
        elif isinstance(response, dict):
            self.response(response, at)
        elif isinstance(code, dict):
            b.call(None, "code_execution", code, at)
        elif isinstance(outcome, dict):
            failed = outcome.get("outcome") not in (None, "OUTCOME_OK")
            error = str(outcome.get("outcome")) if failed else None
            b.result(None, outcome.get("output"), at, error=error, name="code_execution")
        elif set(part) <= {"thought_signature", "thoughtSignature", "thought"}:
            b.skip(at, "a part holding only a thought signature")
        else:
            b.note(at, "content part that is not text, a function call or a response", part)

    def call(self, call: dict[str, Any], at: str) -> None:
        b = self.b
        name, args = call.get("name"), call.get("args")
        index = b.call(_id(call), name if isinstance(name, str) else None, args or {}, at)
        target = args.get("agent_name") if isinstance(args, dict) else None
        if name in _TRANSFERS and isinstance(target, str):
            self.handoffs[target] = b.steps[index]["step_id"]

    def response(self, response: dict[str, Any], at: str) -> None:
        """A function's response; an `error` (or `status: "error"`) in it fails the call."""
        output = response.get("response")
        error = None
        if isinstance(output, dict):
            found = output.get("error") or output.get("error_message")
            if found or output.get("status") == "error":
                error = str(found or output.get("status"))
        name = response.get("name")
        self.b.result(
            _id(response),
            output,
            at,
            error=error,
            is_error=error is not None,
            name=name if isinstance(name, str) else None,
        )

    def failure(self, event: dict[str, Any], at: str, start: int) -> None:
        """An event that records a failed model call (`error_code`, `error_message`)."""
        code = first(event, "error_code", "errorCode")
        message = first(event, "error_message", "errorMessage")
        if code is None and message is None:
            return
        b = self.b
        index = start if len(b.steps) > start else b.text(None, at)
        b.settle(index, error=str(message or code))

    def usage(self, start: int, usage: dict[str, Any], at: str) -> None:
        """A model call's usage: prompt tokens in; candidates and thoughts out."""
        prompt = _count(usage, "prompt_token_count", "promptTokenCount", at)
        parts = [
            _count(usage, "candidates_token_count", "candidatesTokenCount", at),
            _count(usage, "thoughts_token_count", "thoughtsTokenCount", at),
        ]
        present = [p for p in parts if p is not None]
        self.b.tokens(start, prompt, sum(present) if present else None, at)

    def log(self, log: dict[str, Any], at: str) -> None:
        """A pre-release event log: one model call (request, response) for an event; its
        usage goes on that event's first step (the request repeats the history)."""
        response = opt_obj(log, "model_response", at) or {}
        usage = opt_obj(response, "usage_metadata", f"{at}.model_response")
        start = self.starts.get(str(log.get("event_id")))
        if start is None:
            self.b.note(at, "model call log of an event with no step", log.get("event_id"))
            return
        if usage is not None:
            self.usage(start, usage, f"{at}.model_response.usage_metadata")
        self.b.mark(at)


def _id(part: dict[str, Any]) -> str | None:
    found = part.get("id")
    return found if isinstance(found, str) and found else None


def _count(usage: dict[str, Any], snake: str, camel: str, at: str) -> int | None:
    return opt_count(usage, snake if snake in usage else camel, at)


ADAPTER = Adapter(
    name=NAME,
    description="Google ADK sessions (Session JSON: authored events, content parts)",
    detect=detect,
    convert=convert,
)
