"""The "mcp" format: Model Context Protocol session logs, the JSON-RPC 2.0 messages a client
and server exchanged, as a JSON array or JSON Lines (one message, or one `{"message": ...}`
wrapper with an optional `timestamp`, per line). One trace per session: `tools/call` requests
are tool calls, paired with their results by JSON-RPC id; a server's `sampling/createMessage`
request and the client's answer go to the metadata of the tool call they came during;
`tools/list` results are kept as the declared tool set; protocol bookkeeping is skipped, other
content is noted."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..core.common import TraceBuilder, obj, opt_list, opt_obj, opt_str
from ..core.sessions import session_adapter

NAME = "mcp"
SAMPLING = "sampling/createMessage"
# Requests, results and notifications of the protocol itself: no run content.
_BOOKKEEPING = {
    "initialize",
    "ping",
    "logging/setLevel",
    "completion/complete",
    "resources/list",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "roots/list",
    "notifications/initialized",
    "notifications/progress",
    "notifications/roots/list_changed",
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/resources/list_changed",
    "notifications/resources/updated",
}


def _message(item: Any) -> dict[str, Any] | None:
    """The JSON-RPC message of an item: the item itself, or a wrapper's `message`."""
    if isinstance(item, dict) and item.get("jsonrpc") == "2.0":
        return item
    inner = item.get("message") if isinstance(item, dict) else None
    return inner if isinstance(inner, dict) and inner.get("jsonrpc") == "2.0" else None


def detect(value: Any) -> bool:
    """A JSON-RPC 2.0 message (or an array of them) with a method, result or error."""
    items = value if isinstance(value, list) else [value]
    for item in items[:1000]:
        message = _message(item)
        if message is not None and any(k in message for k in ("method", "result", "error")):
            return True
    return False


@dataclass
class _Session:
    """One MCP session being read, message by message (see _sessions.Session)."""

    b: TraceBuilder
    pending: dict[str, str] = field(default_factory=dict)  # request id -> method
    calls: dict[str, list[int]] = field(default_factory=dict)  # tool call id -> open steps
    started: dict[int, float] = field(default_factory=dict)  # tool call step -> time
    # sampling request id -> (its params, the step id of the call it came during, where,
    # how many steps there were then)
    sampling: dict[str, tuple[dict[str, Any], str | None, str, int]] = field(default_factory=dict)

    def feed(self, at: str, record: Any) -> None:
        if isinstance(record, list):  # a JSON-RPC batch
            for index, part in enumerate(record):
                _item(self, part, f"{at}[{index}]")
        else:
            _item(self, record, at)

    def finish(self) -> list[dict[str, Any]]:
        for params, _, at, after in self.sampling.values():
            self.b.note(at, f"{SAMPLING} request without a result", params, after=after)
        return [self.b.build()]

    def running_call(self) -> str | None:
        """The step id of the one tool call open now (None: none, or several)."""
        open_steps = [index for indices in self.calls.values() for index in indices]
        return self.b.steps[open_steps[0]]["step_id"] if len(open_steps) == 1 else None

    def answer(self, key: str) -> int:
        """The step of the oldest open call with this id (the one `result` pairs with)."""
        return self.calls[key].pop(0)


def _start(name_hint: str) -> _Session:
    return _Session(TraceBuilder(NAME, name_hint))


def _time(item: Any) -> float | None:
    stamp = item.get("timestamp") if isinstance(item, dict) else None
    if not isinstance(stamp, str):
        return None
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except ValueError:
        return None


def _item(s: _Session, item: Any, at: str) -> None:
    message = _message(item)
    if message is None:
        s.b.note(at, "item that is not a JSON-RPC 2.0 message", item)
        return
    where = at if message is item else f"{at}.message"
    when = _time(item)
    method = message.get("method")
    raw_id = message.get("id")
    key = None if raw_id is None or isinstance(raw_id, bool) else str(raw_id)
    if isinstance(method, str) and key is not None:
        _request(s, message, method, key, where, when=when)
    elif isinstance(method, str):
        _notification(s, message, method, where)
    elif "result" in message or "error" in message:
        _response(s, message, key, where, when)
    else:
        s.b.note(where, "JSON-RPC message without a method, result or error", message)


def _request(
    s: _Session, message: dict[str, Any], method: str, key: str, at: str, *, when: float | None
) -> None:
    params = opt_obj(message, "params", at) or {}
    if method == "tools/call":
        name = opt_str(params, "name", f"{at}.params")
        index = s.b.call(key, name, params.get("arguments"), f"{at}.params.arguments")
        s.calls.setdefault(key, []).append(index)
        if when is not None:
            s.started[index] = when
        return
    s.pending[key] = method
    if method == "initialize" and isinstance(params.get("clientInfo"), dict):
        s.b.metadata["mcp_client"] = params["clientInfo"]
        name = params["clientInfo"].get("name")
        s.b.agent_name = name if isinstance(name, str) and name else s.b.agent_name
        s.b.mark(at)
    elif method in _BOOKKEEPING or method == "tools/list":
        s.b.skip(at, f"{method} request")
    elif method == SAMPLING:  # mapped with its result, else noted at the end
        s.sampling[key] = (params, s.running_call(), at, len(s.b.steps))
    else:  # resources/read, prompts/get, sampling, elicitation...: content, but no tool call
        s.b.note(at, f"{method} request is not a tool call", params)


