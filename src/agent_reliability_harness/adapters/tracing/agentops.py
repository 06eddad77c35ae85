"""The "agentops" format: a trace as the AgentOps API returns it (`GET /v2/traces/{id}`,
the dashboard's trace export): `{"trace_id": ..., "spans": [...]}` (2025) or
`{"trace": {...totals}, "spans": [...]}`, each span with `span_id`, `parent_span_id`,
`span_name`, `span_type` and its attributes unflattened under `span_attributes`
(`gen_ai.usage.prompt_tokens` is `{"gen_ai": {"usage": {"prompt_tokens": "52"}}}`).

Model spans (`span_type` "request", `agentops.span.kind` "llm") are model turns: their
completion (text, `tool_calls`, or an OpenAI Responses object written as JSON text) and
usage (`gen_ai.usage`, else the span's `metrics`); tool spans (`agentops.span.kind` or
`span_type` "tool") are tool calls with their input, output and status. The root span's
usage (or `metrics`) is the run total the steps are reconciled with; agent, task and
workflow spans name the agents. One trace per document.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ..core.base import Adapter
from ..core.common import TraceBuilder, fail, obj, opt_count, opt_str
from ..core.totals import RecordedTotals

NAME = "agentops"
_LLM_KINDS = ("llm",)
_TOOL_KINDS = ("tool",)
_ERROR = ("ERROR", "Error", "error")


def _is_span(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and "span_id" in item
        and isinstance(item.get("span_attributes"), dict)
        and "span_name" in item
    )


def detect(value: Any) -> bool:
    """An object with `spans` whose items carry AgentOps' own `span_attributes` (OTLP
    writes `attributes`), and the trace's `trace_id` or `trace` head."""
    if not isinstance(value, dict) or not isinstance(value.get("spans"), list):
        return False
    if "trace_id" not in value and not isinstance(value.get("trace"), dict):
        return False
    return any(_is_span(s) for s in value["spans"][:1000])


def _path(attrs: Any, *keys: str) -> Any:
    """The value at a dotted attribute path of unflattened span attributes."""
    for key in keys:
        if not isinstance(attrs, dict):
            return None
        attrs = attrs.get(key)
    return attrs


def _attrs(span: dict[str, Any]) -> dict[str, Any]:
    attrs = span.get("span_attributes")
    return attrs if isinstance(attrs, dict) else {}


def _kind(span: dict[str, Any]) -> str:
    attrs = _attrs(span)
    kind = _path(attrs, "agentops", "span", "kind")
    if isinstance(kind, str) and kind:
        return kind
    return str(span.get("span_type") or "")


def _decoded(text: Any) -> Any:
    """JSON text as its value (AgentOps writes lists and objects as JSON text); other
    text as is."""
    if isinstance(text, str) and text[:1] in "[{":
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def _messages(value: Any) -> list[dict[str, Any]]:
    """Prompt or completion messages: a list of messages or of `{"<index>": message}`."""
    value = _decoded(value)
    found: list[dict[str, Any]] = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, dict) and ("role" in item or "content" in item):
            found.append(item)
        elif isinstance(item, dict):
            found.extend(v for _, v in sorted(item.items()) if isinstance(v, dict))
    return found


def _agent_of(span: dict[str, Any]) -> str | None:
    attrs = _attrs(span)
    for path in (("agent", "name"), ("agent", "role")):
        name = _path(attrs, *path)
        if isinstance(name, str) and name:
            return name
    return None


