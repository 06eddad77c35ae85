"""The "mlflow" format: MLflow traces as `Trace.to_dict()` writes them (`mlflow.get_trace`,
the trace JSON of the UI and the REST API): `{"info": TraceInfo, "data": {"spans": [...]}}`.

`info` holds the trace id (`trace_id`; MLflow 2: `request_id`), its state, tags
(`mlflow.traceName`) and `trace_metadata` (the trace's inputs and outputs, which repeat
the root span's). Each span is an OpenTelemetry span as MLflow serialises it: `span_id`,
`parent_span_id`, `name`, `start_time_unix_nano`, `end_time_unix_nano`, `status {code,
message}`, `events` and `attributes` whose values are JSON text: `mlflow.spanType`
(CHAT_MODEL, LLM, TOOL, RETRIEVER, AGENT, CHAIN, PARSER, EMBEDDING, RERANKER, UNKNOWN),
`mlflow.spanInputs`, `mlflow.spanOutputs`, `mlflow.chat.tokenUsage`. Spans map in start
order: a model span is a model response (its output: a Chat Completions response, an
assistant message or text), a TOOL or RETRIEVER span a call holding its outcome (it answers
the open call of its name a model response made), an AGENT span names the agent of the
spans below it; other spans with children are structure.
"""

from __future__ import annotations

from typing import Any

from ...errors import InputError
from ...io import decode_json
from ..core.agents import SpanTree
from ..core.base import Adapter
from ..core.common import TraceBuilder, fail, obj, opt_count, opt_list, opt_str
from .langfuse_outputs import as_message

NAME = "mlflow"
_MODEL = ("CHAT_MODEL", "LLM")
_CALLS = ("TOOL", "RETRIEVER")
_ROLES = ("user", "system", "developer")
_STRUCTURE = "span with children (structure: the spans below it hold its content)"


def detect(value: Any) -> bool:
    """`{"info": {trace_id | request_id, ...}, "data": {"spans": [...]}}`."""
    if not isinstance(value, dict):
        return False
    info, data = value.get("info"), value.get("data")
    return (
        isinstance(info, dict)
        and ("trace_id" in info or "request_id" in info)
        and isinstance(data, dict)
        and isinstance(data.get("spans"), list)
    )


def _attributes(span: dict[str, Any], at: str, b: TraceBuilder) -> dict[str, Any]:
    """The span's attributes with their JSON text decoded (MLflow writes every value so)."""
    raw = span.get("attributes")
    found: dict[str, Any] = {}
    for key, written in (raw if isinstance(raw, dict) else {}).items():
        value = written
        if isinstance(written, str):
            try:
                value = decode_json(written)
            except InputError:
                b.note(f"{at}.attributes[{key}]", "attribute that is not JSON text", written)
                continue
        found[str(key)] = value
    return found


def _nanos(span: dict[str, Any], key: str) -> int | None:
    """A span time in nanoseconds since the epoch (None: absent or out of range)."""
    value = span.get(key)
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**64
    return value if ok else None


def _start(span: dict[str, Any]) -> int:
    return _nanos(span, "start_time_unix_nano") or 0


def _latency(span: dict[str, Any]) -> float | None:
    start, end = _nanos(span, "start_time_unix_nano"), _nanos(span, "end_time_unix_nano")
    if start is None or end is None or end < start:
        return None
    return round((end - start) / 1_000_000, 6)


