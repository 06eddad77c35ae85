"""The "otel-genai" format: OTLP/JSON spans (resourceSpans -> scopeSpans -> spans) that follow
the OpenTelemetry GenAI semantic conventions, pinned to revision v1.44.0.

One canonical trace per traceId; spans map in start-time order. The spans are read by
_otlp (shared with openinference): OTLP/JSON, protobuf's printing, console-exporter spans
and binary OTLP (otlp_proto); this module interprets the GenAI attributes.
"""

from __future__ import annotations

from typing import Any

from ...errors import InputError
from ...io import decode_json
from ..core.base import Adapter
from ..core.common import TraceBuilder, opt_count
from . import _otlp, otlp_proto
from ._otel_langsmith import is_langsmith, langsmith_span
from ._otel_legacy import (
    event_attributes,
    legacy_completion,
    legacy_prompts,
    legacy_tool_results,
)
from ._otel_shapes import attributes_of, console_spans, resource_spans
from ._otel_vercel import vercel_attributes

NAME = "otel-genai"
SEMCONV_VERSION = "1.44.0"
_MODEL_OPS = ("chat", "generate_content", "text_completion", "embeddings")
_AGENT_OPS = ("invoke_agent", "create_agent")
_WRAPPER = "model span around the provider's span of the same call (the inner span is read)"


def detect(value: Any) -> bool:
    """An object with `resourceSpans` (the OTLP/JSON export request the Collector's file
    exporter writes), or spans as the SDK's console exporter writes them (one, or an
    array) with GenAI attributes."""
    if resource_spans(value) is not None:
        return True
    return console_spans(value) is not None and any(
        key.startswith("gen_ai.") for key in _otlp.attribute_keys(value)
    )


def convert(value: Any, name_hint: str) -> list[Any]:
    grouped = _otlp.spans_by_trace(value)
    pairs = zip(grouped.items(), _otlp.hints(grouped, name_hint), strict=True)
    return [_trace(key, spans, hint) for (key, spans), hint in pairs]


def _span_attributes(span: dict[str, Any]) -> dict[str, Any]:
    """The span's attributes, completed by those of its operation-details event (v1.37+
    lets instrumentations record the messages there) and by the GenAI reading of the
    Vercel AI SDK's `ai.*` attributes."""
    own = attributes_of(span.get("attributes"))
    vercel = vercel_attributes(own)
    if vercel:  # the Vercel AI SDK's ai.* attributes, where no GenAI one says the same
        own = {**vercel, **own}
    details = event_attributes(span)
    return {**details, **own} if details else own


def _trace(key: str, spans: list[_otlp.Located], hint: str) -> dict[str, Any]:
    b = TraceBuilder(NAME, hint, trace_id=key or None)
    b.metadata["semconv"] = SEMCONV_VERSION
    timed = _otlp.ordered(spans, _span_attributes)
    # Tool calls that have their own execute_tool span are mapped from it; calls found only
    # in a model span's output messages are mapped from the messages.
    executed: set[str] = set()
    for _, _, attrs, _ in timed:
        call_id = attrs.get("gen_ai.tool.call.id")
        if attrs.get("gen_ai.operation.name") == "execute_tool" and isinstance(call_id, str):
            executed.add(call_id)
    answered: set[str] = set()
    tool_steps: dict[str, int] = {}  # call id -> step of its execute_tool span
    tree = _otlp.agent_tree(timed, _agent_span)
    wrappers = _wrappers(timed)
    for at, span, attrs, resource in timed:
        if "service.name" in resource and "service" not in b.metadata:
            b.metadata["service"] = resource["service.name"]
        op = _operation(attrs)
        own = _otlp.own_id(span)
        b.agent, b.parent_step_id = tree.owner(own, _agent_name(attrs))
        before = len(b.steps)
        if is_langsmith(attrs):
            langsmith_span(b, span, attrs, at)
        elif op in _MODEL_OPS and own in wrappers:
            b.skip(at, _WRAPPER)
        elif op == "execute_tool":
            index = _tool(b, span, attrs, at)
            tool_steps.setdefault(b.steps[index]["step_id"], index)
        elif op in _MODEL_OPS:
            _tool_responses(b, span, attrs, at, (answered, tool_steps))
            _model(b, span, attrs, at, executed)
        elif op in _AGENT_OPS:
            name = attrs.get("gen_ai.agent.name")
            if isinstance(name, str) and b.agent_name is None:
                b.agent_name = name
            b.mark(at)
        elif not any(key.startswith("gen_ai.") for key in attrs):
            b.skip(at, "span of another instrumentation (no gen_ai attribute)")
        else:
            b.note(
                at,
                "span without a mapped gen_ai.operation.name is not a step",
                {"name": span.get("name"), "operation": op},
            )
        tree.produced(own, before, b.steps)
        workflow = attrs.get("gen_ai.workflow.name")
        if isinstance(workflow, str) and b.workflow is None:
            b.workflow = workflow
        conversation = attrs.get("gen_ai.conversation.id")
        if isinstance(conversation, str):
            b.metadata.setdefault("conversation_id", conversation)
    return b.build()