def _notification(s: _Session, message: dict[str, Any], method: str, at: str) -> None:
    params = opt_obj(message, "params", at) or {}
    if method == "notifications/cancelled":
        request = params.get("requestId")
        key = None if request is None or isinstance(request, bool) else str(request)
        if key is not None and s.b.is_open(key):
            reason = params.get("reason")
            text = f"cancelled: {reason}" if isinstance(reason, str) and reason else "cancelled"
            s.b.result(key, None, at, error=text, is_error=True)
            s.started.pop(s.answer(key), None)
            return
        s.pending.pop(key or "", None)
        s.b.skip(at, method)
    elif method in _BOOKKEEPING:
        s.b.skip(at, method)
    else:
        s.b.note(at, f"{method} notification is not a step", message)


def _response(
    s: _Session, message: dict[str, Any], key: str | None, at: str, when: float | None
) -> None:
    if key is not None and s.b.is_open(key):
        index = s.answer(key)
        _tool_result(s, message, key, at, index)
        start = s.started.pop(index, None)
        if start is not None and when is not None and when >= start:
            s.b.measure(index, latency_ms=round((when - start) * 1000, 3))
        return
    method = s.pending.pop(key, None) if key is not None else None
    result = message.get("result")
    if method is None and isinstance(result, dict) and "content" in result:
        s.b.note(at, "tool result without a matching call", message)
    elif method is None:
        s.b.note(at, "response without a matching request", message)
    elif "error" in message:
        if method == SAMPLING:
            asked, _, asked_at, after = s.sampling.pop(key or "")
            s.b.note(asked_at, f"{method} request is not a tool call", asked, after=after)
        s.b.note(at, f"{method} request failed", message.get("error"))
    elif method == SAMPLING:
        _sampled(s, key or "", result, at)
    elif method == "tools/list":
        tools = opt_list(obj(result, f"{at}.result"), "tools", f"{at}.result")
        s.b.metadata.setdefault("declared_tools", []).extend(tools)
        s.b.mark(at)
    elif method == "initialize" and isinstance(result, dict):
        for source, target in (("serverInfo", "mcp_server"), ("protocolVersion", "protocol")):
            if source in result:
                s.b.metadata[target] = result[source]
        s.b.mark(at)
    elif method in _BOOKKEEPING:
        s.b.skip(at, f"{method} result")
    else:
        s.b.note(at, f"{method} result is not a tool call", result)


def _sampled(s: _Session, key: str, result: Any, at: str) -> None:
    """The client's answer to a server's sampling request, made during a tool call: kept
    with its request in that call's `metadata.sampling` (an LLM call the server made
    through the client to produce the call's result; never a model turn of the run,
    which would read as its final response). Noted when no single call was running."""
    params, parent, asked_at, after = s.sampling.pop(key)
    index = next((i for i, step in enumerate(s.b.steps) if step["step_id"] == parent), None)
    if parent is None or index is None:
        s.b.note(asked_at, f"{SAMPLING} request is not a tool call", params, after=after)
        s.b.note(at, f"{SAMPLING} result is not a tool call", result)
        return
    s.b.mark(asked_at)
    s.b.mark(at)
    held = s.b.steps[index].setdefault("metadata", {}).setdefault("sampling", [])
    held.append({"request": params, "result": result})


def _tool_result(s: _Session, message: dict[str, Any], key: str, at: str, index: int) -> None:
    if "error" in message:
        error = obj(message["error"], f"{at}.error")
        text = opt_str(error, "message", f"{at}.error") or "error"
        code = error.get("code")
        s.b.result(key, None, at, error=f"{text} (JSON-RPC error {code})", is_error=True)
        return
    result = obj(message.get("result"), f"{at}.result")
    content = opt_list(result, "content", f"{at}.result")
    texts = [c.get("text") for c in content if isinstance(c, dict) and c.get("type") == "text"]
    output: Any
    if content and len(texts) == len(content) and all(isinstance(t, str) for t in texts):
        output = "\n".join(str(t) for t in texts)
    elif content:
        output = content  # images, audio, resources: kept as the server sent them
    else:
        output = result.get("structuredContent")
    failed = result.get("isError") is True
    s.b.result(key, output, at, error=None, is_error=failed)
    if "structuredContent" in result and content:
        s.b.measure(index, structured_content=result["structuredContent"])


ADAPTER = session_adapter(
    NAME,
    "Model Context Protocol session logs (JSON-RPC messages, array or JSONL)",
    start=_start,
    detect=detect,
    detect_line=detect,
    single=lambda value: isinstance(value, dict),
)
