"""The "anthropic-messages" format: Messages API conversations and Message dumps.

Assistant content blocks map in order (text, then the tool_use it preceded);
`tool_result` blocks (and server-tool result blocks) fill in their call.
"""

from __future__ import annotations

from typing import Any

from ._common import (
    TraceBuilder,
    add_counts,
    any_item,
    items_of,
    obj,
    opt_count,
    opt_obj,
    opt_str,
)
from .base import Adapter

NAME = "anthropic-messages"
CONTAINERS = ("messages",)
_MARKER_BLOCKS = ("tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use")


def _is_marker(item: dict[str, Any]) -> bool:
    if item.get("type") == "message" and ("stop_reason" in item or "usage" in item):
        return True
    content = item.get("content")
    if not isinstance(content, list) or "tool_calls" in item:
        return False
    return any(isinstance(c, dict) and c.get("type") in _MARKER_BLOCKS for c in content[:200])


def detect(value: Any) -> bool:
    """Message dumps (`type: message` with `stop_reason` or `usage`) or messages whose content has
    tool_use, tool_result, thinking or server_tool_use blocks."""
    return any_item(value, CONTAINERS, _is_marker)


def convert(value: Any, name_hint: str) -> list[Any]:
    builder = TraceBuilder(NAME, name_hint)
    pairs, _ = items_of(value, CONTAINERS)
    for item, at in pairs:
        message = obj(item, at)
        role = message.get("role")
        if role == "assistant":
            _assistant(builder, message, at)
        elif role == "user":
            _user(builder, message, at)
        else:
            builder.note(at, "message with an unknown role", message)
    return [builder.build()]


def _assistant(b: TraceBuilder, message: dict[str, Any], at: str) -> None:
    meta = {"model": opt_str(message, "model", at), "response_id": opt_str(message, "id", at)}
    start = len(b.steps)
    content = message.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    elif not isinstance(content, list):
        content = []
        b.note(
            f"{at}.content", "assistant content that is not text or blocks", message.get("content")
        )
    texts: list[str] = []
    citations: list[dict[str, Any]] = []

    def flush() -> None:
        if texts:
            index = b.text("".join(texts), at, **meta)
            if citations:
                b.steps[index]["citations"] = list(citations)
            texts.clear()
            citations.clear()

    for index, raw in enumerate(content):
        where = f"{at}.content[{index}]"
        block = obj(raw, where)
        kind = block.get("type")
        if kind == "text":
            texts.append(opt_str(block, "text", where) or "")
            citations.extend(_citation(c) for c in _list_or_empty(block.get("citations")))
        elif isinstance(kind, str) and kind.endswith("tool_use"):
            flush()
            server = kind != "tool_use"
            b.call(
                opt_str(block, "id", where),
                opt_str(block, "name", where),
                block.get("input"),
                f"{where}.input",
                server_tool=True if server else None,
                **meta,
            )
        elif isinstance(kind, str) and kind.endswith("tool_result"):
            _result(b, block, where)
        else:
            b.note(where, f"{kind or 'untyped'} block is not a step", block)
    flush()
    usage = opt_obj(message, "usage", at)
    where = f"{at}.usage"
    input_tokens = add_counts(
        opt_count(usage, "input_tokens", where),
        opt_count(usage, "cache_creation_input_tokens", where),
        opt_count(usage, "cache_read_input_tokens", where),
    )
    b.tokens(start, input_tokens, opt_count(usage, "output_tokens", where), at)


def _user(b: TraceBuilder, message: dict[str, Any], at: str) -> None:
    content = message.get("content")
    if not isinstance(content, list):
        return
    for index, raw in enumerate(content):
        if isinstance(raw, dict) and raw.get("type") == "tool_result":
            _result(b, raw, f"{at}.content[{index}]")


def _result(b: TraceBuilder, block: dict[str, Any], at: str) -> None:
    content = block.get("content")
    is_error = bool(block.get("is_error"))
    error: str | None = None
    if isinstance(content, list) and all(
        isinstance(c, dict) and c.get("type") == "text" for c in content
    ):
        content = "\n".join(str(c.get("text", "")) for c in content)
    elif isinstance(content, dict) and str(content.get("type", "")).endswith("_error"):
        is_error = True
        error = str(content.get("error_code") or content.get("type"))
    b.result(opt_str(block, "tool_use_id", at), content, at, is_error=is_error, error=error)


def _list_or_empty(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _citation(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        return {"source": str(raw)}
    found = {
        "source": raw.get("document_title") or raw.get("title"),
        "url": raw.get("url"),
        "quote": raw.get("cited_text"),
    }
    return {k: v for k, v in found.items() if v is not None}


ADAPTER = Adapter(
    name=NAME,
    description="Anthropic Messages API conversations and Message dumps",
    detect=detect,
    convert=convert,
)