def _wrappers(timed: list[_otlp.Decoded]) -> set[str | None]:
    """Model spans that hold another model span: a framework's span of the call whose
    provider span (with the provider's usage) is inside it (OpenLit's LangChain span)."""
    models = [(s, a) for _, s, a, _ in timed if _operation(a) in _MODEL_OPS]
    ids = {_otlp.own_id(s) for s, _ in models} - {None}
    return {_otlp.parent_id(s) for s, _ in models} & ids


def _agent_name(attrs: dict[str, Any]) -> str | None:
    """The agent a span records (`gen_ai.agent.name`, else `gen_ai.agent.id`)."""
    for key in ("gen_ai.agent.name", "gen_ai.agent.id"):
        value = attrs.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _agent_span(span: dict[str, Any], attrs: dict[str, Any]) -> str | None:
    """The agent an invoke_agent span runs (None for other spans, and for an agent span
    that names no agent)."""
    return _agent_name(attrs) if attrs.get("gen_ai.operation.name") == "invoke_agent" else None


def _operation(attrs: dict[str, Any]) -> Any:
    """The span's GenAI operation; spans of the conventions before v1.27 have none, and a
    span naming a model system (`gen_ai.system`) and model is a chat span."""
    op = attrs.get("gen_ai.operation.name")
    if op is None and "gen_ai.system" in attrs and "gen_ai.request.model" in attrs:
        return "chat"
    return op


def _tool(b: TraceBuilder, span: dict[str, Any], attrs: dict[str, Any], at: str) -> int:
    call_id = attrs.get("gen_ai.tool.call.id")
    if not isinstance(call_id, str) or not call_id:
        call_id = _otlp.span_id(span, at)
    name = attrs.get("gen_ai.tool.name")
    index = b.call(
        call_id,
        name if isinstance(name, str) else None,
        attrs.get("gen_ai.tool.call.arguments"),
        f"{at}.attributes[gen_ai.tool.call.arguments]",
    )
    error: str | None = None
    if _otlp.is_error(span):
        error = _otlp.status_message(span) or str(attrs.get("error.type") or "error")
    b.settle(index, attrs.get("gen_ai.tool.call.result"), error=error, is_error=error is not None)
    b.measure(index, latency_ms=_otlp.latency(span, at))
    return index


def _model(
    b: TraceBuilder, span: dict[str, Any], attrs: dict[str, Any], at: str, executed: set[str]
) -> None:
    model = attrs.get("gen_ai.response.model") or attrs.get("gen_ai.request.model")
    where = f"{at}.attributes[gen_ai.output.messages]"
    _inputs(b, attrs, span, at)
    parts = _parts(b, attrs.get("gen_ai.output.messages"), where)
    if parts is None:
        parts = legacy_completion(b, span, attrs, at)
    if parts is None and _operation(attrs) != "embeddings":
        b.note(at, "model span without gen_ai.output.messages (content capture off)")
    texts: list[str] = []
    reasoning: list[tuple[str, str]] = []
    calls: list[tuple[str, dict[str, Any]]] = []
    for part_at, part in parts or []:
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("content"), str):
            texts.append(part["content"])
        elif kind == "reasoning":
            content = part.get("content")
            reasoning.append((part_at, content if isinstance(content, str) else ""))
        elif kind == "tool_call":
            part_id = part.get("id")
            if not isinstance(part_id, str) or part_id not in executed:
                calls.append((part_at, part))
        else:
            b.note(part_at, "output part that is not text", part)
    provider = attrs.get("gen_ai.provider.name") or attrs.get("gen_ai.system")
    meta = {
        "model": model if isinstance(model, str) else None,
        "response_id": attrs.get("gen_ai.response.id"),
        "provider": provider if isinstance(provider, str) else None,
    }
    for part_at, content in reasoning:
        b.reasoning(content, part_at)
    # One model span is one step (its text may be empty): it carries the span's own
    # tokens and latency, which must not land on a tool call.
    start = b.text("".join(texts) or None, at, **meta)
    for part_at, part in calls:
        call_id = part.get("id") if isinstance(part.get("id"), str) else None
        name = part.get("name") if isinstance(part.get("name"), str) else None
        b.call(call_id, name, part.get("arguments"), f"{part_at}.arguments", **meta)
    where = f"{at}.attributes"
    b.tokens(start, *_usage(attrs, where), at)
    b.measure(start, latency_ms=_otlp.latency(span, at))


