"""The "openai-agents" format: the OpenAI Agents SDK tracing export (trace and span objects).

One canonical trace per exported trace. Spans map in start order: function ->
tool call, generation/response -> model step (its own usage); the rest are notes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..core.agents import SpanTree
from ..core.base import Adapter
from ..core.common import TraceBuilder, arr, fail, obj, opt_count, opt_obj, opt_str, text_parts

NAME = "openai-agents"
_OBJECTS = ("trace", "trace.span")


def _items(value: Any) -> list[Any] | None:
    if isinstance(value, dict) and isinstance(value.get("data"), list):
        return list(value["data"])
    if isinstance(value, dict) and value.get("object") in _OBJECTS:
        return [value]
    return value if isinstance(value, list) else None


def detect(value: Any) -> bool:
    """An export payload (`{"data": [...]}`) or an array of items whose `object` is
    "trace" or "trace.span"."""
    items = _items(value)
    return bool(items) and any(
        isinstance(i, dict) and i.get("object") in _OBJECTS for i in (items or [])[:1000]
    )


def convert(value: Any, name_hint: str) -> list[Any]:
    items = _items(value)
    if items is None:
        raise fail(
            "$", 'expected an export payload {"data": [...]} or an array of traces and spans'
        )
    traces: dict[str, dict[str, Any]] = {}
    spans: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for index, raw in enumerate(items):
        at = f"data[{index}]"
        item = obj(raw, at)
        kind = item.get("object")
        key = opt_str(item, "id" if kind == "trace" else "trace_id", at) or ""
        if kind == "trace":
            traces.setdefault(key, item)
        elif kind == "trace.span":
            spans.setdefault(key, [])
            traces.setdefault(key, {})
            spans[key].append((at, item))
        else:
            traces.setdefault("", {})
            spans.setdefault("", []).append((at, item))
    multi = len(traces) > 1
    return [
        _trace(key, head, spans.get(key, []), f"{name_hint}-{n}" if multi else name_hint)
        for n, (key, head) in enumerate(traces.items(), start=1)
    ]


def _trace(
    key: str, head: dict[str, Any], spans: list[tuple[str, dict[str, Any]]], hint: str
) -> dict[str, Any]:
    b = TraceBuilder(NAME, hint, trace_id=key or None)
    b.workflow = opt_str(head, "workflow_name", "trace")
    if isinstance(head.get("group_id"), str):
        b.metadata["group_id"] = head["group_id"]
    if isinstance(head.get("metadata"), dict):
        b.metadata["trace_metadata"] = head["metadata"]
    ordered = sorted(enumerate(spans), key=lambda p: (str(p[1][1].get("started_at") or ""), p[0]))
    if head:
        b.mark("trace")
    agents: list[str] = []
    tree = _tree(ordered)
    handoffs: dict[str, str] = {}  # receiving agent -> the step that handed off to it
    for _, (at, span) in ordered:
        if span.get("object") != "trace.span":
            b.note(at, "item that is neither a trace nor a span", span)
            continue
        data = obj(span.get("span_data"), f"{at}.span_data")
        kind = data.get("type")
        span_id = span.get("id") if isinstance(span.get("id"), str) else None
        b.agent, b.parent_step_id = tree.owner(span_id)
        before = len(b.steps)
        if kind == "agent":
            name = opt_str(data, "name", f"{at}.span_data")
            if name and name not in agents:
                agents.append(name)
            if name in handoffs and span_id is not None:
                tree.links[span_id] = handoffs.pop(name)
            b.mark(at)
        elif kind == "function":
            _function(b, span, data, at)
        elif kind in ("generation", "response"):
            _model(b, span, data, at)
        else:
            _handoff(b, data, handoffs)
            _other(b, data, str(kind) if kind else None, at)
        tree.produced(span_id, before, b.steps)
        if kind != "function" and span.get("error") is not None:
            b.note(f"{at}.error", f"{kind} span recorded an error", span["error"])
    if agents:
        b.agent_name = agents[0]
        b.metadata["agents"] = agents
    return b.build()


def _tree(ordered: list[tuple[int, tuple[str, dict[str, Any]]]]) -> SpanTree:
    """The span tree and its agent spans (`parent_id`; agent spans name their agent)."""
    tree = SpanTree()
    for _, (_, span) in ordered:
        span_id, parent = span.get("id"), span.get("parent_id")
        if not isinstance(span_id, str):
            continue
        tree.parents[span_id] = parent if isinstance(parent, str) else None
        data = span.get("span_data")
        if isinstance(data, dict) and data.get("type") == "agent":
            name = data.get("name")
            tree.agents[span_id] = name if isinstance(name, str) and name else "agent"
    return tree


def _handoff(b: TraceBuilder, data: dict[str, Any], handoffs: dict[str, str]) -> None:
    """A hand-off span: the receiving agent's next agent span runs under the last step
    taken before it (the model turn of the handing-off agent that chose it)."""
    target = data.get("to_agent")
    if data.get("type") == "handoff" and isinstance(target, str) and b.steps:
        handoffs[target] = b.steps[-1]["step_id"]


def _other(b: TraceBuilder, data: dict[str, Any], kind: str | None, at: str) -> None:
    """Spans that are not steps: hand-offs and guardrails go to trace metadata (a guardrail
    that tripped is also noted), the runner's turn/task spans and tool listings are
    bookkeeping (their usage is an aggregate of the model spans), the rest are notes."""
    raw = data.get("data")
    custom: dict[str, Any] = raw if isinstance(raw, dict) else {}
    if kind == "handoff":
        entry = {"from": data.get("from_agent"), "to": data.get("to_agent")}
        b.metadata.setdefault("handoffs", []).append(entry)
        b.mark(at)
    elif kind == "guardrail":
        entry = {"name": data.get("name"), "triggered": data.get("triggered")}
        b.metadata.setdefault("guardrails", []).append(entry)
        if data.get("triggered"):
            b.note(at, "guardrail triggered", data)
        else:
            b.mark(at)
    elif kind == "custom" and custom.get("sdk_span_type") in ("turn", "task"):
        b.skip(at, f"runner {custom['sdk_span_type']} span (aggregate usage)")
    elif kind == "mcp_tools":
        b.skip(at, "declared tools (mcp_tools span)")
    else:
        b.note(at, f"{kind or 'untyped'} span is not a step", data)


def _latency(b: TraceBuilder, span: dict[str, Any], at: str) -> float | None:
    start, end = span.get("started_at"), span.get("ended_at")
    if not isinstance(start, str) or not isinstance(end, str):
        return None
    try:
        delta = datetime.fromisoformat(end) - datetime.fromisoformat(start)
    except (ValueError, TypeError):
        b.note(at, "span timestamps are not ISO 8601", {"started_at": start, "ended_at": end})
        return None
    millis = delta.total_seconds() * 1000
    if millis < 0:
        b.note(at, "span ends before it starts", {"started_at": start, "ended_at": end})
        return None
    return round(millis, 3)


def _function(b: TraceBuilder, span: dict[str, Any], data: dict[str, Any], at: str) -> None:
    where = f"{at}.span_data"
    span_id = opt_str(span, "id", at)
    index = b.call(span_id, opt_str(data, "name", where), data.get("input"), f"{where}.input")
    error = _error(span.get("error"))
    b.settle(index, data.get("output"), error=error, is_error=error is not None)
    b.measure(index, latency_ms=_latency(b, span, at))


def _error(raw: Any) -> str | None:
    if raw is None:
        return None
    if isinstance(raw, dict):
        message = raw.get("message")
        data = raw.get("data")
        detail = data.get("error") if isinstance(data, dict) else None
        if isinstance(message, str) and message:
            return f"{message}: {detail}" if isinstance(detail, str) and detail else message
    return str(raw)


def _model(b: TraceBuilder, span: dict[str, Any], data: dict[str, Any], at: str) -> None:
    where = f"{at}.span_data"
    meta = {
        "model": opt_str(data, "model", where),
        "response_id": opt_str(data, "response_id", where),
    }
    text: str | None = None
    _inputs(b, data.get("input"), f"{where}.input")
    if data.get("type") == "generation":
        texts = [
            _message_text(b, m, f"{where}.output[{i}]") for i, m in enumerate(_outputs(data, where))
        ]
        joined = "".join(t for t in texts if t)
        text = joined or None
    else:
        b.note(at, "response spans carry no response text")
    index = b.text(text, at, **meta)
    usage = opt_obj(data, "usage", where)
    b.tokens(
        index,
        opt_count(usage, "input_tokens", f"{where}.usage"),
        opt_count(usage, "output_tokens", f"{where}.usage"),
        at,
    )
    b.measure(index, latency_ms=_latency(b, span, at))


def _inputs(b: TraceBuilder, messages: Any, at: str) -> None:
    """The user, system and developer messages of a model span's input, each once (every
    span repeats the conversation so far)."""
    for index, message in enumerate(messages if isinstance(messages, list) else []):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("user", "system", "developer") or not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = "\n".join(
                str(p.get("text")) for p in content if isinstance(p, dict) and "text" in p
            )
        if isinstance(content, str):
            b.input(str(role), content, f"{at}[{index}]", once=True)


def _outputs(data: dict[str, Any], where: str) -> list[Any]:
    output = data.get("output")
    if output is None:
        return []
    return arr(output, f"{where}.output")


def _message_text(b: TraceBuilder, raw: Any, at: str) -> str | None:
    message = obj(raw, at)
    content = message.get("content")
    if isinstance(content, list):
        return text_parts(content, f"{at}.content", ("text", "output_text"), b)
    return content if isinstance(content, str) else None


ADAPTER = Adapter(
    name=NAME,
    description="OpenAI Agents SDK tracing export (trace and span objects)",
    detect=detect,
    convert=convert,
)
