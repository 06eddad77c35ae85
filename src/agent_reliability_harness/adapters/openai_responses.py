"""The "openai-responses" format: Responses API item lists (`input`) and Response dumps.

Items map in order: assistant `message` -> text step, `function_call` -> call,
`*_output` items -> the matching call's result, built-in `*_call` -> call + result.
"""

from __future__ import annotations

from typing import Any

from ._common import (
    TraceBuilder,
    any_item,
    items_of,
    obj,
    opt_count,
    opt_list,
    opt_obj,
    opt_str,
    text_parts,
)
from .base import Adapter

NAME = "openai-responses"
CONTAINERS = ("input", "output", "data")
_TEXT_KINDS = ("output_text", "input_text", "text")
_MARKER_TYPES = ("function_call", "function_call_output", "reasoning", "custom_tool_call")
_MARKER_PARTS = ("output_text", "input_text")
_FAILED = ("failed", "incomplete")


def _is_marker(item: dict[str, Any]) -> bool:
    if item.get("object") == "response":
        return True
    if item.get("type") in _MARKER_TYPES:
        return True
    content = item.get("content")
    return (
        item.get("type") == "message"
        and isinstance(content, list)
        and any(isinstance(c, dict) and c.get("type") in _MARKER_PARTS for c in content[:200])
    )


def detect(value: Any) -> bool:
    """Response dumps (`object: response`), typed items (function_call,
    function_call_output, reasoning, custom_tool_call), or `type: message` items whose
    content has output_text/input_text parts."""
    return any_item(value, CONTAINERS, _is_marker)


def convert(value: Any, name_hint: str) -> list[Any]:
    builder = TraceBuilder(NAME, name_hint)
    pairs, _ = items_of(value, CONTAINERS)
    seen: set[str] = set()
    for raw, at in pairs:
        item = obj(raw, at)
        if item.get("object") == "response":
            _response(builder, item, at, seen)
        else:
            _item(builder, item, at, {}, seen)
    return [builder.build()]


def _response(b: TraceBuilder, response: dict[str, Any], at: str, seen: set[str]) -> None:
    meta = {"model": opt_str(response, "model", at), "response_id": opt_str(response, "id", at)}
    start = len(b.steps)
    for index, item in enumerate(opt_list(response, "output", at)):
        where = f"{at}.output[{index}]"
        _item(b, obj(item, where), where, meta, seen)
    error = opt_obj(response, "error", at)
    if error is not None:
        b.note(f"{at}.error", "the response failed", error)
    usage = opt_obj(response, "usage", at)
    where = f"{at}.usage"
    b.tokens(
        start, opt_count(usage, "input_tokens", where), opt_count(usage, "output_tokens", where), at
    )


def _item(
    b: TraceBuilder, item: dict[str, Any], at: str, meta: dict[str, Any], seen: set[str]
) -> None:
    item_id = opt_str(item, "id", at)
    if item_id is not None:
        if item_id in seen:
            b.note(at, "item repeated (already mapped)", item_id)
            return
        seen.add(item_id)
    kind = item.get("type")
    role = item.get("role")
    if kind in (None, "message"):
        if role == "assistant":
            _message(b, item, at, meta)
        elif role not in ("user", "system", "developer"):
            b.note(at, "item of an unknown kind", item)
    elif kind == "function_call":
        b.call(
            opt_str(item, "call_id", at),
            opt_str(item, "name", at),
            item.get("arguments"),
            f"{at}.arguments",
            item_id=item_id,
            **meta,
        )
    elif kind == "custom_tool_call":
        b.call(opt_str(item, "call_id", at), opt_str(item, "name", at), None, at, **meta)
        b.note(f"{at}.input", "custom tool input is not JSON arguments", item.get("input"))
    elif isinstance(kind, str) and kind.endswith("_output"):
        b.result(opt_str(item, "call_id", at), _output(b, item.get("output"), f"{at}.output"), at)
    elif kind == "reasoning":
        b.note(at, "reasoning item is not a step", item)
    elif isinstance(kind, str) and kind.endswith("_call"):
        _builtin(b, item, kind, at, meta)
    else:
        b.note(at, "item of an unknown kind", item)


def _message(b: TraceBuilder, item: dict[str, Any], at: str, meta: dict[str, Any]) -> None:
    content = item.get("content")
    if isinstance(content, list):
        refusals = [c for c in content if isinstance(c, dict) and c.get("type") == "refusal"]
        parts = [c for c in content if not (isinstance(c, dict) and c.get("type") == "refusal")]
        text = text_parts(parts, f"{at}.content", _TEXT_KINDS, b)
        if text:
            b.text(text, at, **meta)
        for refusal in refusals:
            b.text(opt_str(refusal, "refusal", at), f"{at}.content", refusal=True, **meta)
    elif isinstance(content, str) and content:
        b.text(content, at, **meta)


def _builtin(
    b: TraceBuilder, item: dict[str, Any], kind: str, at: str, meta: dict[str, Any]
) -> None:
    """Hosted tools (web_search_call, mcp_call, ...) carry call and outcome in one item."""
    name = opt_str(item, "name", at) or kind.removesuffix("_call")
    args = item.get("arguments") if "arguments" in item else item.get("action")
    call_id = opt_str(item, "call_id", at) or opt_str(item, "id", at)
    index = b.call(call_id, name, args, f"{at}.arguments", built_in=True, **meta)
    status = opt_str(item, "status", at)
    error = item.get("error")
    output = item.get("output")
    if error is not None or status in _FAILED:
        b.steps[index]["status"] = "error"
        b.steps[index]["error"] = str(error) if error is not None else f"status {status}"
    if output is not None:
        b.steps[index]["output"] = output


def _output(b: TraceBuilder, output: Any, at: str) -> Any:
    if isinstance(output, list) and all(
        isinstance(p, dict) and p.get("type") in _TEXT_KINDS for p in output
    ):
        return text_parts(output, at, _TEXT_KINDS, b, "\n")
    return output


ADAPTER = Adapter(
    name=NAME,
    description="OpenAI Responses API input item lists and Response dumps",
    detect=detect,
    convert=convert,
)