def _usage(attrs: dict[str, Any], at: str) -> tuple[int | None, int | None]:
    """Tokens of a model span; the names before v1.27 were prompt/completion tokens."""
    found = []
    for current, legacy in (
        ("input_tokens", "prompt_tokens"),
        ("output_tokens", "completion_tokens"),
    ):
        key = f"gen_ai.usage.{current}"
        if attrs.get(key) is None:
            key = f"gen_ai.usage.{legacy}"
        found.append(opt_count(attrs, key, at))
    return found[0], found[1]


def _inputs(b: TraceBuilder, attrs: dict[str, Any], span: dict[str, Any], at: str) -> None:
    """The system instructions and the user/system messages a model span was given, each
    once (every span repeats the conversation so far)."""
    system = attrs.get("gen_ai.system_instructions")
    for part_at, part in (
        _parts(b, system, f"{at}.attributes[gen_ai.system_instructions]", True) or []
    ):
        if isinstance(part.get("content"), str):
            b.input("system", part["content"], part_at, once=True)
    where = f"{at}.attributes[gen_ai.input.messages]"
    for part_at, part, role in _role_parts(b, attrs.get("gen_ai.input.messages"), where):
        if role in ("user", "system", "developer") and isinstance(part.get("content"), str):
            b.input(role, part["content"], part_at, once=True)
    for message_at, said, content in legacy_prompts(b, span, attrs, at):
        if said in ("user", "system", "developer"):
            b.input(said, content, message_at, once=True)


def _tool_responses(
    b: TraceBuilder,
    span: dict[str, Any],
    attrs: dict[str, Any],
    at: str,
    seen: tuple[set[str], dict[str, int]],
) -> None:
    """Results from the history of a later model span: `tool_call_response` parts of its
    input messages (or tool messages of an older prompt record), each answered once (the
    history repeats them): the output of calls known only from messages, and of
    execute_tool spans that recorded none (a failed call's error text)."""
    answered, tool_steps = seen
    where = f"{at}.attributes[gen_ai.input.messages]"
    found = [
        (part_at, part.get("id"), part.get("response"), part)
        for part_at, part in _parts(b, attrs.get("gen_ai.input.messages"), where) or []
        if part.get("type") == "tool_call_response"
    ]
    found += legacy_tool_results(b, span, attrs, at)
    for part_at, call_id, response, original in found:
        if not isinstance(call_id, str) or call_id in answered:
            continue
        answered.add(call_id)
        if b.is_open(call_id):
            b.result(call_id, response, part_at)
        elif call_id in tool_steps:
            if b.steps[tool_steps[call_id]].get("output") is None:  # the span recorded none
                b.settle(tool_steps[call_id], response)
        else:
            b.note(part_at, "tool result without a matching call", original)


def _parts(
    b: TraceBuilder, raw: Any, at: str, flat: bool = False
) -> list[tuple[str, dict[str, Any]]] | None:
    """(location, part) of every message part (`flat`: the attribute is a list of parts,
    as gen_ai.system_instructions is); None when the attribute is absent."""
    if flat:
        messages = _decoded(b, raw, at)
        if messages is None:
            return None
        return [(f"{at}[{p}]", part) for p, part in enumerate(messages) if isinstance(part, dict)]
    found = _role_parts(b, raw, at)
    return None if raw is None else [(where, part) for where, part, _ in found]


def _decoded(b: TraceBuilder, raw: Any, at: str) -> list[Any] | None:
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
    return messages


def _role_parts(b: TraceBuilder, raw: Any, at: str) -> list[tuple[str, dict[str, Any], str]]:
    """(location, part, role) of every part of a messages attribute."""
    found: list[tuple[str, dict[str, Any], str]] = []
    for m, message in enumerate(_decoded(b, raw, at) or []):
        parts = message.get("parts") if isinstance(message, dict) else None
        role = str(message.get("role")) if isinstance(message, dict) else ""
        for p, part in enumerate(parts if isinstance(parts, list) else []):
            if isinstance(part, dict):
                found.append((f"{at}[{m}].parts[{p}]", part, role))
    return found


ADAPTER = Adapter(
    name=NAME,
    description=f"OpenTelemetry GenAI spans as OTLP/JSON (semantic conventions v{SEMCONV_VERSION})",
    detect=detect,
    convert=convert,
    suffixes=otlp_proto.SUFFIXES,
    read_file=otlp_proto.read,
)
