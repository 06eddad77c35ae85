"""The "openinference" format: Arize Phoenix / OpenInference spans in OTLP/JSON (or binary OTLP),
as the OpenInference instrumentations write them (`openinference.span.kind`, flattened
`llm.input_messages.N.message.*` attributes). One canonical trace per traceId, spans in
start-time order; the OTLP reading is shared with otel-genai (_otlp.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...models.common import is_number
from ..core.base import Adapter
from ..core.common import TraceBuilder, opt_count, opt_str
from . import _otlp, otlp_proto
from ._otel_shapes import attributes_of

NAME = "openinference"
KIND = "openinference.span.kind"
_STRUCTURE = ("CHAIN", "AGENT")
_TOOLISH = ("TOOL", "RETRIEVER")
_PER_MESSAGE = 10_000  # numbers output tool calls: message index * this + call index
_ROLES = {"user": "user", "system": "system", "developer": "developer", "human": "user"}


def detect(value: Any) -> bool:
    """A span export (any shape _otlp reads) where some span carries
    `openinference.span.kind`."""
    return _otlp.is_export(value) and any(key == KIND for key in _otlp.attribute_keys(value))


def convert(value: Any, name_hint: str) -> list[Any]:
    grouped = _otlp.spans_by_trace(value)
    pairs = zip(grouped.items(), _otlp.hints(grouped, name_hint), strict=True)
    return [_trace(key, spans, hint) for (key, spans), hint in pairs]


def _trace(key: str, spans: list[_otlp.Located], hint: str) -> dict[str, Any]:
    b = TraceBuilder(NAME, hint, trace_id=key or None)
    timed = _otlp.ordered(spans)
    tree = _otlp.agent_tree(timed, _agent_span)
    wrappers = _wrappers(timed)
    timed = [entry for entry in timed if entry[0] not in wrappers]
    for at in wrappers:
        b.skip(at, "LLM span wrapping another LLM span (the same model call)")
    executed = _executed(timed)
    seen_inputs: set[tuple[str, str]] = set()
    answered = set(executed.ids.values())  # their results come from the TOOL spans
    for at, span, attrs, resource in timed:
        if "service.name" in resource:
            b.metadata.setdefault("service", resource["service.name"])
        for attr, meta in (("session.id", "session_id"), ("user.id", "user_id")):
            if isinstance(attrs.get(attr), str):
                b.metadata.setdefault(meta, attrs[attr])
        kind = attrs.get(KIND)
        own = _otlp.own_id(span)
        b.agent, b.parent_step_id = tree.owner(own, _agent_name(attrs))
        before = len(b.steps)
        if kind == "LLM":
            _inputs(b, attrs, at, seen_inputs, answered)
            _llm(b, span, attrs, at, executed.calls.get(at, set()))
        elif kind in _TOOLISH:
            _tool(b, span, attrs, at, executed.ids.get(at))
        elif kind in _STRUCTURE:
            _structure(b, span, attrs, at, kind)
        else:
            what = (
                f"{kind} span" if isinstance(kind, str) else "span without openinference.span.kind"
            )
            b.note(at, f"{what} is not a step", {"name": span.get("name"), "kind": kind})
        tree.produced(own, before, b.steps)
    return b.build()


def _agent_name(attrs: dict[str, Any]) -> str | None:
    name = attrs.get("agent.name")
    return name if isinstance(name, str) and name else None


def _agent_span(span: dict[str, Any], attrs: dict[str, Any]) -> str | None:
    """The agent an AGENT span runs: `agent.name`, else the span's name (as the trace's
    agent_name is read); None for other spans."""
    if attrs.get(KIND) != "AGENT":
        return None
    name = _agent_name(attrs) or span.get("name")
    return name if isinstance(name, str) and name else "agent"


def _wrappers(timed: list[_otlp.Decoded]) -> set[str]:
    """LLM spans with an LLM span below them: a framework's span around the provider
    instrumentation's span of the same call (LangChain and OpenAI instrumented together,
    LlamaIndex `predict` around `chat`). They repeat its messages and tokens; the innermost
    span is the call."""
    parents: dict[Any, Any] = {}
    llm: dict[Any, str] = {}
    for at, span, attrs, _ in timed:
        own = _otlp.span_id(span, at)
        parents[own] = _otlp.parent_id(span)
        if attrs.get(KIND) == "LLM" and own is not None:
            llm[own] = at
    found: set[str] = set()
    for own in llm:
        seen = {own}
        up = parents.get(own)
        while up is not None and up not in seen:  # ids may repeat in a damaged export
            seen.add(up)
            if up in llm:
                found.add(llm[up])
            up = parents.get(up)
    return found


@dataclass
class _Executed:
    """Which output tool calls of LLM spans a TOOL span executed: the TOOL span whose
    `tool_call.id` is the call's id, else (instrumentations that record no id) the next
    TOOL span of the same tool name. Those calls are mapped from their TOOL span, under the
    call's id; the others from the messages (results from later input messages)."""

    calls: dict[str, set[int]] = field(default_factory=dict)  # LLM span -> call numbers
    ids: dict[str, str] = field(default_factory=dict)  # TOOL span -> the call id it ran