def convert(value: Any, name_hint: str) -> list[Any]:
    if not detect(value):
        raise fail("$", 'expected an MLflow trace ({"info": ..., "data": {"spans": [...]}})')
    info = value["info"]
    trace_id = opt_str(info, "trace_id", "$.info") or opt_str(info, "request_id", "$.info")
    b = TraceBuilder(NAME, name_hint, trace_id=trace_id)
    b.mark("$.info")
    tags = info.get("tags")
    name = tags.get("mlflow.traceName") if isinstance(tags, dict) else None
    b.workflow = name if isinstance(name, str) else None
    if isinstance(info.get("state"), str):
        b.metadata["state"] = info["state"]
    spans = [
        (f"$.data.spans[{n}]", obj(raw, f"$.data.spans[{n}]"))
        for n, raw in enumerate(opt_list(value["data"], "spans", "$.data"))
    ]
    decoded = [(at, span, _attributes(span, at, b)) for at, span in spans]
    parents = {_id(span, "parent_span_id") for _, span, _ in decoded}
    tree = SpanTree.of(
        [(_id(s, "span_id"), _id(s, "parent_span_id"), _agent(s, a)) for _, s, a in decoded]
    )
    order = sorted(enumerate(decoded), key=lambda p: (_start(p[1][1]), p[0]))
    for _, (at, span, attrs) in order:
        own = _id(span, "span_id")
        b.agent, b.parent_step_id = tree.owner(own)
        before = len(b.steps)
        answered = _span(b, span, attrs, at, own in parents)
        if answered is not None and own is not None:
            tree.steps.setdefault(own, answered)  # the subagents below it run under that call
        tree.produced(own, before, b.steps)
    return [b.build()]


def _id(span: dict[str, Any], key: str) -> str | None:
    value = span.get(key)
    return value if isinstance(value, str) and value else None


def _agent(span: dict[str, Any], attrs: dict[str, Any]) -> str | None:
    name = span.get("name")
    if attrs.get("mlflow.spanType") != "AGENT":
        return None
    return name if isinstance(name, str) else "agent"


def _span(
    b: TraceBuilder, span: dict[str, Any], attrs: dict[str, Any], at: str, parent: bool
) -> str | None:
    """Map one span; returns the id of an earlier call it answered (a tool span)."""
    kind = attrs.get("mlflow.spanType")
    if kind in _MODEL:
        _model(b, span, attrs, at)
    elif kind in _CALLS:
        return _call(b, span, attrs, at)
    elif kind == "AGENT":
        if b.agent_name is None and isinstance(span.get("name"), str):
            b.agent_name = span["name"]
        b.mark(at)
    elif parent:
        b.skip(at, _STRUCTURE)
    else:
        summary = {k: attrs.get(f"mlflow.span{k}") for k in ("Type", "Inputs", "Outputs")}
        b.note(at, "span that is not a model or tool span", {"name": span.get("name"), **summary})
    return None


def _error(span: dict[str, Any]) -> str | None:
    """The failure of a span whose status is ERROR: its message, else its exception's."""
    status = span.get("status")
    if not isinstance(status, dict) or status.get("code") not in ("STATUS_CODE_ERROR", "ERROR", 2):
        return None
    message = status.get("message")
    if isinstance(message, str) and message:
        return message
    events = span.get("events")
    for event in events if isinstance(events, list) else []:
        attrs = event.get("attributes") if isinstance(event, dict) else None
        text = attrs.get("exception.message") if isinstance(attrs, dict) else None
        if isinstance(text, str) and text:
            return text
    return "error"


def _model(b: TraceBuilder, span: dict[str, Any], attrs: dict[str, Any], at: str) -> None:
    inputs = attrs.get("mlflow.spanInputs")
    messages = inputs.get("messages") if isinstance(inputs, dict) else inputs
    for index, message in enumerate(messages if isinstance(messages, list) else []):
        _history(b, message, f"{at}.attributes[mlflow.spanInputs].messages[{index}]")
    output = attrs.get("mlflow.spanOutputs")
    said = _message(output)
    where = f"{at}.attributes[mlflow.spanOutputs]"
    text = said.get("content") if said is not None else None
    if said is None and output is not None:
        b.note(where, "model output that is not a message", output)
    elif text is not None and not isinstance(text, str):
        b.note(f"{where}.content", "content that is not text", text)
        text = None
    for thought in _listed(said, "reasoning"):
        b.reasoning(thought if isinstance(thought, str) else None, where)
    start = b.text(text or None, at, model=_model_name(attrs, output))
    for index, call in enumerate(_listed(said, "tool_calls")):
        function = call.get("function") if isinstance(call, dict) else None
        function = function if isinstance(function, dict) else {}
        place = f"{where}.tool_calls[{index}]"
        b.call(
            opt_str(call, "id", place) if isinstance(call, dict) else None,
            opt_str(function, "name", place),
            function.get("arguments"),
            f"{place}.arguments",
        )
    b.tokens(start, *_usage(attrs, output, at), at)
    b.measure(start, latency_ms=_latency(span))
    error = _error(span)
    if error is not None:
        b.note(at, "model span recorded an error", error)


