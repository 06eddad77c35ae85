"""The "langfuse" format: Langfuse trace exports (a trace with its `observations`, as the UI
export and `GET /api/public/traces/{id}` give it) and observation lists (`{"data": [...]}`
of the observations API, or a bare array). One trace per Langfuse trace id; observations map
in start order: GENERATION -> model step, TOOL / RETRIEVER -> tool call, structure skipped."""

from __future__ import annotations

from typing import Any

from ..core.agents import SpanTree
from ..core.base import Adapter
from ..core.common import TraceBuilder, fail, first, obj, opt_list, opt_str
from .langfuse_fields import (
    content_text,
    decoded,
    head_labels,
    is_message,
    latency,
    recorded_totals,
    start_of,
    usage,
    usage_details,
)
from .langfuse_spans import (
    agent_of,
    bookkeeping,
    call_id,
    is_tool,
    outcome,
    python_arguments,
    tool_name,
)
from .langfuse_tree import carried_outputs, wrappers_of

NAME = "langfuse"
TYPES = (
    "GENERATION",
    "SPAN",
    "EVENT",
    "TOOL",
    "AGENT",
    "CHAIN",
    "RETRIEVER",
    "EMBEDDING",
    "EVALUATOR",
    "GUARDRAIL",
)
_CALLS = ("TOOL", "RETRIEVER")
_STRUCTURE = ("AGENT", "CHAIN", "SPAN")
_ROLES = {"user": "user", "system": "system", "developer": "developer"}


def _is_observation(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and item.get("type") in TYPES
        and ("startTime" in item or "start_time" in item)
        and "id" in item
    )


def _is_trace(item: Any) -> bool:
    observations = item.get("observations") if isinstance(item, dict) else None
    return isinstance(observations, list) and any(_is_observation(o) for o in observations[:1000])


def _items(value: Any) -> list[Any] | None:
    if isinstance(value, dict) and isinstance(value.get("data"), list):
        return list(value["data"])
    if isinstance(value, dict):
        return [value]
    return value if isinstance(value, list) else None


def detect(value: Any) -> bool:
    """Traces with `observations`, or observations (a typed `type` such as GENERATION with
    `startTime`), bare or under `data`."""
    items = _items(value)
    return bool(items) and any(_is_trace(i) or _is_observation(i) for i in (items or [])[:1000])


def convert(value: Any, name_hint: str) -> list[Any]:
    items = _items(value)
    if items is None:
        raise fail("$", "expected a Langfuse trace, an array of traces or of observations")
    where = "data" if isinstance(value, dict) and "data" in value else ""
    heads: dict[str, dict[str, Any]] = {}
    groups: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    copies: dict[str, int] = {}
    for index, raw in enumerate(items):
        at = f"{where}[{index}]" if where or isinstance(value, list) else "$"
        item = obj(raw, at)
        if isinstance(item.get("observations"), list):
            head, head_at = _head_of(item, at)
            key = opt_str(head, "id", head_at) or ""
            heads.setdefault(key, head)
            group = groups.setdefault(key, [])
            group += _listed(item["observations"], f"{at}.observations")
            if head is not item:
                copies[key] = copies.get(key, 0) + _summary_of(head, head_at, group)
        else:
            key = opt_str(item, "traceId", at) or opt_str(item, "trace_id", at) or ""
            groups.setdefault(key, []).append((at, item))
    multi = len(groups) > 1
    return [
        _trace(
            key,
            heads.get(key, {}),
            group,
            f"{name_hint}-{n}" if multi else name_hint,
            copies.get(key, 0),
        )
        for n, (key, group) in enumerate(groups.items(), start=1)
    ]


def _head_of(item: dict[str, Any], at: str) -> tuple[dict[str, Any], str]:
    """The trace head of an export: the UI's "export as JSON" writes `{"trace": {...},
    "observations": [...]}` (the trace beside its observations in full); the API and
    older exports give the trace itself with its `observations`."""
    head = item.get("trace")
    return (head, f"{at}.trace") if isinstance(head, dict) else (item, at)


def _summary_of(head: dict[str, Any], at: str, group: list[tuple[str, dict[str, Any]]]) -> int:
    """The UI export's trace keeps its own `observations`: the same observations without
    their input and output. One of them that the full list lacks joins `group`; the count
    of copies is returned (bookkeeping)."""
    known = {_id(o.get("id")) for _, o in group} - {None}
    summary = _listed(opt_list(head, "observations", at), f"{at}.observations")
    extra = [(a, o) for a, o in summary if _id(o.get("id")) not in known]
    group += extra
    return len(summary) - len(extra)


def _listed(raw: list[Any], at: str) -> list[tuple[str, dict[str, Any]]]:
    return [(f"{at}[{n}]", obj(o, f"{at}[{n}]")) for n, o in enumerate(raw)]


