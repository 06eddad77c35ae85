"""The "google-genai" format: Gemini `contents` and GenerateContentResponse dumps.

Accepts the SDK's snake_case dumps and the REST camelCase wire form. Model parts
map in order; `function_response` parts fill in their call (by id, else by name).
"""

from __future__ import annotations

from typing import Any

from ._common import (
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
from .base import Adapter

NAME = "google-genai"
CONTAINERS = ("contents",)
_HISTORY = ("automatic_function_calling_history", "automaticFunctionCallingHistory")
_CODE = "code_execution"


def _is_marker(item: dict[str, Any]) -> bool:
    if isinstance(item.get("parts"), list):
        return True
    return (
        isinstance(item.get("candidates"), list)
        or "usage_metadata" in item
        or "usageMetadata" in item
    )


def detect(value: Any) -> bool:
    """Contents (objects with `parts`) or response dumps (`candidates`, usage metadata)."""
    return any_item(value, CONTAINERS, _is_marker)


def convert(value: Any, name_hint: str) -> list[Any]:
    builder = TraceBuilder(NAME, name_hint)
    pairs, _ = items_of(value, CONTAINERS)
    if isinstance(value, dict) and "contents" not in value:
        # A response of automatic function calling: its history (the calls the SDK ran and
        # their results) comes before the response itself.
        for key in _HISTORY:
            history = value.get(key)
            if history:
                pairs = [(h, f"{key}[{i}]") for i, h in enumerate(arr(history, key))] + pairs
                break
    for raw, at in pairs:
        item = obj(raw, at)
        if "parts" in item or "role" in item:
            _content(builder, item, at, {})
        elif "candidates" in item or "usage_metadata" in item or "usageMetadata" in item:
            _response(builder, item, at)
        else:
            builder.note(at, "item that is neither content nor a response", item)
    return [builder.build()]


def _response(b: TraceBuilder, item: dict[str, Any], at: str) -> None:
    meta = {
        "model": first(item, "model_version", "modelVersion"),
        "response_id": first(item, "response_id", "responseId"),
    }
    meta = {k: v for k, v in meta.items() if isinstance(v, str)}
    start = len(b.steps)
    candidates = opt_list(item, "candidates", at)
    for index, raw in enumerate(candidates):
        where = f"{at}.candidates[{index}]"
        if index > 0:
            b.note(where, "additional candidate not followed by the conversation", raw)
            continue
        content = obj(raw, where).get("content")
        if content is not None:
            _content(b, obj(content, f"{where}.content"), f"{where}.content", meta)
    usage = first(item, "usage_metadata", "usageMetadata")
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

    def flush() -> None:
        if texts:
            b.text("".join(texts), at, **meta)
            texts.clear()

    for index, raw in enumerate(parts):
        where = f"{at}.parts[{index}]"
        part = obj(raw, where)
        call = first(part, "function_call", "functionCall")
        reply = first(part, "function_response", "functionResponse")
        code = first(part, "executable_code", "executableCode")
        code_result = first(part, "code_execution_result", "codeExecutionResult")
        if isinstance(part.get("text"), str) and model:
            if part.get("thought"):
                b.note(where, "thought part is not a step", part)
            else:
                texts.append(part["text"])
        elif call is not None:
            flush()
            call = obj(call, f"{where}.function_call")
            b.call(
                opt_str(call, "id", where),
                opt_str(call, "name", where),
                call.get("args"),
                f"{where}.args",
                **meta,
            )
        elif reply is not None:
            _reply(b, obj(reply, f"{where}.function_response"), where)
        elif code is not None:
            flush()
            b.call(None, _CODE, code, where, built_in=True, **meta)
        elif code_result is not None:
            result = obj(code_result, where)
            outcome = first(result, "outcome")
            failed = outcome not in (None, "OUTCOME_OK")
            b.result(
                None,
                first(result, "output"),
                where,
                is_error=failed,
                error=str(outcome) if failed else None,
                name=_CODE,
            )
        elif model:
            b.note(where, "part that is not a step", part)
    flush()


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