def _executed(timed: list[_otlp.Decoded]) -> _Executed:
    found = _Executed()
    by_id: dict[str, tuple[str, int]] = {}
    by_name: dict[str, list[tuple[str, int, Any]]] = {}
    for at, _, attrs, _ in timed:
        kind = attrs.get(KIND)
        if kind == "LLM":
            for m, message in enumerate(indexed(attrs, "llm.output_messages")):
                for c, call in enumerate(indexed(message, "message.tool_calls")):
                    number = m * _PER_MESSAGE + c
                    call_id, name = call.get("tool_call.id"), call.get("tool_call.function.name")
                    if isinstance(call_id, str) and call_id:
                        by_id[call_id] = (at, number)
                    by_name.setdefault(str(name), []).append((at, number, call_id))
        elif kind == "TOOL":
            own = _tool_id(attrs)
            queue = by_name.get(str(attrs.get("tool.name")), [])
            match = by_id.pop(own, None) if own else None
            ran: Any = own
            if match is not None:
                queue[:] = [q for q in queue if q[:2] != match]
            elif own is None and queue:
                llm_at, number, ran = queue.pop(0)
                match = (llm_at, number)
                if isinstance(ran, str):
                    by_id.pop(ran, None)
            if match is not None:
                found.calls.setdefault(match[0], set()).add(match[1])
                if isinstance(ran, str) and ran:
                    found.ids[at] = ran
    return found


def _tool_id(attrs: dict[str, Any]) -> str | None:
    for key in ("tool_call.id", "tool.id"):
        if isinstance(attrs.get(key), str) and attrs[key]:
            return str(attrs[key])
    return None


def _structure(
    b: TraceBuilder, span: dict[str, Any], attrs: dict[str, Any], at: str, kind: str
) -> None:
    """CHAIN and AGENT spans group steps: they carry no step of their own."""
    if kind == "AGENT" and b.agent_name is None:
        name = attrs.get("agent.name") or span.get("name")
        b.agent_name = name if isinstance(name, str) and name else None
    if _otlp.is_error(span):
        b.note(at, f"{kind} span recorded an error", _error(span) or "error")
    elif kind == "AGENT":
        b.mark(at)  # it names the agent
    else:
        b.skip(at, f"{kind} span (structure)")


def _error(span: dict[str, Any]) -> str | None:
    """The status message, else the message of the span's `exception` event."""
    message = _otlp.status_message(span)
    if message:
        return message
    events = span.get("events")
    for event in events if isinstance(events, list) else []:
        if isinstance(event, dict) and event.get("name") == "exception":
            attrs = attributes_of(event.get("attributes"))
            text = attrs.get("exception.message") or attrs.get("exception.type")
            if isinstance(text, str) and text:
                return text
    return None


def _tool(
    b: TraceBuilder, span: dict[str, Any], attrs: dict[str, Any], at: str, ran: str | None
) -> None:
    kind = attrs.get(KIND)
    name = attrs.get("tool.name") if kind == "TOOL" else None
    if not isinstance(name, str) or not name:
        name = opt_str(span, "name", at)
    call_id = ran or _tool_id(attrs) or _otlp.span_id(span, at)
    where = f"{at}.attributes[input.value]"
    index = b.call(call_id, name, _arguments(attrs), where, kind=str(kind).lower())
    output = _retrieved(attrs) if kind == "RETRIEVER" else attrs.get("output.value")
    failed = _otlp.is_error(span)
    # The span holds its own outcome: settled in place, never paired afterwards.
    b.settle(index, output, error=(_error(span) or "error") if failed else None, is_error=failed)
    b.measure(index, latency_ms=_otlp.latency(span, at))


def _arguments(attrs: dict[str, Any]) -> Any:
    """JSON input is the arguments object; plain-text input (a retriever query, a tool that
    takes one string) becomes {"input": text}, as LangChain records string tool inputs."""
    value = attrs.get("input.value")
    if isinstance(value, str) and attrs.get("input.mime_type") != "application/json":
        stripped = value.lstrip()
        if not stripped.startswith("{"):
            return {"input": value}
    return value


