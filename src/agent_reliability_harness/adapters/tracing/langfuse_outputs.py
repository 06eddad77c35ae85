"""Generation outputs that integrations record as a provider's whole response rather than
the assistant message: the OpenAI Responses object, a Chat Completions object with one
choice, and an OpenTelemetry GenAI output message (`parts`). Each reads as the
OpenAI-shaped assistant message it holds, only when every part of it has a place there;
anything else is left as it is (and noted by the adapter)."""

from __future__ import annotations

from typing import Any


def as_message(output: Any) -> Any:
    """The assistant message `{"role", "content", "tool_calls"}` an output holds, else the
    output unchanged."""
    if isinstance(output, dict) and output.get("object") == "response":
        return _response(output) or output
    if isinstance(output, dict) and output.get("object") == "chat.completion":
        choices = output.get("choices")
        only = choices[0] if isinstance(choices, list) and len(choices) == 1 else None
        message = only.get("message") if isinstance(only, dict) else None
        return message if isinstance(message, dict) else output
    if isinstance(output, list) and len(output) == 1 and isinstance(output[0], dict):
        return _parts(output[0]) or output
    return output


def _message(texts: list[str], calls: list[dict[str, Any]]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) if texts else None}
    if calls:
        message["tool_calls"] = calls
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
    """An OpenTelemetry GenAI output message: `text` and `tool_call` parts."""
    parts = value.get("parts")
    if value.get("role") != "assistant" or not isinstance(parts, list):
        return None
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for part in parts:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("content"), str):
            texts.append(part["content"])
        elif kind == "tool_call":
            calls.append(_call(part.get("id"), part.get("name"), part.get("arguments")))
        else:
            return None
    return _message(texts, calls)
