"""The "anthropic-messages" format: Messages API conversations and Message dumps.

Assistant content blocks map in order (text, then the tool_use it preceded);
`tool_result` blocks (and server-tool result blocks) fill in their call. Also read:
streamed events, `{system, messages, responses}` bundles (usage from `responses`),
and Message dumps split one entry per content block (usage counted once per id).
"""

from __future__ import annotations

from typing import Any

from ..core.base import Adapter
from ..core.common import (
    TraceBuilder,
    add_counts,
    any_item,
    any_trailer,
    arr,
    items_of,
    obj,
    opt_count,
    opt_obj,
    opt_str,
)
from . import _streams

NAME = "anthropic-messages"
CONTAINERS = ("messages",)
_MARKER_BLOCKS = ("tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use")


def _is_marker(item: dict[str, Any]) -> bool:
    if item.get("type") == "message" and ("stop_reason" in item or "usage" in item):
        return True
    if item.get("type") == "message_start" and isinstance(item.get("message"), dict):
        return True
    content = item.get("content")
    if not isinstance(content, list) or "tool_calls" in item:
        return False
    return any(isinstance(c, dict) and c.get("type") in _MARKER_BLOCKS for c in content[:200])


def detect(value: Any) -> bool:
    """Message dumps (`type: message` with `stop_reason` or `usage`), streamed events
    (`message_start`), or messages whose content has tool_use, tool_result, thinking or
    server_tool_use blocks; also a `{messages, responses}` bundle whose responses carry them
    (its messages may be plain text)."""
    return any_item(value, CONTAINERS, _is_marker) or any_trailer(
        value, CONTAINERS, ("responses",), _is_marker
    )


def convert(value: Any, name_hint: str) -> list[Any]:
    builder = TraceBuilder(NAME, name_hint)
    pairs, body = items_of(value, CONTAINERS)
    builder.labels(body)
    walk = _Walk(builder)
    if "system" in body:
        walk.system(body["system"], "system")
    responses = _responses(body)
    walk.align(pairs, responses)
    for item, at, events in _streams.runs(pairs, _streams.is_anthropic_event, _new_message):
        if events:
            merged = _streams.merge_anthropic_events(events)
            if merged is None:
                builder.note(at, "stream events without message_start", events)
            else:
                walk.message(merged, at)
        else:
            walk.message(obj(item, at), at)
    for index, (response, at) in enumerate(responses):
        if index not in walk.used:
            walk.message(response, at)
    return [builder.build()]


def _new_message(event: dict[str, Any], first: dict[str, Any]) -> bool:
    return event.get("type") == "message_start"


