"""Spans of LangSmith's OpenTelemetry exporter (LANGSMITH_OTEL_ENABLED), part of
"otel-genai": every LangChain run is a span whose run type is `langsmith.span.kind` (the
exporter labels a model run `gen_ai.operation.name: chain`, a prompt template `chat`),
with the run's inputs and outputs as JSON text in `gen_ai.prompt` / `gen_ai.completion`.

- `llm`: a model call. Its inputs are `{"messages": [[serialised LangChain messages]]}`
  (the conversation so far: human and system messages are inputs, each once; a tool
  message answers a call still open; AI messages repeat earlier model spans); its outputs
  are `{"generations": [[{"message": <AI message>, ...}]]}`: one model response with the
  AI message's calls, and the span's `gen_ai.usage.*` tokens.
- `tool`: a tool run. Its output answers the call it names (a ToolMessage's
  `tool_call_id`), else the oldest open call of its name; a run no model call asked for
  is a call of its own.
- Other run types (chain, prompt, parser, retriever): the pipeline's plumbing, whose
  inputs and outputs the model and tool spans hold; bookkeeping.
"""

from __future__ import annotations

from typing import Any

from ...errors import InputError
from ...io import decode_json
from ..core.builder import TraceBuilder
from ..core.common import opt_count
from ..core.langchain_messages import add_message, message

KIND = "langsmith.span.kind"
_PLUMBING = "LangSmith pipeline run (chain, prompt, parser): model and tool spans hold its content"
_TOKENS = ("input_tokens", "output_tokens")
_REPEATED = "an earlier model span's message, repeated in the conversation"


def is_langsmith(attrs: dict[str, Any]) -> bool:
    return isinstance(attrs.get(KIND), str)


def langsmith_span(b: TraceBuilder, span: dict[str, Any], attrs: dict[str, Any], at: str) -> None:
    kind = attrs[KIND]
    if kind == "llm":
        _model(b, attrs, at)
    elif kind == "tool":
        _tool(b, span, attrs, at)
    else:
        b.skip(at, _PLUMBING)


def _json(b: TraceBuilder, attrs: dict[str, Any], key: str, at: str) -> Any:
    raw = attrs.get(key)
    if not isinstance(raw, str):
        return raw
    try:
        return decode_json(raw)
    except InputError:
        b.note(f"{at}.attributes[{key}]", "run inputs or outputs that are not JSON", raw)
        return None


def _model(b: TraceBuilder, attrs: dict[str, Any], at: str) -> None:
    inputs = _json(b, attrs, "gen_ai.prompt", at)
    batches = inputs.get("messages") if isinstance(inputs, dict) else None
    where = f"{at}.attributes[gen_ai.prompt].messages"
    for n, batch in enumerate(batches if isinstance(batches, list) else []):
        for m, raw in enumerate(batch if isinstance(batch, list) else [batch]):
            _history(b, raw, f"{where}[{n}][{m}]")
    outputs = _json(b, attrs, "gen_ai.completion", at)
    generations = outputs.get("generations") if isinstance(outputs, dict) else None
    start = len(b.steps)
    where = f"{at}.attributes[gen_ai.completion].generations"
    for n, batch in enumerate(generations if isinstance(generations, list) else []):
        for g, generation in enumerate(batch if isinstance(batch, list) else [batch]):
            said = generation.get("message") if isinstance(generation, dict) else None
            add_message(b, said, f"{where}[{n}][{g}].message", set(), own_step=True)
    if len(b.steps) == start:
        b.note(at, "LangSmith model span without a generated message", outputs)
        return
    model = attrs.get("gen_ai.response.model") or attrs.get("gen_ai.request.model")
    if isinstance(model, str):
        b.steps[start].setdefault("metadata", {}).setdefault("model", model)
    if any(b.steps[i].get(k) is not None for i in range(start, len(b.steps)) for k in _TOKENS):
        return  # the AI message's usage_metadata, the same counts as the span's
    usage = f"{at}.attributes"
    inp = opt_count(attrs, "gen_ai.usage.input_tokens", usage)
    out = opt_count(attrs, "gen_ai.usage.output_tokens", usage)
    b.tokens(start, inp, out, usage)


def _history(b: TraceBuilder, raw: Any, at: str) -> None:
    found = message(raw)
    if found is None:
        b.note(at, "item that is not a LangChain message", raw)
        return
    kind, fields = found
    if kind in ("human", "system"):
        text = fields.get("content")
        if isinstance(text, str):
            b.input("user" if kind == "human" else "system", text, at, once=True)
            return
        add_message(b, raw, at, set())
    elif kind == "tool" and b.is_open(fields.get("tool_call_id")):
        add_message(b, raw, at, set())
    else:
        b.skip(at, _REPEATED)


def _tool(b: TraceBuilder, span: dict[str, Any], attrs: dict[str, Any], at: str) -> None:
    name = attrs.get("langsmith.trace.name") or span.get("name")
    name = name if isinstance(name, str) else None
    inputs = _json(b, attrs, "gen_ai.prompt", at)
    outputs = _json(b, attrs, "gen_ai.completion", at)
    output = outputs.get("output", outputs) if isinstance(outputs, dict) else outputs
    found = message(output)
    where = f"{at}.attributes[gen_ai.completion]"
    if found is not None and found[0] == "tool" and b.is_open(found[1].get("tool_call_id")):
        add_message(b, output, where, set())
        return
    if b.is_open(None, name):
        b.result(None, output, where, name=name)
        return
    index = b.call(None, name, inputs, f"{at}.attributes[gen_ai.prompt]")
    b.settle(index, output)


__all__ = ["is_langsmith", "langsmith_span"]