def _trace(
    key: str,
    head: dict[str, Any],
    observations: list[tuple[str, dict[str, Any]]],
    hint: str,
    copies: int,
) -> dict[str, Any]:
    b = TraceBuilder(NAME, hint, trace_id=key or None)
    observations = [(at, decoded(o)) for at, o in observations]
    for _ in range(copies):
        b.skip("trace.observations", "trace's summary of an observation listed in full beside it")
    head_labels(b, head, observations)
    totals = recorded_totals(observations)
    if totals is not None:
        b.recorded_totals(totals)
    order = sorted(enumerate(observations), key=lambda p: (start_of(p[1][1]), p[0]))
    ordered = [p for _, p in order]
    parents = {_parent(o) for _, o in observations}
    wrappers = wrappers_of(observations)
    carried = carried_outputs(ordered, wrappers)
    givers = {source for source, _ in carried.values()}
    for at, _ in observations:
        if at in givers:
            b.mark(at)  # its output is the answer of the generation below it
        elif at in wrappers:
            b.skip(at, "GENERATION wrapping another GENERATION (the same model call)")
    ordered = [
        (at, {**item, "output": carried[at][1]} if at in carried else item)
        for at, item in ordered
        if at not in wrappers
    ]
    claims = _claims(ordered)
    answered = set(claims.values())
    tree = SpanTree.of([(_id(o.get("id")), _parent(o), _agent(o)) for _, o in observations])
    for at, item in ordered:
        kind = item.get("type")
        b.agent, b.parent_step_id = tree.owner(_id(item.get("id")))
        before = len(b.steps)
        leaf = _id(item.get("id")) not in parents
        if kind == "GENERATION":
            _inputs(b, item.get("input"), f"{at}.input", answered)
            _generation(b, item, at, claims, carried[at][0] if at in carried else at)
        elif kind in _CALLS or is_tool(item):
            _call(b, item, at, claims.get(at))
        elif leaf and bookkeeping(item):
            b.skip(at, str(bookkeeping(item)))
        elif kind in _STRUCTURE and (kind != "SPAN" or _id(item.get("id")) in parents - {None}):
            if kind == "AGENT" and b.agent_name is None:
                b.agent_name = opt_str(item, "name", at)
            if item.get("level") == "ERROR":
                b.note(at, f"{kind} observation recorded an error", _message(item))
            elif kind == "AGENT":
                b.mark(at)  # it names the agent
            else:
                b.skip(at, f"{kind} observation (structure)")
        else:
            b.note(at, f"{kind} observation is not a step", _summary(item))
        tree.produced(_id(item.get("id")), before, b.steps)
    return b.build()


def _agent(item: dict[str, Any]) -> str | None:
    """The agent an AGENT observation runs: its name; the agent a span of an agent run
    names (pydantic-ai's `gen_ai.agent.name`, an OpenInference AGENT span); None for other
    observations."""
    name = item.get("name")
    if item.get("type") == "AGENT":
        return name if isinstance(name, str) else "agent"
    return agent_of(item)


def _id(value: Any) -> str | None:
    """An observation or call id (JSON may hold anything there)."""
    return value if isinstance(value, str) else None


def _parent(item: dict[str, Any]) -> str | None:
    return _id(first(item, "parentObservationId", "parent_observation_id"))


def _summary(item: dict[str, Any]) -> dict[str, Any]:
    keys = ("name", "type", "level", "statusMessage", "input", "output")
    return {k: item[k] for k in keys if item.get(k) is not None}


def _message(item: dict[str, Any]) -> str:
    message = first(item, "statusMessage", "status_message")
    return message if isinstance(message, str) and message else "error"


def _tool_calls(item: dict[str, Any]) -> list[dict[str, Any]]:
    output = item.get("output")
    calls = output.get("tool_calls") if isinstance(output, dict) else None
    return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []


def _function(call: dict[str, Any]) -> dict[str, Any]:
    """The {name, arguments} of a tool call in OpenAI's shape (or flat)."""
    inner = call.get("function")
    return inner if isinstance(inner, dict) else call


def _claims(ordered: list[tuple[str, dict[str, Any]]]) -> dict[str, str]:
    """TOOL observation -> the id of the generation's tool call it executed: the call id an
    OpenTelemetry-fed observation keeps in `metadata.attributes["gen_ai.tool.call.id"]`,
    else the oldest unclaimed call of the same tool name (Langfuse has no call id field)."""
    waiting: dict[str, list[str]] = {}
    claims: dict[str, str] = {}
    for at, item in ordered:
        if item.get("type") == "GENERATION":
            for index, call in enumerate(_tool_calls(item)):
                function = _function(call)
                waiting.setdefault(str(function.get("name")), []).append(_key(at, index, call))
        elif item.get("type") == "TOOL" or is_tool(item):
            own = call_id(item)
            queue = next((q for q in waiting.values() if own in q), None) if own else None
            if own and queue is not None:
                queue.remove(own)
                claims[at] = str(own)
                continue
            queue = waiting.get(str(tool_name(item)), [])
            if queue:
                claims[at] = queue.pop(0)
    return claims


