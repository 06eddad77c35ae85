"""Streamed responses, saved as their chunks or events, joined back into the one response
each stream delivers (OpenAI chat chunks, Anthropic message events, Cohere v2 events).

Joining follows the vendors' documented accumulation: text deltas concatenate, tool
calls gather by index, the last usage seen wins (it is cumulative in every stream).
"""

from __future__ import annotations

from typing import Any

CHAT_CHUNK = "chat.completion.chunk"
ANTHROPIC_EVENTS = (
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
)
COHERE_EVENTS = (
    "message-start",
    "content-start",
    "content-delta",
    "content-end",
    "tool-plan-delta",
    "tool-call-start",
    "tool-call-delta",
    "tool-call-end",
    "citation-start",
    "citation-end",
    "message-end",
    "debug",
)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def is_chat_chunk(item: Any) -> bool:
    return isinstance(item, dict) and item.get("object") == CHAT_CHUNK


def merge_chat_chunks(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """One ChatCompletion dump from the chunks of one stream (first choice followed)."""
    head = chunks[0]
    message: dict[str, Any] = {"role": "assistant", "content": None}
    calls: dict[int, dict[str, Any]] = {}
    usage: Any = None
    extra: list[Any] = []
    for chunk in chunks:
        if chunk.get("usage") is not None:
            usage = chunk["usage"]
        choices = chunk.get("choices")
        for raw_choice in choices if isinstance(choices, list) else []:
            choice = _dict(raw_choice)
            if choice.get("index", 0) != 0:
                extra.append(choice)
                continue
            delta = _dict(choice.get("delta"))
            for key in ("content", "refusal", "reasoning_content", "reasoning"):
                if isinstance(delta.get(key), str):
                    message[key] = _text(message.get(key)) + delta[key]
            for raw in _list(delta.get("tool_calls")):
                _merge_call(calls, _dict(raw))
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    merged: dict[str, Any] = {
        "id": head.get("id"),
        "object": "chat.completion",
        "model": head.get("model"),
        "choices": [{"index": 0, "message": message}, *extra],
    }
    if usage is not None:
        merged["usage"] = usage
    return merged


def _merge_call(calls: dict[int, dict[str, Any]], delta: dict[str, Any]) -> None:
    index = delta.get("index")
    index = index if isinstance(index, int) else len(calls)
    call = calls.setdefault(index, {"id": None, "type": "function", "function": {}})
    if isinstance(delta.get("id"), str):
        call["id"] = delta["id"]
    function = _dict(delta.get("function"))
    target = call["function"]
    if isinstance(function.get("name"), str):
        target["name"] = _text(target.get("name")) + function["name"]
    if isinstance(function.get("arguments"), str):
        target["arguments"] = _text(target.get("arguments")) + function["arguments"]


def is_anthropic_event(item: Any) -> bool:
    return isinstance(item, dict) and item.get("type") in ANTHROPIC_EVENTS and "role" not in item


def merge_anthropic_events(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The Message a stream of Messages API events delivers (None without message_start)."""
    message: dict[str, Any] | None = None
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    for event in events:
        kind = event.get("type")
        if kind == "message_start":
            message = dict(_dict(event.get("message")))
            message["content"] = list(_list(message.get("content")))
        elif kind == "content_block_start":
            blocks[_index(event, blocks)] = dict(_dict(event.get("content_block")))
        elif kind == "content_block_delta":
            _anthropic_delta(blocks, partial, _index(event, blocks), _dict(event.get("delta")))
        elif kind == "message_delta" and message is not None:
            delta = _dict(event.get("delta"))
            message.update({k: v for k, v in delta.items() if v is not None})
            usage = _dict(event.get("usage"))
            message["usage"] = {
                **_dict(message.get("usage")),
                **{k: v for k, v in usage.items() if v is not None},
            }
    if message is None:
        return None
    for index, text in partial.items():
        if index in blocks:
            blocks[index]["input"] = text  # JSON text; decoded (or noted) like any arguments
    message["content"] += [blocks[i] for i in sorted(blocks)]
    return message


def _index(event: dict[str, Any], blocks: dict[int, Any]) -> int:
    index = event.get("index")
    return index if isinstance(index, int) else len(blocks)


def _anthropic_delta(
    blocks: dict[int, dict[str, Any]], partial: dict[int, str], index: int, delta: dict[str, Any]
) -> None:
    block = blocks.setdefault(index, {"type": "text", "text": ""})
    kind = delta.get("type")
    if kind == "text_delta":
        block["text"] = _text(block.get("text")) + _text(delta.get("text"))
    elif kind == "thinking_delta":
        block["thinking"] = _text(block.get("thinking")) + _text(delta.get("thinking"))
    elif kind == "signature_delta":
        block["signature"] = _text(delta.get("signature"))
    elif kind == "input_json_delta":
        partial[index] = partial.get(index, "") + _text(delta.get("partial_json"))
    elif kind == "citations_delta":
        block.setdefault("citations", []).append(delta.get("citation"))


def is_cohere_event(item: Any) -> bool:
    return isinstance(item, dict) and item.get("type") in COHERE_EVENTS and "role" not in item


def merge_cohere_events(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The chat response (`{id, finish_reason, message, usage}`) a v2 stream delivers."""
    message: dict[str, Any] = {"role": "assistant"}
    texts: dict[int, dict[str, Any]] = {}
    calls: dict[int, dict[str, Any]] = {}
    response: dict[str, Any] = {"id": None, "message": message}
    for event in events:
        kind, delta = event.get("type"), _dict(event.get("delta"))
        body = _dict(delta.get("message"))
        raw_index = event.get("index")
        index = raw_index if isinstance(raw_index, int) else 0
        if kind == "message-start":
            response["id"] = event.get("id")
        elif kind in ("content-start", "content-delta"):
            part = _dict(body.get("content"))
            entry = texts.setdefault(index, {"type": part.get("type") or "text"})
            for key in ("text", "thinking"):
                if isinstance(part.get(key), str):
                    entry[key] = _text(entry.get(key)) + part[key]
        elif kind == "tool-plan-delta":
            message["tool_plan"] = _text(message.get("tool_plan")) + _text(body.get("tool_plan"))
        elif kind in ("tool-call-start", "tool-call-delta"):
            raw = _dict(body.get("tool_calls"))
            call = calls.setdefault(index, {"id": None, "type": "function", "function": {}})
            if isinstance(raw.get("id"), str):
                call["id"] = raw["id"]
            function = _dict(raw.get("function"))
            for key in ("name", "arguments"):
                if isinstance(function.get(key), str):
                    call["function"][key] = _text(call["function"].get(key)) + function[key]
        elif kind == "citation-start":
            message.setdefault("citations", []).append(body.get("citations"))
        elif kind == "message-end":
            response["finish_reason"] = delta.get("finish_reason")
            if delta.get("usage") is not None:
                response["usage"] = delta["usage"]
    if texts:
        message["content"] = [texts[i] for i in sorted(texts)]
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return response


def runs(pairs: list[tuple[Any, str]], test: Any, starts: Any) -> list[tuple[Any, str, list[Any]]]:
    """Group consecutive stream items (those passing `test`) into (first item, its
    location, the group), a new group where `starts(item, first item)`; any other item
    stands alone as (item, location, [])."""
    grouped: list[tuple[Any, str, list[Any]]] = []
    alone: list[Any] = []  # shared by every lone item: never appended to
    for item, at in pairs:
        if not test(item):
            grouped.append((item, at, alone))
            continue
        if grouped and grouped[-1][2] and not starts(item, grouped[-1][0]):
            grouped[-1][2].append(item)
        else:
            grouped.append((item, at, [item]))
    return grouped
