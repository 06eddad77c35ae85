"""Model-span content as earlier GenAI convention revisions (and instrumentations that
still follow them) record it: `gen_ai.content.prompt` / `gen_ai.content.completion`
span events (before v1.28), indexed attributes (`gen_ai.prompt.0.content`,
`gen_ai.completion.0.tool_calls.0.name`), and the v1.37+ operation-details event."""

from __future__ import annotations

import re
from typing import Any

from ...errors import InputError
from ...io import decode_json
from ..core.builder import TraceBuilder
from ._otel_shapes import attributes_of

DETAILS_EVENT = "gen_ai.client.inference.operation.details"


def event_attributes(span: dict[str, Any]) -> dict[str, Any]:
    """Attributes of the operation-details events, which may hold the messages instead of
    the span (first event wins)."""
    found: dict[str, Any] = {}
    events = span.get("events")
    for event in events if isinstance(events, list) else []:
        if isinstance(event, dict) and event.get("name") == DETAILS_EVENT:
            for key, value in attributes_of(event.get("attributes")).items():
                found.setdefault(key, value)
    return found


def _prompt_messages(
    b: TraceBuilder, span: dict[str, Any], attrs: dict[str, Any], at: str
) -> list[tuple[str, dict[str, Any]]]:
    found = _event_messages(b, span, at, "gen_ai.content.prompt", "gen_ai.prompt")
    return found + _indexed(attrs, "gen_ai.prompt.", at)


def legacy_prompts(
    b: TraceBuilder, span: dict[str, Any], attrs: dict[str, Any], at: str
) -> list[tuple[str, str, str]]:
    """(location, role, text) of the prompt messages recorded the older ways."""
    return [
        (where, str(m.get("role")), m["content"])
        for where, m in _prompt_messages(b, span, attrs, at)
        if isinstance(m.get("content"), str)
    ]


def legacy_tool_results(
    b: TraceBuilder, span: dict[str, Any], attrs: dict[str, Any], at: str
) -> list[tuple[str, str, Any, dict[str, Any]]]:
    """(location, call id, content, message) of the tool messages in a prompt recorded the
    older ways (the history of a later model span)."""
    return [
        (where, m["tool_call_id"], m.get("content"), m)
        for where, m in _prompt_messages(b, span, attrs, at)
        if m.get("role") == "tool" and isinstance(m.get("tool_call_id"), str)
    ]


def legacy_completion(
    b: TraceBuilder, span: dict[str, Any], attrs: dict[str, Any], at: str
) -> list[tuple[str, dict[str, Any]]] | None:
    """Output parts (as gen_ai.output.messages has them) from the completion recorded the
    older ways (OpenAI-shaped messages); None when the span records none."""
    messages = _event_messages(b, span, at, "gen_ai.content.completion", "gen_ai.completion")
    messages = messages or _indexed(attrs, "gen_ai.completion.", at)
    if not messages:
        return None
    parts: list[tuple[str, dict[str, Any]]] = []
    for where, message in messages:
        if isinstance(message.get("content"), str) and message["content"]:
            parts.append((f"{where}.content", {"type": "text", "content": message["content"]}))
        calls = message.get("tool_calls")
        for n, call in enumerate(calls if isinstance(calls, list) else []):
            if not isinstance(call, dict):
                continue
            nested = call.get("function")
            function: dict[str, Any] = nested if isinstance(nested, dict) else call
            part = {"type": "tool_call", "id": call.get("id"), "name": function.get("name")}
            part["arguments"] = function.get("arguments")
            parts.append((f"{where}.tool_calls[{n}]", part))
    return parts


def _event_messages(
    b: TraceBuilder, span: dict[str, Any], at: str, event_name: str, key: str
) -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    events = span.get("events")
    for e, event in enumerate(events if isinstance(events, list) else []):
        if not isinstance(event, dict) or event.get("name") != event_name:
            continue
        raw = attributes_of(event.get("attributes")).get(key)
        where = f"{at}.events[{e}].attributes[{key}]"
        messages: Any = raw
        if isinstance(raw, str):
            try:
                messages = decode_json(raw)
            except InputError:
                messages = plain_messages(raw, key)
                if messages is None:
                    b.note(where, "messages attribute is not valid JSON", raw)
                    continue
        for m, message in enumerate(messages if isinstance(messages, list) else []):
            if isinstance(message, dict):
                found.append((f"{where}[{m}]", message))
    return found


_ROLE_LINE = re.compile(r"^(system|user|assistant|tool|developer|function): ", re.MULTILINE)


def plain_messages(text: str, key: str) -> list[dict[str, Any]] | None:
    """The messages of an event written as plain text (OpenLit): a completion is the
    answer's text; a prompt is its messages as `role: content` lines (a line starting with
    a role name and ": " starts the next message). None: a prompt in another form."""
    if key == "gen_ai.completion":
        return [{"role": "assistant", "content": text}]
    starts = list(_ROLE_LINE.finditer(text))
    if not starts or starts[0].start() != 0:
        return None
    ends = [m.start() for m in starts[1:]] + [len(text)]
    return [
        {"role": m.group(1), "content": text[m.end() : end].removesuffix("\n")}
        for m, end in zip(starts, ends, strict=True)
    ]


def _indexed(attrs: dict[str, Any], prefix: str, at: str) -> list[tuple[str, dict[str, Any]]]:
    """Messages spread over indexed attributes: `<prefix><i>.role`, `.content`, and
    `.tool_calls.<j>.id` / `.name` / `.arguments`, in index order."""
    messages: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        if not key.startswith(prefix):
            continue
        index, _, field = key[len(prefix) :].partition(".")
        if not index.isdigit() or not field:
            continue
        message = messages.setdefault(int(index), {})
        call, _, sub = field.partition(".")
        if call == "tool_calls":
            number, _, name = sub.partition(".")
            if number.isdigit() and name:
                calls = message.setdefault("tool_calls_by_index", {})
                calls.setdefault(int(number), {})[name] = value
        else:
            message[field] = value
    found = []
    for position in sorted(messages):
        entry = messages[position]
        gathered = entry.pop("tool_calls_by_index", {})
        if gathered:
            entry["tool_calls"] = [gathered[n] for n in sorted(gathered)]
        found.append((f"{at}.attributes[{prefix}{position}]", entry))
    return found
