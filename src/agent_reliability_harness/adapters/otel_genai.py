"""The "otel-genai" format: OTLP/JSON spans (resourceSpans -> scopeSpans -> spans) that follow
the OpenTelemetry GenAI semantic conventions, pinned to revision v1.44.0.

One canonical trace per traceId; spans map in start-time order.
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..io import decode_json
from ._common import TraceBuilder, arr, fail, obj, opt_count, opt_list, opt_str
from .base import Adapter

NAME = "otel-genai"
SEMCONV_VERSION = "1.44.0"
_MODEL_OPS = ("chat", "generate_content", "text_completion")
_AGENT_OPS = ("invoke_agent", "create_agent")
_STATUS_ERROR = (2, "STATUS_CODE_ERROR")


def detect(value: Any) -> bool:
    """An object with `resourceSpans` (the OTLP/JSON export request the Collector's file
    exporter writes)."""
    return isinstance(value, dict) and isinstance(value.get("resourceSpans"), list)


def _any_value(raw: Any) -> Any:
    """Decode an OTLP/JSON AnyValue (64-bit integers arrive as strings)."""
    if not isinstance(raw, dict):
        return None
    if "stringValue" in raw:
        return raw["stringValue"]
    if "boolValue" in raw:
        return raw["boolValue"]
    if "intValue" in raw:
        value = raw["intValue"]
        try:
            return int(value)
        except (TypeError, ValueError):
            return value
    if "doubleValue" in raw:
        return raw["doubleValue"]
    if "arrayValue" in raw and isinstance(raw["arrayValue"], dict):
        values = raw["arrayValue"].get("values")
        return [_any_value(v) for v in values] if isinstance(values, list) else []
    if "kvlistValue" in raw and isinstance(raw["kvlistValue"], dict):
        return _attributes(raw["kvlistValue"].get("values"))
    return raw.get("bytesValue")


def _attributes(raw: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for entry in raw if isinstance(raw, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("key"), str):
            found[entry["key"]] = _any_value(entry.get("value"))
    return found


def convert(value: Any, name_hint: str) -> list[Any]:
    root = obj(value, "$")
    grouped: dict[str, list[tuple[str, dict[str, Any], dict[str, Any]]]] = {}
    for r, raw_rs in enumerate(arr(root.get("resourceSpans"), "resourceSpans")):
        at_r = f"resourceSpans[{r}]"
        resource_spans = obj(raw_rs, at_r)
        resource = _attributes(
            (resource_spans.get("resource") or {}).get("attributes")
            if isinstance(resource_spans.get("resource"), dict)
            else None
        )
        for s, scope in enumerate(opt_list(resource_spans, "scopeSpans", at_r)):
            at_s = f"{at_r}.scopeSpans[{s}]"
            for n, raw in enumerate(opt_list(obj(scope, at_s), "spans", at_s)):
                at = f"{at_s}.spans[{n}]"
                span = obj(raw, at)
                trace_id = opt_str(span, "traceId", at) or ""
                grouped.setdefault(trace_id, []).append((at, span, resource))
    multi = len(grouped) > 1
    return [
        _trace(key, spans, f"{name_hint}-{i}" if multi else name_hint)
        for i, (key, spans) in enumerate(grouped.items(), start=1)
    ]


def _nanos(span: dict[str, Any], key: str, at: str) -> int | None:
    raw = span.get(key)
    if raw is None:
        return None
    digits = isinstance(raw, str) and raw.isascii() and raw.isdigit() and len(raw) <= 20
    if not digits and (isinstance(raw, bool) or not isinstance(raw, int)):
        raise fail(f"{at}.{key}", f"expected nanoseconds since the epoch (got {raw!r:.40})")
    value = int(raw)
    if not 0 <= value < 2**64:
        raise fail(f"{at}.{key}", "expected nanoseconds in the unsigned 64-bit range")
    return value


def _trace(
    key: str, spans: list[tuple[str, dict[str, Any], dict[str, Any]]], hint: str
) -> dict[str, Any]:
    b = TraceBuilder(NAME, hint, trace_id=key or None)
    b.metadata["semconv"] = SEMCONV_VERSION
    timed = [
        (_nanos(s, "startTimeUnixNano", at) or 0, i, at, s, _attributes(s.get("attributes")), res)
        for i, (at, s, res) in enumerate(spans)
    ]
    # Tool calls that have their own execute_tool span are mapped from it; calls found only
    # in a model span's output messages are mapped from the messages.
    executed: set[str] = set()
    for t in timed:
        call_id = t[4].get("gen_ai.tool.call.id")
        if t[4].get("gen_ai.operation.name") == "execute_tool" and isinstance(call_id, str):
            executed.add(call_id)
    answered: set[str] = set()
    for _, _, at, span, attrs, resource in sorted(timed, key=lambda t: (t[0], t[1])):
        if "service.name" in resource and "service" not in b.metadata:
            b.metadata["service"] = resource["service.name"]
        op = attrs.get("gen_ai.operation.name")
        if op == "execute_tool":
            _tool(b, span, attrs, at)
        elif op in _MODEL_OPS:
            _tool_responses(b, attrs, at, answered)
            _model(b, span, attrs, at, executed)
        elif op in _AGENT_OPS:
            name = attrs.get("gen_ai.agent.name")
            if isinstance(name, str) and b.agent_name is None:
                b.agent_name = name
        else:
            b.note(
                at,
                "span without a mapped gen_ai.operation.name is not a step",
                {"name": span.get("name"), "operation": op},
            )
        workflow = attrs.get("gen_ai.workflow.name")
        if isinstance(workflow, str) and b.workflow is None:
            b.workflow = workflow
        conversation = attrs.get("gen_ai.conversation.id")
        if isinstance(conversation, str):
            b.metadata.setdefault("conversation_id", conversation)
    return b.build()


def _latency(span: dict[str, Any], at: str) -> float | None:
    start, end = _nanos(span, "startTimeUnixNano", at), _nanos(span, "endTimeUnixNano", at)
    if start is None or end is None or end < start or start == 0:
        return None
    return (end - start) / 1_000_000


def _tool(b: TraceBuilder, span: dict[str, Any], attrs: dict[str, Any], at: str) -> None:
    call_id = attrs.get("gen_ai.tool.call.id")
    if not isinstance(call_id, str) or not call_id:
        call_id = opt_str(span, "spanId", at)
    name = attrs.get("gen_ai.tool.name")
    index = b.call(
        call_id,
        name if isinstance(name, str) else None,
        attrs.get("gen_ai.tool.call.arguments"),
        f"{at}.attributes[gen_ai.tool.call.arguments]",
    )
    step = b.steps[index]
    step["output"] = attrs.get("gen_ai.tool.call.result")
    raw_status = span.get("status")
    status: dict[str, Any] = raw_status if isinstance(raw_status, dict) else {}
    if status.get("code") in _STATUS_ERROR:
        step["status"] = "error"
        message = status.get("message")
        error_type = attrs.get("error.type")
        step["error"] = (
            message if isinstance(message, str) and message else str(error_type or "error")
        )
    else:
        step["status"] = "ok"
    latency = _latency(span, at)
    if latency is not None:
        step["latency_ms"] = latency


def _model(
    b: TraceBuilder, span: dict[str, Any], attrs: dict[str, Any], at: str, executed: set[str]
) -> None:
    model = attrs.get("gen_ai.response.model") or attrs.get("gen_ai.request.model")
    where = f"{at}.attributes[gen_ai.output.messages]"
    parts = _parts(b, attrs.get("gen_ai.output.messages"), where)
    if parts is None:
        b.note(at, "model span without gen_ai.output.messages (content capture off)")
    texts: list[str] = []
    calls: list[tuple[str, dict[str, Any]]] = []
    for part_at, part in parts or []:
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("content"), str):
            texts.append(part["content"])
        elif kind == "tool_call":
            part_id = part.get("id")
            if not isinstance(part_id, str) or part_id not in executed:
                calls.append((part_at, part))
        else:
            b.note(part_at, "output part that is not text", part)
    meta = {
        "model": model if isinstance(model, str) else None,
        "response_id": attrs.get("gen_ai.response.id"),
    }
    # One model span is one step (its text may be empty): it carries the span's own
    # tokens and latency, which must not land on a tool call.
    start = b.text("".join(texts) or None, at, **meta)
    for part_at, part in calls:
        call_id = part.get("id") if isinstance(part.get("id"), str) else None
        name = part.get("name") if isinstance(part.get("name"), str) else None
        b.call(call_id, name, part.get("arguments"), f"{part_at}.arguments", **meta)
    usage = {k: attrs.get(k) for k in ("gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens")}
    b.tokens(
        start,
        opt_count(usage, "gen_ai.usage.input_tokens", f"{at}.attributes"),
        opt_count(usage, "gen_ai.usage.output_tokens", f"{at}.attributes"),
        at,
    )
    latency = _latency(span, at)
    if latency is not None:
        b.steps[start]["latency_ms"] = latency


def _tool_responses(b: TraceBuilder, attrs: dict[str, Any], at: str, answered: set[str]) -> None:
    """Results of calls known only from messages: `tool_call_response` parts of a later
    model span's input messages (each answered once; the history repeats them)."""
    where = f"{at}.attributes[gen_ai.input.messages]"
    for part_at, part in _parts(b, attrs.get("gen_ai.input.messages"), where) or []:
        call_id = part.get("id")
        if part.get("type") != "tool_call_response" or not isinstance(call_id, str):
            continue
        if call_id in answered:
            continue
        answered.add(call_id)
        if b.is_open(call_id):
            b.result(call_id, part.get("response"), part_at)
        elif not any(step["step_id"] == call_id for step in b.steps):
            b.note(part_at, "tool result without a matching call", part)


def _parts(b: TraceBuilder, raw: Any, at: str) -> list[tuple[str, dict[str, Any]]] | None:
    """(location, part) of every message part; None when the attribute is absent."""
    if raw is None:
        return None
    messages = raw
    if isinstance(raw, str):
        try:
            messages = decode_json(raw)
        except InputError:
            b.note(at, "messages attribute is not valid JSON", raw)
            return []
    if not isinstance(messages, list):
        b.note(at, "messages attribute is not an array", messages)
        return []
    found: list[tuple[str, dict[str, Any]]] = []
    for m, message in enumerate(messages):
        parts = message.get("parts") if isinstance(message, dict) else None
        for p, part in enumerate(parts if isinstance(parts, list) else []):
            if isinstance(part, dict):
                found.append((f"{at}[{m}].parts[{p}]", part))
    return found


ADAPTER = Adapter(
    name=NAME,
    description=f"OpenTelemetry GenAI spans as OTLP/JSON (semantic conventions v{SEMCONV_VERSION})",
    detect=detect,
    convert=convert,
)