def _responses(body: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    raw = body.get("responses")
    if raw is None:
        return []
    return [
        (obj(r, f"responses[{i}]"), f"responses[{i}]") for i, r in enumerate(arr(raw, "responses"))
    ]


class _Walk:
    """One conversation: message ids already counted (entries of one message share its
    id and usage) and the `responses` of a bundle matched to its assistant messages."""

    def __init__(self, builder: TraceBuilder) -> None:
        self.b = builder
        self.blocks: dict[str, list[Any]] = {}  # message id -> content blocks already mapped
        self.matched: dict[str, tuple[int, dict[str, Any]]] = {}  # location -> response
        self.used: set[int] = set()

    def align(
        self, pairs: list[tuple[Any, str]], responses: list[tuple[dict[str, Any], str]]
    ) -> None:
        """Match each response of a bundle to the assistant message it is: the same id, else
        the same content (text, thinking, tool_use ids), else a shared tool_use id. Order
        alone never matches: a response that is none of the messages is mapped after them."""
        if not responses:
            return
        by_id = {r["id"]: i for i, (r, _) in enumerate(responses) if isinstance(r.get("id"), str)}
        keys = [_content_key(r.get("content")) for r, _ in responses]
        for item, at in pairs:
            if not isinstance(item, dict) or item.get("role") != "assistant":
                continue
            own = item.get("id")
            index = by_id.get(own) if isinstance(own, str) else None
            if index is None or index in self.used:
                index = self.same_content(_content_key(item.get("content")), keys)
            if index is not None:
                self.used.add(index)
                self.matched[at] = (index, responses[index][0])

    def same_content(self, key: tuple[Any, ...], keys: list[tuple[Any, ...]]) -> int | None:
        """The first unmatched response with this content (also once the thinking blocks a
        request may leave out are set aside), else one sharing a tool_use id."""
        free = [i for i in range(len(keys)) if i not in self.used]
        for index in free:
            if key and keys[index] == key:
                return index
        for index in free:
            if _said(key) and _said(keys[index]) == _said(key):
                return index
        uses = _tool_use_ids(key)
        for index in free:
            if uses & _tool_use_ids(keys[index]):
                return index
        return None

    def system(self, system: Any, at: str) -> None:
        text = _joined_text(self.b, system, at)
        if text is not None:
            self.b.input("system", text, at)

    def message(self, message: dict[str, Any], at: str) -> None:
        role = message.get("role")
        if role == "assistant":
            self.assistant(message, at)
        elif role == "user":
            self.user(message, at)
        elif role == "system":
            self.system(message.get("content"), f"{at}.content")
        else:
            self.b.note(at, "message with an unknown role", message)

    def assistant(self, message: dict[str, Any], at: str) -> None:
        b = self.b
        response = self.matched.get(at, (None, {}))[1]
        ids = opt_str(message, "id", at) or opt_str(response, "id", at)
        model = opt_str(message, "model", at) or opt_str(response, "model", at)
        meta = {"model": model, "response_id": ids}
        start, before = len(b.steps), b.mapped
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        elif not isinstance(content, list):
            b.note(f"{at}.content", "assistant content that is not text or blocks", content)
            content = []
        self.blocks_of(content, ids, at, meta)
        if "tool_calls" in message:
            b.note(
                f"{at}.tool_calls", "tool_calls is not an Anthropic field", message["tool_calls"]
            )
        usage = opt_obj(message, "usage", at) or opt_obj(response, "usage", at)
        where = f"{at}.usage"
        input_tokens = add_counts(
            opt_count(usage, "input_tokens", where),
            opt_count(usage, "cache_creation_input_tokens", where),
            opt_count(usage, "cache_read_input_tokens", where),
        )
        output_tokens = opt_count(usage, "output_tokens", where)
        if b.mapped == before and len(b.steps) == start and usage is None:
            b.skip(at, "assistant message without content")
        b.tokens(start, input_tokens, output_tokens, at, key=ids)

    def blocks_of(
        self, content: list[Any], message_id: str | None, at: str, meta: dict[str, Any]
    ) -> None:
        b = self.b
        texts: list[str] = []
        citations: list[dict[str, Any]] = []
        # Only blocks of an earlier entry of this message id repeat: equal blocks within one
        # entry are the message's own (a text written in pieces).
        earlier = list(self.blocks.get(message_id, [])) if message_id else []

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
            if message_id:
                self.blocks.setdefault(message_id, []).append(block)
            if block in earlier:
                b.skip(where, "content block repeated in another entry of its message")
                continue
            kind = block.get("type")
            if kind == "text":
                texts.append(opt_str(block, "text", where) or "")
                citations.extend(_citation(c) for c in _list_or_empty(block.get("citations")))
            elif kind in ("thinking", "redacted_thinking"):
                thinking = block.get("thinking") if kind == "thinking" else None
                b.reasoning(thinking if isinstance(thinking, str) else None, where)
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
                flush()
                _result(b, block, where)
            else:
                b.note(where, f"{kind or 'untyped'} block is not a step", block)
        flush()

    def user(self, message: dict[str, Any], at: str) -> None:
        b = self.b
        content = message.get("content")
        if not isinstance(content, list):
            text = _joined_text(b, content, f"{at}.content")
            if text is not None:
                b.input("user", text, at)
            return
        texts: list[str] = []
        for index, raw in enumerate(content):
            where = f"{at}.content[{index}]"
            kind = raw.get("type") if isinstance(raw, dict) else None
            if isinstance(raw, dict) and kind == "tool_result":
                _result(b, raw, where)
            elif isinstance(raw, dict) and kind == "text" and isinstance(raw.get("text"), str):
                texts.append(raw["text"])
            elif isinstance(raw, str):
                texts.append(raw)
            else:
                b.note(where, f"{kind or 'untyped'} block of a user message is not carried", raw)
        if texts:
            b.input("user", "\n".join(texts), at)


def _content_key(content: Any) -> tuple[Any, ...]:
    """What identifies an assistant turn's content, ignoring fields a request drops: each
    block's type with its text, thinking or tool_use id."""
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return ()
    key: list[tuple[str, Any]] = []
    for block in content:
        if not isinstance(block, dict):
            key.append(("", repr(block)))
            continue
        kind = str(block.get("type"))
        if kind.endswith("tool_use"):
            value = block.get("id")
        else:
            value = block.get("text", block.get("thinking", block.get("data")))
        key.append((kind, value if value is None or isinstance(value, str) else repr(value)))
    return tuple(key)


def _said(key: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(k for k in key if k[0] not in ("thinking", "redacted_thinking"))


def _tool_use_ids(key: tuple[Any, ...]) -> set[str]:
    return {v for kind, v in key if kind.endswith("tool_use") and isinstance(v, str)}


def _joined_text(b: TraceBuilder, content: Any, at: str) -> str | None:
    """A system prompt or user content: a string, or text blocks joined by newlines."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for index, block in enumerate(content):
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                texts.append(block["text"])
            else:
                b.note(f"{at}[{index}]", "block that is not text", block)
        return "\n".join(texts)
    b.note(at, "content that is not text or blocks", content)
    return None


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
    elif isinstance(content, dict) and content.get("return_code") not in (None, 0):
        is_error = True
        error = f"return code {content.get('return_code')}"
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
