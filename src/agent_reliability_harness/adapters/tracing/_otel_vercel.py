"""The Vercel AI SDK's own telemetry attributes (`ai.*`), as GenAI ones for the otel-genai
walk: a model call span (`ai.generateText.doGenerate`, `ai.streamText.doStream`, ...: the
spans that carry `gen_ai.system` / `gen_ai.request.model`) records its prompt in
`ai.prompt.messages` and its answer in `ai.response.text` / `ai.response.toolCalls` /
`ai.response.object`; a tool span (`ai.toolCall`) its call in `ai.toolCall.name`, `.id`,
`.args` and `.result`. The GenAI attributes a span has win over these."""

from __future__ import annotations

from typing import Any

from ...errors import InputError
from ...io import decode_json


def vercel_attributes(attrs: dict[str, Any]) -> dict[str, Any]:
    """GenAI attributes read from a span's `ai.*` ones (empty for other spans)."""
    found: dict[str, Any] = {}
    if isinstance(attrs.get("ai.toolCall.name"), str):
        found["gen_ai.operation.name"] = "execute_tool"
        found["gen_ai.tool.name"] = attrs["ai.toolCall.name"]
        for key, name in (("id", "call.id"), ("args", "call.arguments")):
            if f"ai.toolCall.{key}" in attrs:
                found[f"gen_ai.tool.{name}"] = attrs[f"ai.toolCall.{key}"]
        if "ai.toolCall.result" in attrs:
            found["gen_ai.tool.call.result"] = _json(attrs["ai.toolCall.result"])
        return found
    if "gen_ai.system" not in attrs and "gen_ai.request.model" not in attrs:
        return found  # an outer span (ai.generateText): it repeats its model call spans
    parts = _answer(attrs)
    if parts:
        found["gen_ai.output.messages"] = [{"role": "assistant", "parts": parts}]
    prompt = _json(attrs.get("ai.prompt.messages"))
    if isinstance(prompt, list):
        found["gen_ai.input.messages"] = [_message(m) for m in prompt if isinstance(m, dict)]
    return found


def _answer(attrs: dict[str, Any]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for key in ("ai.response.text", "ai.response.object"):
        if isinstance(attrs.get(key), str) and attrs[key]:
            parts.append({"type": "text", "content": attrs[key]})
    calls = _json(attrs.get("ai.response.toolCalls"))
    for call in calls if isinstance(calls, list) else []:
        if isinstance(call, dict):
            parts.append(_call(call))
    return parts


def _call(call: dict[str, Any]) -> dict[str, Any]:
    """A tool call as the SDK records it: `toolCallId`, `toolName`, `input` (v5+) or `args`."""
    arguments = call.get("input", call.get("args"))
    return {
        "type": "tool_call",
        "id": call.get("toolCallId"),
        "name": call.get("toolName"),
        "arguments": arguments,
    }


def _message(message: dict[str, Any]) -> dict[str, Any]:
    """A prompt message (`role`, `content`: text or parts) with GenAI parts: text, tool
    calls, and tool results (`tool-result`: `output` in v5+, `{type, value}`; `result`
    before)."""
    content = message.get("content")
    parts: list[dict[str, Any]] = []
    if isinstance(content, str):
        parts.append({"type": "text", "content": content})
    for part in content if isinstance(content, list) else []:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            parts.append({"type": "text", "content": part["text"]})
        elif kind == "tool-call":
            parts.append(_call(part))
        elif kind == "tool-result":
            output = part.get("output", part.get("result"))
            if isinstance(output, dict) and "value" in output:
                output = output["value"]
            parts.append(
                {"type": "tool_call_response", "id": part.get("toolCallId"), "response": output}
            )
        else:
            parts.append({"type": str(kind), "content": part})
    return {"role": message.get("role"), "parts": parts}


def _json(value: Any) -> Any:
    """An attribute the SDK wrote as JSON text, decoded (left as it is when it is not)."""
    if not isinstance(value, str):
        return value
    try:
        return decode_json(value)
    except InputError:
        return value