def _key(at: str, index: int, call: dict[str, Any]) -> str:
    """A generation's call as a TOOL observation claims it: its id, else (a Gemini
    function_call has none) its place, marked by a NUL no id holds."""
    own = _id(call.get("id"))
    return own if own is not None else f"\0{at}[{index}]"


def _generation(
    b: TraceBuilder, item: dict[str, Any], at: str, claims: dict[str, str], source: str
) -> None:
    """A model call; `source` is the observation its output was read from (itself, or the
    generation wrapping it)."""
    model = item.get("model")
    meta = {"model": model if isinstance(model, str) else None}
    output = item.get("output")
    text: str | None = None
    if isinstance(output, str):
        text = output
    elif is_message(output) and isinstance(output.get("content"), str | None):
        text = output.get("content")
    elif isinstance(output, dict) and isinstance(output.get("content"), list):
        parts = output["content"]
        texts = [p.get("text") for p in parts if isinstance(p, dict) and p.get("type") == "text"]
        text = "".join(t for t in texts if isinstance(t, str))
        if len(texts) != len(parts):
            b.note(f"{source}.output.content", "content part that is not text", parts)
    elif output is not None:
        b.note(f"{source}.output", "generation output that is not a message", output)
    thoughts = output.get("reasoning") if isinstance(output, dict) else None
    for thought in thoughts if isinstance(thoughts, list) else []:
        b.reasoning(thought if isinstance(thought, str) else None, f"{source}.output")
    details = usage_details(item)
    start = b.text(text or None, at, **meta, usage_details=details)
    claimed = set(claims.values())
    for index, call in enumerate(_tool_calls(item)):
        if _key(at, index, call) in claimed:
            continue
        function = _function(call)
        where = f"{source}.output.tool_calls[{index}]"
        b.call(
            opt_str(call, "id", where),
            opt_str(function, "name", where),
            function.get("arguments"),
            f"{where}.arguments",
            **meta,
        )
    usage(b, item, at, start)
    b.measure(start, latency_ms=latency(b, item, at))
    if item.get("level") == "ERROR":
        b.note(at, "generation recorded an error", _message(item))


def _arguments(raw: Any) -> Any:
    """A tool's input: its arguments object. The @observe decorator records a function's
    call as {"args": [...], "kwargs": {...}}: the keyword arguments, with any positional
    ones kept under "args"."""
    if isinstance(raw, dict) and raw and set(raw) <= {"args", "kwargs"}:
        found = raw.get("kwargs")
        kwargs: dict[str, Any] = found if isinstance(found, dict) else {}
        args = raw.get("args")
        return {**({"args": args} if args else {}), **kwargs}
    if isinstance(raw, str) and not raw.lstrip().startswith("{"):
        return {"input": raw}
    if isinstance(raw, str):
        return python_arguments(raw) or raw
    return raw


def _call(b: TraceBuilder, item: dict[str, Any], at: str, claimed: str | None) -> None:
    kind = item.get("type")
    named = claimed if claimed and not claimed.startswith("\0") else None
    index = b.call(
        named or call_id(item) or opt_str(item, "id", at),
        tool_name(item),
        _arguments(item.get("input")),
        f"{at}.input",
        kind=str(kind).lower(),
    )
    output, said_failed = outcome(item)
    failed = item.get("level") == "ERROR" or said_failed
    message = first(item, "statusMessage", "status_message")
    error = message if failed and isinstance(message, str) and message else None
    # The observation holds its own outcome (an error without a message: its output).
    b.settle(index, output, error=error, is_error=failed)
    b.measure(index, latency_ms=latency(b, item, at))


def _inputs(b: TraceBuilder, raw: Any, at: str, answered: set[str]) -> None:
    """A generation's input messages: user/system ones are trusted inputs (each once: every
    generation repeats the history); `tool` ones answer calls known only from messages.
    The assistant messages of the history are the outputs of earlier generations."""
    messages = raw.get("messages") if isinstance(raw, dict) else raw
    for index, message in enumerate(messages if isinstance(messages, list) else []):
        where = f"{at}[{index}]"
        if not isinstance(message, dict):
            continue  # a prompt of another shape: the history repeats it in every generation
        role, content = message.get("role"), message.get("content")
        if isinstance(role, str) and role in _ROLES:
            text = content_text(content)
            if text is not None:
                b.input(_ROLES[role], text, where, once=True)
        elif role == "tool" and isinstance(message.get("tool_call_id"), str):
            call_id = message["tool_call_id"]
            if call_id in answered:
                continue
            answered.add(call_id)
            if b.is_open(call_id):
                b.result(call_id, content, where)
            elif not any(step["step_id"] == call_id for step in b.steps):
                b.note(where, "tool result without a matching call", message)


ADAPTER = Adapter(
    name=NAME,
    description="Langfuse trace exports and observation lists",
    detect=detect,
    convert=convert,
)
