"""The "openai-chat" format: Chat Completions message lists and ChatCompletion dumps.

Assistant turns become a text step then their tool calls; `role: tool` (and
legacy `role: function`) messages fill in the matching call's output. Also read:
streamed chunks, `{messages, response}` bodies (a request body's `tools` are kept as the
trace's metadata `declared_tools`), and the OpenAI-shaped messages of
agent benchmarks (AgentDojo's `function`/`args` calls and `error` results, SWE-agent's
`tool_call_ids`).
"""

from __future__ import annotations

from typing import Any

from ..core.base import Adapter
from ..core.common import (
    TraceBuilder,
    any_item,
    any_trailer,
    arr,
    items_of,
    obj,
    opt_count,
    opt_list,
    opt_obj,
    opt_str,
)
from . import _streams

NAME = "openai-chat"
CONTAINERS = ("messages",)
TRAILERS = ("response",)
_INPUT_ROLES = ("system", "developer", "user")
_TEXT_KINDS = ("text", "output_text", "input_text")
_THINKING = ("thinking", "redacted_thinking", "reasoning")


def _is_marker(item: dict[str, Any]) -> bool:
    if item.get("object") in ("chat.completion", _streams.CHAT_CHUNK):
        return True
    if isinstance(item.get("choices"), list):
        return True
    if item.get("role") in ("tool", "function", "developer"):
        return True
    return item.get("role") == "assistant" and ("tool_calls" in item or "function_call" in item)


def detect(value: Any) -> bool:
    """A message list (or request body) with a tool/function message, assistant tool_calls,
    the developer role, or ChatCompletion dumps (`choices`) and streamed chunks; also a
    body whose `response` is a ChatCompletion (its messages may be plain text)."""
    return any_item(value, CONTAINERS, _is_marker) or any_trailer(
        value, CONTAINERS, TRAILERS, _is_marker
    )


def convert(value: Any, name_hint: str) -> list[Any]:
    builder = TraceBuilder(NAME, name_hint)
    pairs, body = items_of(value, CONTAINERS, TRAILERS)
    builder.labels(body)
    tools = body.get("tools")
    if isinstance(tools, list) and tools:  # the request's tool definitions, as given
        builder.metadata["declared_tools"] = tools
    chat = _Chat(builder)
    for item, at, chunks in _streams.runs(pairs, _streams.is_chat_chunk, _new_stream):
        if chunks:
            chat.completion(_streams.merge_chat_chunks(chunks), at)
        else:
            chat.item(obj(item, at), at)
    return [builder.build()]


def _new_stream(chunk: dict[str, Any], first: dict[str, Any]) -> bool:
    return chunk.get("id") != first.get("id")


