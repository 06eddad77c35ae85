"""The "google-genai" format: Gemini `contents` and GenerateContentResponse dumps.

Accepts the SDK's snake_case dumps and the REST camelCase wire form. Model parts
map in order; `function_response` parts fill in their call (by id, else by name);
consecutive streamed chunks of one response are joined first.
"""

from __future__ import annotations

from typing import Any

from ..core.base import Adapter
from ..core.common import (
    TraceBuilder,
    add_counts,
    any_item,
    arr,
    first,
    items_of,
    obj,
    opt_count,
    opt_list,
    opt_str,
)
from . import _streams

NAME = "google-genai"
CONTAINERS = ("contents",)
_HISTORY = ("automatic_function_calling_history", "automaticFunctionCallingHistory")
_USAGE = ("usage_metadata", "usageMetadata")
_CODE = "code_execution"
_OK = (None, "OUTCOME_OK")


def _is_marker(item: dict[str, Any]) -> bool:
    if isinstance(item.get("parts"), list):
        return True
    return isinstance(item.get("candidates"), list) or any(k in item for k in _USAGE)


def detect(value: Any) -> bool:
    """Contents (objects with `parts`) or response dumps (`candidates`, usage metadata)."""
    return any_item(value, CONTAINERS, _is_marker)


def _is_response(item: Any) -> bool:
    return isinstance(item, dict) and ("candidates" in item or any(k in item for k in _USAGE))


def _response_id(item: dict[str, Any]) -> Any:
    return first(item, "response_id", "responseId")


def _new_response(item: dict[str, Any], head: dict[str, Any]) -> bool:
    """Streamed chunks of one response share its id; a chunk without one stands alone."""
    return _response_id(item) is None or _response_id(item) != _response_id(head)


def convert(value: Any, name_hint: str) -> list[Any]:
    builder = TraceBuilder(NAME, name_hint)
    pairs, body = items_of(value, CONTAINERS)
    builder.labels(body)
    system = first(body, "system_instruction", "systemInstruction")
    config = first(body, "config", "generation_config")
    if system is None and isinstance(config, dict):
        system = first(config, "system_instruction", "systemInstruction")
    if system is not None:
        _system(builder, system, "system_instruction")
    if isinstance(value, dict) and "contents" not in value:
        # A response of automatic function calling: its history (the calls the SDK ran and
        # their results) comes before the response itself.
        for key in _HISTORY:
            history = value.get(key)
            if history:
                pairs = [(h, f"{key}[{i}]") for i, h in enumerate(arr(history, key))] + pairs
                break
    for raw, at, chunks in _streams.runs(pairs, _is_response, _new_response):
        item = obj(raw, at)
        if chunks:
            _response(builder, _joined(chunks) if len(chunks) > 1 else item, at)
        elif "parts" in item or "role" in item:
            _content(builder, item, at, {})
        else:
            builder.note(at, "item that is neither content nor a response", item)
    return [builder.build()]