def _listed(said: dict[str, Any] | None, key: str) -> list[Any]:
    found = said.get(key) if said is not None else None
    return found if isinstance(found, list) else []


def _message(output: Any) -> dict[str, Any] | None:
    """The assistant message a model span's output holds (None: none it can read)."""
    if isinstance(output, str):
        return {"content": output}
    if isinstance(output, dict) and isinstance(output.get("choices"), list) and output["choices"]:
        choice = output["choices"][0]
        message = choice.get("message") if isinstance(choice, dict) else None
        return message if isinstance(message, dict) else None
    found = as_message(output)
    if isinstance(found, dict) and ("content" in found or "tool_calls" in found):
        return found
    return None


def _model_name(attrs: dict[str, Any], output: Any) -> str | None:
    model = output.get("model") if isinstance(output, dict) else None
    model = model or attrs.get("mlflow.llm.model") or attrs.get("model")
    return model if isinstance(model, str) else None


def _usage(attrs: dict[str, Any], output: Any, at: str) -> tuple[int | None, int | None]:
    usage = attrs.get("mlflow.chat.tokenUsage")
    where = f"{at}.attributes[mlflow.chat.tokenUsage]"
    if isinstance(usage, dict):
        return opt_count(usage, "input_tokens", where), opt_count(usage, "output_tokens", where)
    usage = output.get("usage") if isinstance(output, dict) else None
    where = f"{at}.attributes[mlflow.spanOutputs].usage"
    if isinstance(usage, dict):
        inp = opt_count(usage, "prompt_tokens", where) or opt_count(usage, "input_tokens", where)
        out = opt_count(usage, "completion_tokens", where) or opt_count(
            usage, "output_tokens", where
        )
        return inp, out
    return None, None


def _history(b: TraceBuilder, message: Any, at: str) -> None:
    """A model span's input message: user/system ones are inputs (each once: every model
    span repeats the conversation); a tool message answers a call still open."""
    if not isinstance(message, dict):
        return
    role, content = message.get("role"), message.get("content")
    if role in _ROLES and isinstance(content, str):
        b.input(str(role), content, at, once=True)
    elif role == "tool" and b.is_open(message.get("tool_call_id")):
        b.result(message.get("tool_call_id"), content, at)


def _call(b: TraceBuilder, span: dict[str, Any], attrs: dict[str, Any], at: str) -> str | None:
    """A tool span; returns the id of the model's call it answered (None: a call of its own)."""
    name = span.get("name") if isinstance(span.get("name"), str) else None
    output = attrs.get("mlflow.spanOutputs")
    error = _error(span)
    if b.is_open(None, name):  # the call a model response made, by its tool's name
        waiting = [s for s in b.steps if s.get("tool_name") == name and "status" not in s]
        b.result(None, output, at, name=name, error=error, is_error=error is not None)
        return str(waiting[0]["step_id"]) if waiting else None
    arguments = attrs.get("mlflow.spanInputs")
    index = b.call(_id(span, "span_id"), name, arguments, f"{at}.attributes[mlflow.spanInputs]")
    b.settle(index, output, error=error, is_error=error is not None)
    b.measure(index, latency_ms=_latency(span))
    return None


ADAPTER = Adapter(
    name=NAME,
    description="MLflow traces (Trace.to_dict: info and data.spans)",
    detect=detect,
    convert=convert,
)
