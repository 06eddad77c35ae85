"""What smolagents writes as text, read back: the "Calling tools:" message (a Python
literal of the calls), its rendering of a call as assistant text, and the error text of
a tool call that failed before smolagents recorded it ("Error executing tool ...")."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from typing import Any

ERROR_PREFIX = "Error:\n"
_CALLING = "Calling tools:\n"
_RENDERED = re.compile(r"(Tool call \S+: calling '[^']*' with arguments: .*)", re.S)
_FAILED = re.compile(r"Error executing tool '([^']*)' with arguments ", re.S)
# The longest argument literal read: beyond it the arguments stay unread.
_MAX_LITERAL = 200_000
_OPENING, _CLOSING = frozenset("([{"), frozenset(")]}")


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
    <exception>" (ToolCallingAgent's failed tool call), else None. The literal is the dict
    that opens the arguments, up to its closing brace (Python's tokenizer finds it, braces
    inside strings aside), followed by ": "; arguments that do not read so stay None."""
    match = _FAILED.search(error)
    if match is None:
        return None
    rest = error[match.end() : match.end() + _MAX_LITERAL]
    end = _dict_end(rest) if rest.startswith("{") else None
    if end is not None and rest.startswith(": ", end):
        value = literal(rest[:end])
        if isinstance(value, dict):
            return match.group(1), value
    return match.group(1), None


def _dict_end(text: str) -> int | None:
    """Where the bracketed expression that opens the text ends (the offset after its
    closing bracket), read once with Python's tokenizer; None when it never closes."""
    starts = [0]  # the offset of each line the tokenizer reads (it splits at "\n")
    for line in text.split("\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    depth = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type != tokenize.OP:
                continue
            if token.string in _OPENING:
                depth += 1
            elif token.string in _CLOSING:
                depth -= 1
                if depth == 0:
                    row, col = token.end
                    return starts[row - 1] + col
    except (tokenize.TokenError, SyntaxError):
        return None
    return None