def _amount(value: Any) -> float | None:
    """An amount (a cost) written as a number or as its decimal text; None otherwise."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    try:
        amount = float(value)
    except (ValueError, OverflowError):
        return None
    return amount if math.isfinite(amount) and amount >= 0 else None


def _usage(span: dict[str, Any], at: str) -> tuple[int | None, int | None, float | None]:
    usage = _path(_attrs(span), "gen_ai", "usage")
    metrics = span.get("metrics") if isinstance(span.get("metrics"), dict) else None
    if isinstance(usage, dict):
        where = f"{at}.span_attributes.gen_ai.usage"
        prompt = opt_count(usage, "prompt_tokens", where)
        completion = opt_count(usage, "completion_tokens", where)
    else:
        prompt = opt_count(metrics, "prompt_tokens", f"{at}.metrics")
        completion = opt_count(metrics, "completion_tokens", f"{at}.metrics")
    cost = _amount(metrics.get("total_cost")) if metrics else None
    return prompt, completion, cost


def convert(value: Any, name_hint: str) -> list[Any]:
    if not detect(value):
        raise fail("$", 'expected an AgentOps trace ({"trace_id", "spans": [...]})')
    b = TraceBuilder(NAME, name_hint)
    head = value.get("trace") if isinstance(value.get("trace"), dict) else value
    b.labels({"trace_id": head.get("trace_id")})
    spans = [(f"spans[{i}]", obj(raw, f"spans[{i}]")) for i, raw in enumerate(value["spans"])]
    if all(isinstance(s.get("start_time"), str) and s["start_time"] for _, s in spans):
        spans.sort(key=lambda pair: pair[1]["start_time"])  # ISO times in one format
    parents = {str(s.get("span_id")): str(s.get("parent_span_id") or "") for _, s in spans}
    agents = {str(s.get("span_id")): a for _, s in spans if (a := _agent_of(s)) is not None}
    named = set(agents.values())
    if len(named) == 1:
        b.agent_name = named.pop()
    models = any(_kind(s) == "request" or _kind(s) in _LLM_KINDS for _, s in spans)
    for at, span in spans:
        if len(set(agents.values())) > 1:
            b.agent = _owner(str(span.get("span_id")), parents, agents)
        _span(b, span, at, models)
    _totals(b, value, spans)
    return [b.build()]


def _owner(span_id: str, parents: dict[str, str], agents: dict[str, str]) -> str | None:
    """The agent of the nearest agent span at or above a span."""
    seen: set[str] = set()
    while span_id and span_id not in seen:
        seen.add(span_id)
        if span_id in agents:
            return agents[span_id]
        span_id = parents.get(span_id, "")
    return None


def _span(b: TraceBuilder, span: dict[str, Any], at: str, models: bool) -> None:
    kind = _kind(span)
    root = not span.get("parent_span_id")
    if kind == "request" or kind in _LLM_KINDS:
        _model(b, span, at)
    elif kind in _TOOL_KINDS or isinstance(_path(_attrs(span), "tool", "name"), str):
        _tool(b, span, at)
    elif root and not models and _messages(_path(_attrs(span), "gen_ai", "completion")):
        _model(b, span, at)  # a run recorded by its root span alone
    elif root:
        b.skip(at, "root span (the run's totals; any output repeats the last response)")
    else:
        b.skip(at, "agent, task or workflow span")


def _model(b: TraceBuilder, span: dict[str, Any], at: str) -> None:
    """A model turn: its prompt (inputs, results of open calls), its completion, usage."""
    attrs = _attrs(span)
    completion = _path(attrs, "gen_ai", "completion")
    messages = _messages(completion)
    if _path(attrs, "gen_ai", "prompt") == "null" and all(
        m.get("content") == "null" for m in messages
    ):
        b.skip(at, "span start record (content null)")
        return
    _prompt(b, _path(attrs, "gen_ai", "prompt"), f"{at}.span_attributes.gen_ai.prompt")
    start = len(b.steps)
    model = _path(attrs, "gen_ai", "response", "model")
    model = model or _path(attrs, "gen_ai", "request", "model")
    usage: tuple[int | None, int | None] = (None, None)
    for n, message in enumerate(messages):
        usage = _completion(b, message, f"{at}.span_attributes.gen_ai.completion[{n}]", model)
    prompt, output, cost = _usage(span, at)
    if prompt is None and output is None:
        prompt, output = usage
    if len(b.steps) == start:
        b.text(None, at, model=model if isinstance(model, str) else None)
    b.tokens(start, prompt, output, at, cost_usd=cost or None)
    if span.get("status_code") in _ERROR:
        b.settle(start, error=str(span.get("status_message") or "model call failed"))


def _prompt(b: TraceBuilder, prompt: Any, at: str) -> None:
    """The conversation sent to the model: inputs once, results of calls still open."""
    for n, message in enumerate(_messages(prompt)):
        where = f"{at}[{n}]"
        role, content = message.get("role"), message.get("content")
        call_id = _text(message.get("tool_call_id") or message.get("call_id"))
        if message.get("type") == "function_call_output" or role == "tool":
            output = message.get("output", content)
            if b.is_open(call_id):
                b.result(call_id, output, where)
            else:
                b.skip(where, "tool result repeated in a later prompt")
        elif role in ("user", "system", "developer") and isinstance(content, str):
            b.input(role, content, where, once=True)
        else:
            b.skip(where, "model turn repeated in a later prompt")


def _completion(
    b: TraceBuilder, message: dict[str, Any], at: str, model: Any
) -> tuple[int | None, int | None]:
    """One completion message; an OpenAI Responses object (JSON text) is read whole.
    Returns the usage a Responses object records."""
    content = _decoded(message.get("content"))
    meta = {"model": model if isinstance(model, str) else None}
    if isinstance(content, dict) and content.get("object") == "response":
        return _response(b, content, at)
    if isinstance(content, str) and content:
        b.text(content, at, **meta)
    elif content not in (None, ""):
        b.note(at, "completion content that is not text", content)
    for n, call in enumerate(_calls(message.get("tool_calls"))):
        where = f"{at}.tool_calls[{n}]"
        inner = call.get("function")
        function: dict[str, Any] = inner if isinstance(inner, dict) else call
        name = function.get("name")
        name = name if isinstance(name, str) else None
        b.call(opt_str(call, "id", where), name, function.get("arguments"), where)
    return None, None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _calls(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        return [v for _, v in sorted(value.items()) if isinstance(v, dict)]
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _response(b: TraceBuilder, response: dict[str, Any], at: str) -> tuple[int | None, int | None]:
    """An OpenAI Responses object: message text, function calls, reasoning summaries."""
    model = response.get("model") if isinstance(response.get("model"), str) else None
    output = response.get("output")
    for n, item in enumerate(output if isinstance(output, list) else []):
        where = f"{at}.content.output[{n}]"
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "message" and isinstance(item, dict):
            content = item.get("content")
            parts: list[Any] = content if isinstance(content, list) else []
            texts = [p.get("text") for p in parts if isinstance(p, dict)]
            text = "".join(t for t in texts if isinstance(t, str))
            b.text(text, where, model=model, response_id=response.get("id"))
        elif kind == "function_call" and isinstance(item, dict):
            call_id, name = _text(item.get("call_id")), _text(item.get("name"))
            b.call(call_id, name, item.get("arguments"), where)
        elif kind == "reasoning" and isinstance(item, dict):
            found = item.get("summary")
            items = found if isinstance(found, list) else []
            summary = [s.get("text") for s in items if isinstance(s, dict)]
            b.reasoning("\n".join(s for s in summary if isinstance(s, str)) or None, where)
        else:
            b.note(where, "response output item of an unknown type", item)
    usage = response.get("usage") if isinstance(response.get("usage"), dict) else None
    where = f"{at}.content.usage"
    return opt_count(usage, "input_tokens", where), opt_count(usage, "output_tokens", where)


def _tool(b: TraceBuilder, span: dict[str, Any], at: str) -> None:
    """A tool span: the call with its input and output; ERROR status fails it. A call the
    model asked for by name earlier gets this span's outcome."""
    attrs = _attrs(span)
    name = _path(attrs, "tool", "name") or _path(attrs, "agentops", "entity", "name")
    if not isinstance(name, str) or not name:
        name = str(span.get("span_name") or "").removesuffix(".tool") or None
    args = _path(attrs, "tool", "parameters")
    if args is None:
        args = _path(attrs, "agentops", "entity", "input")
    args = _decoded(args)
    if args is not None and not isinstance(args, dict):
        args = {"input": args}
    output = _path(attrs, "tool", "result")
    if output is None:
        output = _path(attrs, "agentops", "entity", "output")
    failed = span.get("status_code") in _ERROR or _path(attrs, "tool", "status") in _ERROR
    error = str(span.get("status_message") or "tool failed") if failed else None
    if b.is_open(None, name):
        b.result(None, output, at, error=error, is_error=failed, name=name)
        return
    index = b.call(None, name, args, at)
    b.settle(index, output, error=error, is_error=failed)


def _totals(
    b: TraceBuilder, value: dict[str, Any], spans: list[tuple[str, dict[str, Any]]]
) -> None:
    """The run totals: the root span's usage (or metrics), the trace head's total cost."""
    roots = [(at, s) for at, s in spans if not s.get("parent_span_id")]
    prompt = output = cost = None
    where = "spans"
    if len(roots) == 1:
        where, root = roots[0]
        prompt, output, cost = _usage(root, where)
    head = value.get("trace")
    if isinstance(head, dict) and _amount(head.get("total_cost")) is not None:
        cost, where = _amount(head.get("total_cost")), "trace"
    if (prompt, output) != (None, None) or cost:
        b.recorded_totals(RecordedTotals(where, prompt, output, cost or None))


ADAPTER = Adapter(
    name=NAME,
    description="AgentOps trace exports (the AgentOps API's trace: spans with span_attributes)",
    detect=detect,
    convert=convert,
)