class _Chat:
    """The walk over one conversation; remembers the last assistant turn so that a
    `response` repeating it (a saved request/response pair) is not mapped twice."""

    def __init__(self, builder: TraceBuilder) -> None:
        self.b = builder
        self.last: tuple[dict[str, Any], int] | None = None  # the last turn, its first step

    def item(self, item: dict[str, Any], at: str) -> None:
        b = self.b
        if "choices" in item:
            self.completion(item, at)
            return
        role = item.get("role")
        if role == "assistant":
            self.assistant(item, at, {})
        elif role == "tool":
            _tool(b, item, at)
        elif role == "function":
            b.result(None, _output(b, item, at), at, name=opt_str(item, "name", at))
        elif role in _INPUT_ROLES:
            b.input(str(role), _input_text(b, item.get("content"), f"{at}.content"), at)
        else:
            b.note(at, "message with an unknown role", item)

    def completion(self, item: dict[str, Any], at: str) -> None:
        b = self.b
        choices = arr(item.get("choices"), f"{at}.choices")
        meta = {"model": opt_str(item, "model", at), "response_id": opt_str(item, "id", at)}
        start = len(b.steps)
        usage = opt_obj(item, "usage", at)
        where = f"{at}.usage"
        counts = (
            opt_count(usage, "prompt_tokens", where),
            opt_count(usage, "completion_tokens", where),
        )
        if not choices:
            b.note(f"{at}.choices", "completion without choices")
        for index, choice in enumerate(choices):
            here = f"{at}.choices[{index}]"
            if index > 0:
                b.note(here, "additional choice not followed by the conversation", choice)
                continue
            message = opt_obj(obj(choice, here), "message", here)
            if message is None:
                b.note(here, "choice without a message", choice)
            elif at in TRAILERS and self.last is not None and _same_turn(message, self.last[0]):
                # The response repeats the conversation's last turn: only its usage is new.
                start = self.last[1]
                b.skip(here, "response that repeats the last assistant message")
            else:
                self.assistant(message, f"{here}.message", meta)
        b.tokens(start, *counts, at)

    def assistant(self, message: dict[str, Any], at: str, meta: dict[str, Any]) -> None:
        b = self.b
        start, before = len(b.steps), b.mapped
        _reasoning(b, message, at)
        texts = _assistant_content(b, message, at)
        audio = message.get("audio")
        if not texts and isinstance(audio, dict) and isinstance(audio.get("transcript"), str):
            texts.append(audio["transcript"])
            meta = {**meta, "audio": True}
        text = "".join(texts)
        if text:
            index = b.text(text, at, **meta)
            cited = _annotations(message)
            if cited:
                b.steps[index]["citations"] = cited
        refusal = opt_str(message, "refusal", at)
        if refusal:
            b.text(refusal, f"{at}.refusal", refusal=True, **meta)
        for index, raw in enumerate(opt_list(message, "tool_calls", at)):
            _call(b, obj(raw, f"{at}.tool_calls[{index}]"), f"{at}.tool_calls[{index}]", meta)
        legacy = opt_obj(message, "function_call", at)
        if legacy is not None:
            where = f"{at}.function_call"
            name = opt_str(legacy, "name", where)
            b.call(None, name, legacy.get("arguments"), f"{where}.arguments", **meta)
        if b.mapped == before:
            b.skip(at, "assistant message without content")
        self.last = (message, start)


def _assistant_content(b: TraceBuilder, message: dict[str, Any], at: str) -> list[str]:
    """The text of an assistant message's content (a string or parts); thinking parts go
    to reasoning, refusal parts become refusal text, anything else is noted."""
    content = message.get("content")
    if content is None or isinstance(content, str):
        return [content] if content else []
    if not isinstance(content, list):
        b.note(f"{at}.content", "assistant content that is not text", content)
        return []
    texts: list[str] = []
    for index, part in enumerate(content):
        where = f"{at}.content[{index}]"
        kind = part.get("type") if isinstance(part, dict) else None
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and kind in _TEXT_KINDS:
            texts.append(_part_text(part))
        elif isinstance(part, dict) and kind in _THINKING:
            text = part.get("thinking", part.get("content"))
            readable = isinstance(text, str) and kind != "redacted_thinking"
            b.reasoning(text if readable else None, where)
        elif isinstance(part, dict) and kind == "refusal" and isinstance(part.get("refusal"), str):
            b.text(part["refusal"], where, refusal=True)
        else:
            b.note(where, "content part that is not text", part)
    return texts


def _part_text(part: dict[str, Any]) -> str:
    """Text of a text part: `text` (OpenAI), or `content` (AgentDojo's content blocks)."""
    text = part.get("text", part.get("content"))
    return text if isinstance(text, str) else ""


def _reasoning(b: TraceBuilder, message: dict[str, Any], at: str) -> None:
    """Reasoning written next to the content by OpenAI-compatible servers (DeepSeek, vLLM,
    OpenRouter, LiteLLM); one field is read, as they repeat each other."""
    for key in ("reasoning_content", "reasoning"):
        if isinstance(message.get(key), str) and message[key]:
            b.reasoning(message[key], f"{at}.{key}")
            return
    blocks = message.get("thinking_blocks")
    for index, block in enumerate(blocks if isinstance(blocks, list) else []):
        text = block.get("thinking") if isinstance(block, dict) else None
        b.reasoning(text if isinstance(text, str) else None, f"{at}.thinking_blocks[{index}]")