def _joined(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """One response from its streamed chunks: the parts of each first candidate in order,
    the last usage metadata (it is cumulative)."""
    merged = dict(chunks[-1])
    parts: list[Any] = []
    for chunk in chunks:
        candidates = chunk.get("candidates")
        head = candidates[0] if isinstance(candidates, list) and candidates else None
        content = head.get("content") if isinstance(head, dict) else None
        if isinstance(content, dict) and isinstance(content.get("parts"), list):
            parts += content["parts"]
    candidates = merged.get("candidates")
    head = candidates[0] if isinstance(candidates, list) and candidates else None
    last = dict(head) if isinstance(head, dict) else {}
    last["content"] = {"role": "model", "parts": parts}
    merged["candidates"] = [last]
    for key in _USAGE:
        usage = [c[key] for c in chunks if c.get(key) is not None]
        if usage:
            merged[key] = usage[-1]
    return merged


def _system(b: TraceBuilder, system: Any, at: str) -> None:
    if isinstance(system, str):
        b.input("system", system, at)
        return
    parts = system.get("parts") if isinstance(system, dict) else None
    if not isinstance(parts, list):
        b.note(at, "system instruction that is not text or content", system)
        return
    texts = [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
    b.input("system", "\n".join(texts), at)


def _response(b: TraceBuilder, item: dict[str, Any], at: str) -> None:
    meta = {
        "model": first(item, "model_version", "modelVersion"),
        "response_id": _response_id(item),
    }
    meta = {k: v for k, v in meta.items() if isinstance(v, str)}
    start = len(b.steps)
    candidates = opt_list(item, "candidates", at)
    for index, raw in enumerate(candidates):
        where = f"{at}.candidates[{index}]"
        candidate = obj(raw, where)
        if index > 0:
            b.note(where, "additional candidate not followed by the conversation", raw)
            continue
        content = candidate.get("content")
        if content is not None and (obj(content, f"{where}.content").get("parts") or None):
            first_step = len(b.steps)
            _content(b, content, f"{where}.content", meta)
            _cite(b, candidate, first_step)
        else:
            reason = first(candidate, "finish_reason", "finishReason")
            b.note(where, f"candidate without content (finish reason {reason})", candidate)
    feedback = first(item, "prompt_feedback", "promptFeedback")
    if isinstance(feedback, dict) and first(feedback, "block_reason", "blockReason"):
        b.note(f"{at}.prompt_feedback", "the prompt was blocked", feedback)
    usage = first(item, *_USAGE)
    where = f"{at}.usage_metadata"
    if usage is not None:
        usage = obj(usage, where)
        input_tokens = add_counts(
            opt_count(usage, _key(usage, "prompt_token_count"), where),
            opt_count(usage, _key(usage, "tool_use_prompt_token_count"), where),
        )
        output_tokens = add_counts(
            opt_count(usage, _key(usage, "candidates_token_count"), where),
            opt_count(usage, _key(usage, "thoughts_token_count"), where),
        )
        b.tokens(start, input_tokens, output_tokens, at)


def _cite(b: TraceBuilder, candidate: dict[str, Any], start: int) -> None:
    """Citation metadata of a candidate, on the first text step it produced."""
    meta = first(candidate, "citation_metadata", "citationMetadata")
    raw = meta.get("citations") if isinstance(meta, dict) else None
    citations = [
        {k: v for k, v in (("source", c.get("title")), ("url", c.get("uri"))) if isinstance(v, str)}
        for c in (raw if isinstance(raw, list) else [])
        if isinstance(c, dict)
    ]
    texts = [s for s in b.steps[start:] if s["type"] == "model_response" and s.get("text")]
    if citations and texts:
        texts[0]["citations"] = citations


def _key(d: dict[str, Any], snake: str) -> str:
    if snake in d:
        return snake
    head, *rest = snake.split("_")
    return head + "".join(word.title() for word in rest)


def _content(b: TraceBuilder, content: dict[str, Any], at: str, meta: dict[str, Any]) -> None:
    # Only the model's own content makes steps; user content (the default role, also for
    # content without one) is input, apart from the function responses it carries.
    model = content.get("role") == "model"
    parts = opt_list(content, "parts", at)
    texts: list[str] = []
    inputs: list[str] = []

    def flush() -> None:
        if texts:
            b.text("".join(texts), at, **meta)
            texts.clear()

    for index, raw in enumerate(parts):
        where = f"{at}.parts[{index}]"
        part = obj(raw, where)
        text = part.get("text")
        if isinstance(text, str) and part.get("thought"):
            b.reasoning(text, where)
        elif isinstance(text, str) and model:
            texts.append(text)
        elif isinstance(text, str):
            inputs.append(text)
        elif not _tool_part(b, part, where, meta, flush):
            present = {k for k, v in part.items() if v is not None}
            if present <= {"thought_signature", "thoughtSignature", "thought"}:
                b.skip(where, "part holding only a thought signature")
            else:
                kind = "part" if model else "input part"
                b.note(where, f"{kind} that is not a step", part)
    flush()
    if inputs:
        b.input("user", "\n".join(inputs), at)


def _tool_part(
    b: TraceBuilder, part: dict[str, Any], where: str, meta: dict[str, Any], flush: Any
) -> bool:
    """Map a part that is a tool call or a tool result; False for any other part."""
    call = first(part, "function_call", "functionCall")
    if call is not None:
        flush()
        call = obj(call, f"{where}.function_call")
        name = opt_str(call, "name", where)
        b.call(opt_str(call, "id", where), name, call.get("args"), f"{where}.args", **meta)
        return True
    reply = first(part, "function_response", "functionResponse")
    if reply is not None:
        _reply(b, obj(reply, f"{where}.function_response"), where)
        return True
    code = first(part, "executable_code", "executableCode")
    if code is not None:
        flush()
        b.call(None, _CODE, code, where, built_in=True, **meta)
        return True
    code_result = first(part, "code_execution_result", "codeExecutionResult")
    if code_result is not None:
        result = obj(code_result, where)
        outcome = first(result, "outcome")
        failed = outcome not in _OK
        error = str(outcome) if failed else None
        output = first(result, "output")
        b.result(None, output, where, is_error=failed, error=error, name=_CODE)
        return True
    server = first(part, "tool_call", "toolCall")
    if server is not None:
        flush()
        server = obj(server, f"{where}.tool_call")
        kind = str(first(server, "tool_type", "toolType") or "server_tool").lower()
        b.call(opt_str(server, "id", where), kind, server.get("args"), where, built_in=True, **meta)
        return True
    answer = first(part, "tool_response", "toolResponse")
    if answer is not None:
        answer = obj(answer, f"{where}.tool_response")
        b.result(opt_str(answer, "id", where), answer.get("response"), where)
        return True
    return False


def _reply(b: TraceBuilder, reply: dict[str, Any], at: str) -> None:
    """The documented convention: `output` holds the result and `error` the failure;
    with neither key the whole response is the output."""
    response = reply.get("response")
    output: Any = response
    error: str | None = None
    if isinstance(response, dict) and ("output" in response or "error" in response):
        output = response.get("output")
        if response.get("error") is not None:
            raw = response["error"]
            error = raw if isinstance(raw, str) else str(raw)
    b.result(
        opt_str(reply, "id", at),
        output,
        at,
        is_error=error is not None,
        error=error,
        name=opt_str(reply, "name", at),
    )


ADAPTER = Adapter(
    name=NAME,
    description="Google Gen AI (Gemini) contents and GenerateContentResponse dumps",
    detect=detect,
    convert=convert,
)
