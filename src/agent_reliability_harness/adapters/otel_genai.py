"""The "otel-genai" format: OTLP/JSON spans (resourceSpans -> scopeSpans -> spans) that follow
the OpenTelemetry GenAI semantic conventions, pinned to revision v1.44.0.

One canonical trace per traceId; spans map in start-time order.
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..io import decode_json
from . import _otlp, otlp_proto
from ._common import TraceBuilder, opt_count, opt_str
from .base import Adapter

NAME = "otel-genai"
SEMCONV_VERSION = "1.44.0"
_MODEL_OPS = ("chat", "generate_content", "text_completion")
_AGENT_OPS = ("invoke_agent", "create_agent")


def detect(value: Any) -> bool:
    """An object with `resourceSpans` (the OTLP/JSON export request the Collector's file
    exporter writes)."""
    return _otlp.detect(value)


def convert(value: Any, name_hint: str) -> list[Any]:
    grouped = _otlp.spans_by_trace(value)
    names = _otlp.hints(grouped, name_hint)
    pairs = zip(grouped.items(), names, strict=True)
    return [_trace(key, spans, hint) for (key, spans), hint in pairs]


def _trace(key: str, spans: list[_otlp.Located], hint: str) -> dict[str, Any]:
    b = TraceBuilder(NAME, hint, trace_id=key or None)
    b.metadata["semconv"] = SEMCONV_VERSION
    timed = _otlp.ordered(spans)
    # Tool calls that have their own execute_tool span are mapped from it; calls found only
    # in a model span's output messages are mapped from the messages.
    executed: set[str] = set()
    for t in timed:
        call_id = t[2].get("gen_ai.tool.call.id")
        if t[2].get("gen_ai.operation.name") == "execute_tool" and isinstance(call_id, str):
            executed.add(call_id)
    answered: set[str] = set()
    for at, span, attrs, resource in timed:
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
    if _otlp.is_error(span):
        step["status"] = "error"
        step["error"] = _otlp.status_message(span) or str(attrs.get("error.type") or "error")
    else:
        step["status"] = "ok"
    latency = _otlp.latency(span, at)
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
    latency = _otlp.latency(span, at)
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
    suffixes=otlp_proto.SUFFIXES,
    read_file=otlp_proto.read,
)
