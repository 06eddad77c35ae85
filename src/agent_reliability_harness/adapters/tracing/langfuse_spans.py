"""Observations other than GENERATIONs that framework integrations record in their own
ways (part of "langfuse"):

- Tool runs recorded as SPANs (Koog's `tool.<Name>`, Agno's OpenInference TOOL span,
  LangGraph's tool run whose output is a ToolMessage), and the name of a tool: the
  `gen_ai.tool.name` (or OpenInference `tool.name`, Vercel `ai.toolCall.name`) attribute
  the observation carries, not the span's name ("execute_tool say_hello", "running tool:
  get_pun_suggestion").
- A tool run's output that is a LangChain ToolMessage: its content, failed when its
  `status` is "error".
- Bookkeeping leaves: a SPAN with neither input nor output (a marker: Koog's
  `node.__start__`, CrewAI's "Crew Created"), and LangGraph's plumbing, whose input is the
  graph state (`ChannelWrite<...>`, `Branch<...>`, the prompt template, an edge function
  such as `should_continue`): the model and tool observations hold what they pass on.
"""

from __future__ import annotations

import ast
from typing import Any

from ...errors import InputError
from ...io import decode_json
from ..core.common import first
from ..core.langchain_messages import message

_NAME_KEYS = ("gen_ai.tool.name", "tool.name", "ai.toolCall.name")
_ID_KEYS = ("gen_ai.tool.call.id", "ai.toolCall.id")
_EMPTY = (None, "", "None", "null")
_LITERAL_LIMIT = 100_000
_QUIET = (None, "DEFAULT", "DEBUG")  # a WARNING or ERROR span says something
MARKER = "SPAN without input or output (a marker)"
PLUMBING = "LangGraph plumbing (channel write, branch, prompt, edge): it passes the graph state on"


def attributes(item: dict[str, Any]) -> dict[str, Any]:
    """The OpenTelemetry attributes an OTel-fed observation keeps in its metadata (a
    dict, or JSON text of one)."""
    metadata = _value(item.get("metadata"))
    found = metadata.get("attributes") if isinstance(metadata, dict) else None
    found = _value(found)
    return found if isinstance(found, dict) else {}


def _value(raw: Any) -> Any:
    """JSON text of an object or array as that value; anything else as it is."""
    if isinstance(raw, str) and raw.lstrip()[:1] in ("{", "["):
        try:
            return decode_json(raw)
        except InputError:
            return raw
    return raw


def python_arguments(text: str) -> dict[str, Any] | None:
    """Arguments a LangChain callback recorded as a Python dict's repr (`{'query': 'x'}`,
    its `input_str`): the dict, when the text is a literal of one and not JSON."""
    if len(text) > _LITERAL_LIMIT or not text.lstrip().startswith("{"):
        return None
    try:
        decode_json(text)
        return None  # JSON text: read as JSON
    except InputError:
        pass
    try:
        value = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) and all(isinstance(k, str) for k in value) else None


def tool_name(item: dict[str, Any]) -> str | None:
    attrs = attributes(item)
    for key in _NAME_KEYS:
        if isinstance(attrs.get(key), str) and attrs[key]:
            return str(attrs[key])
    name = item.get("name")
    return name if isinstance(name, str) else None


def call_id(item: dict[str, Any]) -> str | None:
    attrs = attributes(item)
    for key in _ID_KEYS:
        if isinstance(attrs.get(key), str) and attrs[key]:
            return str(attrs[key])
    found = tool_message(item.get("output"))
    return found.get("tool_call_id") if found is not None else None


def tool_message(output: Any) -> dict[str, Any] | None:
    """The fields of a LangChain ToolMessage an output is (serialised any way), else None."""
    found = message(_value(output))
    if found is None or found[0] != "tool":
        return None
    fields = found[1]
    return fields if isinstance(fields.get("tool_call_id"), str) else None


def is_tool(item: dict[str, Any]) -> bool:
    """A SPAN or EVENT that records a tool run."""
    if item.get("type") not in ("SPAN", "EVENT"):
        return False
    attrs = attributes(item)
    return (
        any(isinstance(attrs.get(key), str) for key in _NAME_KEYS)
        or attrs.get("gen_ai.operation.name") == "execute_tool"
        or attrs.get("openinference.span.kind") == "TOOL"
        or tool_message(item.get("output")) is not None
    )


def outcome(item: dict[str, Any]) -> tuple[Any, bool]:
    """(output, failed) of a tool run: a ToolMessage's content and status, else the output."""
    found = tool_message(item.get("output"))
    if found is None:
        return item.get("output"), False
    return found.get("content"), found.get("status") == "error"


def agent_of(item: dict[str, Any]) -> str | None:
    """The agent a SPAN or CHAIN observation runs, by its attributes, else None."""
    if item.get("type") not in ("SPAN", "CHAIN"):
        return None
    attrs = attributes(item)
    named = attrs.get("gen_ai.agent.name")
    if isinstance(named, str) and named:
        return named
    name = item.get("name")
    if attrs.get("openinference.span.kind") == "AGENT" and isinstance(name, str):
        return name
    return None


def bookkeeping(item: dict[str, Any]) -> str | None:
    """Why a leaf SPAN is bookkeeping, or None when it may hold run content."""
    if item.get("type") != "SPAN" or item.get("level") not in _QUIET:
        return None
    if first(item, "statusMessage", "status_message") not in _EMPTY:
        return None
    if item.get("input") in _EMPTY and item.get("output") in _EMPTY:
        return MARKER
    state = _value(item.get("input"))
    if isinstance(state, dict) and isinstance(state.get("messages"), list):
        return PLUMBING
    return None


__all__ = [
    "agent_of",
    "attributes",
    "bookkeeping",
    "call_id",
    "is_tool",
    "outcome",
    "python_arguments",
    "tool_name",
]
