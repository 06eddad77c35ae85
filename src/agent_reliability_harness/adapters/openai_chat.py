"""The "openai-chat" format: Chat Completions message lists and ChatCompletion dumps.

Assistant turns become a text step then their tool calls; `role: tool` (and
legacy `role: function`) messages fill in the matching call's output.
"""

from __future__ import annotations

from typing import Any

from ._common import (
    TraceBuilder,
    any_item,
    arr,
    items_of,
    obj,
    opt_count,
    opt_list,
    opt_obj,
    opt_str,
    text_parts,
)
from .base import Adapter

NAME = "openai-chat"
CONTAINERS = ("messages",)
_INPUT_ROLES = ("system", "developer", "user")
_TEXT_KINDS = ("text", "output_text")


def _is_marker(item: dict[str, Any]) -> bool:
    if item.get("object") == "chat.completion" or isinstance(item.get("choices"), list):
        return True
    if item.get("role") in ("tool", "function", "developer"):
        return True
    return item.get("role") == "assistant" and ("tool_calls" in item or "function_call" in item)


def detect(value: Any) -> bool:
    """A message list (or request body) with a tool/function message, assistant tool_calls,
    the developer role, or ChatCompletion dumps (`choices`)."""
    return any_item(value, CONTAINERS, _is_marker)


def convert(value: Any, name_hint: str) -> list[Any]:
    builder = TraceBuilder(NAME, name_hint)
    pairs, _ = items_of(value, CONTAINERS)
    for item, at in pairs:
        _item(builder, obj(item, at), at)
    return [builder.build()]


def _item(b: TraceBuilder, item: dict[str, Any], at: str) -> None:
    if "choices" in item:
        _completion(b, item, at)
        return
    role = item.get("role")
    if role == "assistant":
        _assistant(b, item, at, {})
    elif role == "tool":
        b.result(opt_str(item, "tool_call_id", at), _content(b, item, at), at)
    elif role == "function":
        b.result(None, _content(b, item, at), at, name=opt_str(item, "name", at))
    elif role not in _INPUT_ROLES:
        b.note(at, "message with an unknown role", item)


def _completion(b: TraceBuilder, item: dict[str, Any], at: str) -> None:
    choices = arr(item.get("choices"), f"{at}.choices")
    meta = {"model": opt_str(item, "model", at), "response_id": opt_str(item, "id", at)}
    start = len(b.steps)
    if not choices:
        b.note(f"{at}.choices", "completion without choices")
    for index, choice in enumerate(choices):
        where = f"{at}.choices[{index}]"
        if index > 0:
            b.note(where, "additional choice not followed by the conversation", choice)
            continue
        message = opt_obj(obj(choice, where), "message", where)
        if message is not None:
            _assistant(b, message, f"{where}.message", meta)
    usage = opt_obj(item, "usage", at)
    where = f"{at}.usage"
    b.tokens(
        start,
        opt_count(usage, "prompt_tokens", where),
        opt_count(usage, "completion_tokens", where),
        at,
    )


def _assistant(b: TraceBuilder, message: dict[str, Any], at: str, meta: dict[str, Any]) -> None:
    content = message.get("content")
    if isinstance(content, list):
        content = text_parts(content, f"{at}.content", _TEXT_KINDS, b)
    if isinstance(content, str) and content:
        b.text(content, at, **meta)
    elif content is not None and not isinstance(content, str):
        b.note(f"{at}.content", "assistant content that is not text", content)
    refusal = opt_str(message, "refusal", at)
    if refusal:
        b.text(refusal, f"{at}.refusal", refusal=True, **meta)
    for index, raw in enumerate(opt_list(message, "tool_calls", at)):
        where = f"{at}.tool_calls[{index}]"
        call = obj(raw, where)
        call_id = opt_str(call, "id", where)
        function = opt_obj(call, "function", where)
        if function is not None:
            name = opt_str(function, "name", f"{where}.function")
            b.call(call_id, name, function.get("arguments"), f"{where}.function.arguments", **meta)
            continue
        custom = opt_obj(call, "custom", where)
        name = opt_str(custom, "name", f"{where}.custom") if custom else None
        b.call(call_id, name, None, where, **meta)
        b.note(where, "tool call whose input is not JSON arguments", call)
    legacy = opt_obj(message, "function_call", at)
    if legacy is not None:
        where = f"{at}.function_call"
        b.call(
            None,
            opt_str(legacy, "name", where),
            legacy.get("arguments"),
            f"{where}.arguments",
            **meta,
        )


def _content(b: TraceBuilder, message: dict[str, Any], at: str) -> Any:
    """Tool output: a string as is, a list of text parts joined by newlines, else raw."""
    content = message.get("content")
    if isinstance(content, list):
        if all(isinstance(p, dict) and p.get("type") in _TEXT_KINDS for p in content):
            return text_parts(content, f"{at}.content", _TEXT_KINDS, b, "\n")
        return content
    return content


ADAPTER = Adapter(
    name=NAME,
    description="OpenAI Chat Completions message lists and ChatCompletion dumps",
    detect=detect,
    convert=convert,
)
