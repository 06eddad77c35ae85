"""Generation outputs that integrations record as a provider's whole response rather than
the assistant message: the OpenAI Responses object, a Chat Completions object with one
choice, an OpenTelemetry GenAI output message (`parts`, with Microsoft.Extensions.AI's
`TextReasoningContent`), the OTel choice event `{index, message}`, Gemini's
GenerateContentResponse (`candidates`) and ADK's LlmResponse (`content.parts`), an
Anthropic message (`tool_use` parts), a LangChain message (`additional_kwargs.tool_calls`),
Koog's assistant messages (calls as JSON text) and the Vercel AI SDK's tool calls
(`toolCallId`). Each reads as the OpenAI-shaped assistant message it holds (reasoning
under `reasoning`, None for a redacted one), only when every part of it has a place
there; anything else is left as it is (and noted by the adapter)."""

from __future__ import annotations

from typing import Any

from ...errors import InputError
from ...io import decode_json


def as_message(output: Any) -> Any:
    """The assistant message `{"role", "content", "tool_calls"}` an output holds, else the
    output unchanged."""
    if isinstance(output, dict):
        return _object(output) or output
    if isinstance(output, list) and output and all(isinstance(o, dict) for o in output):
        if len(output) == 1 and "parts" in output[0]:
            return _parts(output[0]) or output
        return list_message(output) or output
    return output


def _object(output: dict[str, Any]) -> dict[str, Any] | None:
    if output.get("object") == "response":
        return _response(output)
    if output.get("object") == "chat.completion":
        choices = output.get("choices")
        only = choices[0] if isinstance(choices, list) and len(choices) == 1 else None
        message = only.get("message") if isinstance(only, dict) else None
        return message if isinstance(message, dict) else None
    if isinstance(output.get("message"), dict) and "index" in output:  # an OTel choice event
        return _object(output["message"]) or output["message"]
    candidates = output.get("candidates")
    if isinstance(candidates, list) and len(candidates) == 1:
        output = candidates[0] if isinstance(candidates[0], dict) else {}
    content = output.get("content")
    if isinstance(content, dict) and content.get("role") == "model":
        return gemini_parts(content.get("parts"))
    if isinstance(content, list) and any(_kind(p) == "tool_use" for p in content):
        return _anthropic(content)
    extra = output.get("additional_kwargs")
    calls = extra.get("tool_calls") if isinstance(extra, dict) else None
    if isinstance(calls, list) and calls and "tool_calls" not in output:
        return {**output, "tool_calls": calls}
    return None


def _kind(part: Any) -> Any:
    return part.get("type") if isinstance(part, dict) else None


def _message(
    texts: list[str], calls: list[dict[str, Any]], thoughts: list[str | None] | None = None
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) if texts else None}
    if calls:
        message["tool_calls"] = calls
    if thoughts:
        message["reasoning"] = thoughts
    return message


def _call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _response(value: dict[str, Any]) -> dict[str, Any] | None:
    """Responses `output` items: `message` (of `output_text` parts) and `function_call`."""
    items = value.get("output")
    if not isinstance(items, list):
        return None
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for item in items:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "function_call":
            calls.append(_call(item.get("call_id"), item.get("name"), item.get("arguments")))
            continue
        parts = item.get("content") if kind == "message" else None
        if not isinstance(parts, list):
            return None
        for part in parts:
            if not (isinstance(part, dict) and part.get("type") == "output_text"):
                return None
            if not isinstance(part.get("text"), str):
                return None
            texts.append(part["text"])
    return _message(texts, calls)


def _parts(value: dict[str, Any]) -> dict[str, Any] | None:
    """An OpenTelemetry GenAI output message: `text`, `tool_call` and reasoning parts."""
    parts = value.get("parts")
    if value.get("role") != "assistant" or not isinstance(parts, list):
        return None
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    thoughts: list[str | None] = []
    for part in parts:
        kind = _kind(part)
        if kind == "text" and isinstance(part.get("content"), str):
            texts.append(part["content"])
        elif kind == "tool_call":
            calls.append(_call(part.get("id"), part.get("name"), part.get("arguments")))
        elif kind in _REASONING:
            thoughts.append(_thought(part.get("content")))
        else:
            return None
    return _message(texts, calls, thoughts)


# Reasoning parts: the GenAI conventions' own, and Microsoft.Extensions.AI's content type.
_REASONING = ("reasoning", "Microsoft.Extensions.AI.TextReasoningContent")


def _thought(content: Any) -> str | None:
    """A reasoning part's text; None for a redacted one (empty text, protected data)."""
    text = content.get("text") if isinstance(content, dict) else content
    return text if isinstance(text, str) and text else None


def gemini_parts(parts: Any) -> dict[str, Any] | None:
    """Gemini content parts: `text` (a `thought` one is reasoning) and `function_call`."""
    if not isinstance(parts, list):
        return None
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    thoughts: list[str | None] = []
    for part in parts:
        if not isinstance(part, dict):
            return None
        call = part.get("function_call") or part.get("functionCall")
        if isinstance(call, dict):
            calls.append(_call(call.get("id"), call.get("name"), call.get("args")))
        elif isinstance(part.get("text"), str) and part.get("thought"):
            thoughts.append(part["text"] or None)
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
        else:
            return None
    return _message(texts, calls, thoughts)


def _anthropic(content: list[Any]) -> dict[str, Any] | None:
    """An Anthropic message's content: `text`, `tool_use` and thinking blocks."""
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    thoughts: list[str | None] = []
    for part in content:
        kind = _kind(part)
        if kind == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif kind == "tool_use":
            calls.append(_call(part.get("id"), part.get("name"), part.get("input")))
        elif kind in ("thinking", "redacted_thinking"):
            thoughts.append(_thought(part.get("thinking")))
        else:
            return None
    return _message(texts, calls, thoughts)


def list_message(items: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Several items making one answer: the Vercel AI SDK's tool calls (`toolCallId`,
    `toolName`, `input`), or assistant messages (Koog writes one per call, the call as
    JSON text in `content` with `finish_reason: tool_calls`)."""
    if all("toolCallId" in i for i in items):
        calls = [_call(i.get("toolCallId"), i.get("toolName"), i.get("input")) for i in items]
        return _message([], calls)
    if not all(i.get("role") == "assistant" for i in items):
        return None
    texts: list[str] = []
    calls = []
    for item in items:
        content = item.get("content")
        if item.get("finish_reason") == "tool_calls" and isinstance(content, str):
            found = _json_calls(content)
            if found is None:
                return None
            calls += found
        elif isinstance(content, str):
            texts.append(content)
        else:
            return None
    return _message(texts, calls)


def _json_calls(text: str) -> list[dict[str, Any]] | None:
    try:
        value = decode_json(text)
    except InputError:
        return None
    if not isinstance(value, list) or not all(
        isinstance(c, dict) and isinstance(c.get("function"), dict) for c in value
    ):
        return None
    return value
