"""The "cohere-chat" format: Cohere Chat v2 message lists and chat response dumps.

Cohere v2 shares OpenAI's wire shape (tool_calls, role "tool"), so detection
looks only for what OpenAI never sends: tool_plan, document tool content,
billed_units usage, and a response dump with `message` instead of `choices`.
"""

from __future__ import annotations

from typing import Any

from ..core.base import Adapter
from ..core.common import (
    TraceBuilder,
    any_item,
    items_of,
    obj,
    opt_count,
    opt_list,
    opt_obj,
    opt_str,
)
from . import _streams

NAME = "cohere-chat"
CONTAINERS = ("messages",)
TRAILERS = ("response",)
_TEXT_KINDS = ("text",)


def _is_marker(item: dict[str, Any]) -> bool:
    if "tool_plan" in item:
        return True
    if "finish_reason" in item and isinstance(item.get("message"), dict) and "choices" not in item:
        return True
    if item.get("type") == "message-start" and "role" not in item:
        return True
    usage = item.get("usage")
    if isinstance(usage, dict) and "billed_units" in usage:
        return True
    content = item.get("content")
    return (
        item.get("role") == "tool"
        and isinstance(content, list)
        and any(isinstance(c, dict) and c.get("type") == "document" for c in content[:200])
    )


def detect(value: Any) -> bool:
    """An assistant message with `tool_plan`, a tool message with document content, chat
    response dumps (`finish_reason` + `message`, usage with `billed_units`) or streamed
    events (`message-start`)."""
    return any_item(value, CONTAINERS, _is_marker)


def convert(value: Any, name_hint: str) -> list[Any]:
    builder = TraceBuilder(NAME, name_hint)
    pairs, body = items_of(value, CONTAINERS, TRAILERS)
    builder.labels(body)
    for raw, at, events in _streams.runs(pairs, _streams.is_cohere_event, _new_message):
        if events:
            _response(builder, _streams.merge_cohere_events(events), at)
            continue
        item = obj(raw, at)
        if isinstance(item.get("message"), dict) and "role" not in item:
            _response(builder, item, at)
            continue
        role = item.get("role")
        if role == "assistant":
            _assistant(builder, item, at, {})
        elif role == "tool":
            builder.result(opt_str(item, "tool_call_id", at), _tool_content(builder, item, at), at)
        elif role in ("user", "system"):
            builder.input(str(role), _input_text(builder, item.get("content"), at), at)
        else:
            builder.note(at, "message with an unknown role", item)
    return [builder.build()]


def _new_message(event: dict[str, Any], first: dict[str, Any]) -> bool:
    return event.get("type") == "message-start"


def _response(b: TraceBuilder, item: dict[str, Any], at: str) -> None:
    start = len(b.steps)
    meta = {"response_id": opt_str(item, "id", at)}
    _assistant(b, obj(item["message"], f"{at}.message"), f"{at}.message", meta)
    usage = opt_obj(item, "usage", at)
    tokens = opt_obj(usage, "tokens", f"{at}.usage") if usage else None
    where = f"{at}.usage.tokens"
    b.tokens(
        start,
        opt_count(tokens, "input_tokens", where),
        opt_count(tokens, "output_tokens", where),
        at,
    )


def _assistant(b: TraceBuilder, message: dict[str, Any], at: str, meta: dict[str, Any]) -> None:
    before = b.mapped
    plan = opt_str(message, "tool_plan", at)
    if plan:
        b.text(plan, f"{at}.tool_plan", tool_plan=True, **meta)
    content = message.get("content")
    texts: list[str] = []
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for index, part in enumerate(content):
            where = f"{at}.content[{index}]"
            kind = part.get("type") if isinstance(part, dict) else None
            if isinstance(part, dict) and kind == "text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif isinstance(part, dict) and kind == "thinking":
                thinking = part.get("thinking")
                b.reasoning(thinking if isinstance(thinking, str) else None, where)
            else:
                b.note(where, "content part that is not text", part)
    elif content is not None:
        b.note(f"{at}.content", "assistant content that is not text", content)
    text = "".join(texts)
    if text:
        index = b.text(text, at, **meta)
        citations = [_citation(c) for c in opt_list(message, "citations", at)]
        if citations:
            b.steps[index]["citations"] = citations
    for index, raw in enumerate(opt_list(message, "tool_calls", at)):
        where = f"{at}.tool_calls[{index}]"
        call = obj(raw, where)
        function = opt_obj(call, "function", where) or {}
        b.call(
            opt_str(call, "id", where),
            opt_str(function, "name", f"{where}.function"),
            function.get("arguments"),
            f"{where}.function.arguments",
            **meta,
        )
    if b.mapped == before:
        b.skip(at, "assistant message without content")


def _tool_content(b: TraceBuilder, item: dict[str, Any], at: str) -> Any:
    """Text parts joined; documents as their data (one document: its data alone)."""
    content = item.get("content")
    if not isinstance(content, list):
        return content
    if all(isinstance(c, dict) and c.get("type") == "text" for c in content):
        return "\n".join(str(c.get("text") or "") for c in content)
    if all(isinstance(c, dict) and c.get("type") == "document" for c in content):
        data = [
            (c.get("document") or {}).get("data") if isinstance(c.get("document"), dict) else None
            for c in content
        ]
        return data[0] if len(data) == 1 else data
    return content


def _input_text(b: TraceBuilder, content: Any, at: str) -> str:
    if content is None or isinstance(content, str):
        return content or ""
    if not isinstance(content, list):
        b.note(f"{at}.content", "input content that is not text", content)
        return ""
    texts = []
    for index, part in enumerate(content):
        if isinstance(part, dict) and part.get("type") == "text":
            texts.append(str(part.get("text") or ""))
        else:
            b.note(f"{at}.content[{index}]", "input part that is not text", part)
    return "\n".join(texts)


def _citation(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        return {"source": str(raw)}
    raw_sources = raw.get("sources")
    sources: list[Any] = raw_sources if isinstance(raw_sources, list) else []
    ids = [str(s["id"]) for s in sources if isinstance(s, dict) and isinstance(s.get("id"), str)]
    found: dict[str, Any] = {"source": ", ".join(ids) if ids else None, "quote": raw.get("text")}
    return {k: v for k, v in found.items() if v is not None}


ADAPTER = Adapter(
    name=NAME,
    description="Cohere Chat v2 message lists and chat response dumps",
    detect=detect,
    convert=convert,
)