def _annotations(message: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    annotations = message.get("annotations")
    for raw in annotations if isinstance(annotations, list) else []:
        cite = raw.get("url_citation") if isinstance(raw, dict) else None
        if isinstance(cite, dict):
            entry = {"source": cite.get("title"), "url": cite.get("url")}
            found.append({k: v for k, v in entry.items() if isinstance(v, str)})
    return found


def _call(b: TraceBuilder, call: dict[str, Any], at: str, meta: dict[str, Any]) -> None:
    call_id = opt_str(call, "id", at)
    function = call.get("function")
    if isinstance(function, dict):
        name = opt_str(function, "name", f"{at}.function")
        b.call(call_id, name, function.get("arguments"), f"{at}.function.arguments", **meta)
    elif isinstance(function, str):  # AgentDojo: {"function": name, "args": {...}}
        b.call(call_id, function, call.get("args"), f"{at}.args", **meta)
    elif function is None and isinstance(call.get("custom"), dict):
        custom = call["custom"]
        b.call(call_id, opt_str(custom, "name", f"{at}.custom"), None, at, **meta)
        b.note(at, "tool call whose input is not JSON arguments", call)
    else:
        obj(function, f"{at}.function")  # the located error
        b.call(call_id, None, None, at, **meta)


def _tool(b: TraceBuilder, item: dict[str, Any], at: str) -> None:
    """A tool message: its call by `tool_call_id` (or each of `tool_call_ids`), else by
    the name of the call it answers, else in call order; an `error` field is its status."""
    output = _output(b, item, at)
    error = item.get("error")
    failed: bool | None = None
    if "error" in item:
        failed = error is not None and error != ""
    error_text = (error if isinstance(error, str) else str(error)) if failed else None
    ids = item.get("tool_call_ids")
    if isinstance(ids, list) and ids and "tool_call_id" not in item:
        for index, call_id in enumerate(ids):
            where = f"{at}.tool_call_ids[{index}]"
            if not isinstance(call_id, str):
                b.note(where, "tool call id that is not a string", call_id)
                continue
            b.result(call_id, output, at, error=error_text, is_error=failed)
        return
    name = opt_str(item, "name", at)
    answered = item.get("tool_call")
    if name is None and isinstance(answered, dict) and isinstance(answered.get("function"), str):
        name = answered["function"]
    call_id = opt_str(item, "tool_call_id", at)
    if not call_id and isinstance(answered, dict) and isinstance(answered.get("id"), str):
        call_id = answered["id"]
    b.result(call_id, output, at, error=error_text, is_error=failed, name=name)


def _output(b: TraceBuilder, message: dict[str, Any], at: str) -> Any:
    """Tool output: a string as is, a list of text parts joined by newlines, else raw."""
    content = message.get("content")
    if isinstance(content, list) and all(
        isinstance(p, dict) and p.get("type") in _TEXT_KINDS for p in content
    ):
        return "\n".join(_part_text(p) for p in content)
    return content


def _input_text(b: TraceBuilder, content: Any, at: str) -> str:
    """A user/system/developer message's text; parts that are not text are noted."""
    if isinstance(content, str) or content is None:
        return content or ""
    if not isinstance(content, list):
        b.note(at, "input content that is not text", content)
        return ""
    texts: list[str] = []
    for index, part in enumerate(content):
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and part.get("type") in _TEXT_KINDS:
            texts.append(_part_text(part))
        else:
            b.note(f"{at}[{index}]", "input part that is not text", part)
    return "\n".join(texts)


def _same_turn(message: dict[str, Any], last: dict[str, Any]) -> bool:
    """Does a saved response repeat the conversation's last assistant turn (same content,
    same tool call ids)?"""
    return bool(_signature(message) == _signature(last))


def _signature(message: dict[str, Any]) -> Any:
    calls = message.get("tool_calls")
    ids = [c.get("id") for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []
    return (message.get("content"), tuple(ids))


ADAPTER = Adapter(
    name=NAME,
    description="OpenAI Chat Completions message lists and ChatCompletion dumps",
    detect=detect,
    convert=convert,
)
