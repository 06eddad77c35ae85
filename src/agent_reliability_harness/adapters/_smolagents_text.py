"""What smolagents writes as text, read back: the "Calling tools:" message (a Python
literal of the calls), its rendering of a call as assistant text, and the error text of
a tool call that failed before smolagents recorded it ("Error executing tool ...")."""

from __future__ import annotations

import ast
import re
from typing import Any

ERROR_PREFIX = "Error:\n"
_CALLING = "Calling tools:\n"
_RENDERED = re.compile(r"(Tool call \S+: calling '[^']*' with arguments: .*)", re.S)
_FAILED = re.compile(r"Error executing tool '([^']*)' with arguments ", re.S)
# The longest argument literal tried: beyond it the arguments stay unread (a note).
_MAX_LITERAL = 200_000
_MAX_TRIES = 10_000  # ": " separators looked at (the arguments' own ones come first)


def literal(text: str) -> Any:
    """A Python literal (what smolagents writes with `str()`), or None when it is not one."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def call_list(text: str) -> list[dict[str, Any]] | None:
    """The calls of a `tool-call` message ("Calling tools:\\n[{...}, ...]")."""
    if not text.startswith(_CALLING):
        return None
    calls = literal(text[len(_CALLING) :].strip())
    if isinstance(calls, list) and all(isinstance(c, dict) for c in calls):
        return calls
    return None


def is_call_rendering(text: str) -> bool:
    """Assistant text that is smolagents' own rendering of the calls it made
    ("Tool call <id>: calling '<name>' with arguments: ..."), not the model's words."""
    return _RENDERED.fullmatch(text.strip()) is not None


def failed_call(error: str) -> tuple[str, Any] | None:
    """(tool name, arguments) of "Error executing tool '<name>' with arguments <literal>:
    <exception>" (ToolCallingAgent's failed tool call), else None. The literal ends at
    one of the ": " that follow it: the shortest prefix that reads as one is taken;
    arguments that never read stay None."""
    match = _FAILED.search(error)
    if match is None:
        return None
    rest = error[match.end() : match.end() + _MAX_LITERAL]
    start = 0
    for _ in range(_MAX_TRIES if rest.startswith("{") else 0):
        end = rest.find(": ", start)
        if end < 0:
            break
        if rest[end - 1] == "}":  # a dict literal ends with its closing brace
            value = literal(rest[:end])
            if isinstance(value, dict):
                return match.group(1), value
        start = end + 1
    return match.group(1), None