def _retrieved(attrs: dict[str, Any]) -> Any:
    documents = indexed(attrs, "retrieval.documents")
    if not documents:
        return attrs.get("output.value")
    return [d.get("document.content") for d in documents]


def _llm(
    b: TraceBuilder, span: dict[str, Any], attrs: dict[str, Any], at: str, executed: set[int]
) -> None:
    model = attrs.get("llm.model_name")
    meta = {"model": model if isinstance(model, str) else None}
    messages = indexed(attrs, "llm.output_messages")
    if not messages:
        b.note(at, "LLM span without llm.output_messages (content not captured)")
    texts: list[str] = []
    calls: list[tuple[str, dict[str, Any]]] = []
    for m, message in enumerate(messages):
        where = f"{at}.attributes[llm.output_messages.{m}]"
        texts += _texts(b, message, where)
        for c, call in enumerate(indexed(message, "message.tool_calls")):
            if m * _PER_MESSAGE + c not in executed:
                calls.append((f"{where}.message.tool_calls.{c}", call))
    start = b.text("".join(texts) or None, at, **meta)
    for where, call in calls:
        call_id, name = call.get("tool_call.id"), call.get("tool_call.function.name")
        b.call(
            call_id if isinstance(call_id, str) else None,
            name if isinstance(name, str) else None,
            call.get("tool_call.function.arguments"),
            f"{where}.tool_call.function.arguments",
            **meta,
        )
    where = f"{at}.attributes"
    cost = attrs.get("llm.cost.total")
    b.tokens(
        start,
        opt_count(attrs, "llm.token_count.prompt", where),
        opt_count(attrs, "llm.token_count.completion", where),
        at,
        cost_usd=cost if isinstance(cost, int | float) and is_number(cost) and cost >= 0 else None,
    )
    b.measure(start, latency_ms=_otlp.latency(span, at))


def _texts(b: TraceBuilder, message: dict[str, Any], at: str, notes: bool = True) -> list[str]:
    """The text of a message: `message.content`, else its text `message.contents` (other
    parts are noted, unless `notes` is off: a history repeated by a later span)."""
    content = message.get("message.content")
    if isinstance(content, str):
        return [content]
    texts: list[str] = []
    for p, part in enumerate(indexed(message, "message.contents")):
        text = part.get("message_content.text")
        if part.get("message_content.type") in ("text", None) and isinstance(text, str):
            texts.append(text)
        elif notes:
            b.note(f"{at}.message.contents.{p}", "content part that is not text", part)
    return texts


def _inputs(
    b: TraceBuilder,
    attrs: dict[str, Any],
    at: str,
    seen: set[tuple[str, str]],
    answered: set[str],
) -> None:
    """Trusted inputs (user/system messages, each once: every LLM span repeats the history)
    and results of calls known only from messages (`tool` messages, each answered once)."""
    for m, message in enumerate(indexed(attrs, "llm.input_messages")):
        where = f"{at}.attributes[llm.input_messages.{m}]"
        role = message.get("message.role")
        if isinstance(role, str) and role in _ROLES:
            # Every LLM span repeats the history: each message is an input (and its other
            # parts notes) the first time it is seen.
            text = "\n".join(_texts(b, message, where, notes=False))
            if (role, text) not in seen:
                seen.add((role, text))
                _texts(b, message, where)
                b.input(_ROLES[role], text, where, once=True)
        elif role == "tool":
            call_id = message.get("message.tool_call_id")
            if not isinstance(call_id, str) or call_id in answered:
                continue
            answered.add(call_id)
            if b.is_open(call_id):
                b.result(call_id, message.get("message.content"), where)
            elif not any(step["step_id"] == call_id for step in b.steps):
                b.note(where, "tool result without a matching call", message)


def indexed(attrs: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    """The flattened list `prefix.N.rest` of OpenInference attributes, as a list (in index
    order) of {rest: value} dicts."""
    found: dict[int, dict[str, Any]] = {}
    head = prefix + "."
    for key, value in attrs.items():
        if not key.startswith(head):
            continue
        number, _, rest = key[len(head) :].partition(".")
        if number.isascii() and number.isdigit() and rest and len(number) < 7:
            found.setdefault(int(number), {})[rest] = value
    return [found[n] for n in sorted(found)]


ADAPTER = Adapter(
    name=NAME,
    description="Arize Phoenix / OpenInference spans as OTLP/JSON or binary OTLP",
    detect=detect,
    convert=convert,
    suffixes=otlp_proto.SUFFIXES,
    read_file=otlp_proto.read,
)
