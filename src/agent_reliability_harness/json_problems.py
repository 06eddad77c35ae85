"""Where strict JSON refuses a well-formed text: the first NaN/Infinity, out-of-range or
over-long number, lone surrogate escape or nesting beyond MAX_DEPTH, with its line and
column, so that every such error names its position as TRACE-SPEC.md promises.

Only called once a decoder has refused a text for one of these reasons (everything
before the refused value is then well-formed JSON); one linear pass over tokens.
"""

from __future__ import annotations

import math
import re
import sys

from .nesting import MAX_DEPTH

# Strings (unrolled: no backtracking), brackets, numbers and the bare constants; commas,
# colons, whitespace and true/false/null are skipped over.
_TOKEN = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*"'
    r"|[\[{\]}]"
    r"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
    r"|-?Infinity|NaN",
    re.DOTALL,
)
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.DOTALL)


def position(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset, columns counted in characters."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def utf8_position(data: bytes, offset: int) -> tuple[int, int]:
    """1-based (line, column) of the byte at `offset`, all bytes before it valid UTF-8."""
    start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[start:offset].decode("utf-8", "replace")) + 1
    return data.count(b"\n", 0, offset) + 1, column


def _lone_surrogate(token: str) -> int | None:
    """Offset in a string token of its first lone surrogate escape, or None."""
    if "\\u" not in token and "\\U" not in token:
        return None
    pending: tuple[int, int] | None = None  # (start, end) of an unpaired high surrogate
    for match in _ESCAPE.finditer(token):
        code = int(match.group(1), 16) if match.group(1) else -1
        if pending is not None:
            if 0xDC00 <= code <= 0xDFFF and match.start() == pending[1]:
                pending = None
                continue
            return pending[0]
        if 0xD800 <= code <= 0xDBFF:
            pending = (match.start(), match.end())
        elif 0xDC00 <= code <= 0xDFFF:
            return match.start()
    return None if pending is None else pending[0]


def _number_problem(token: str) -> str | None:
    if token.lstrip("-") in ("Infinity", "NaN"):
        return f"{token} is not valid JSON, only finite numbers are allowed"
    if any(c in token for c in ".eE"):
        return None if math.isfinite(float(token)) else f"number {token[:40]} is out of range"
    most = sys.get_int_max_str_digits()
    if most and len(token.lstrip("-")) > most:
        return f"a number has too many digits, more than {most}"
    return None


def _token_problem(token: str, depth: int) -> tuple[str | None, int, int]:
    """(problem, offset in the token, depth after it)."""
    first = token[0]
    if first in "[{":
        depth += 1
        if depth > MAX_DEPTH:
            return f"nesting is too deep, more than {MAX_DEPTH} levels", 0, depth
        return None, 0, depth
    if first in "]}":
        return None, 0, depth - 1
    if first == '"':
        at = _lone_surrogate(token)
        if at is not None:
            escape = token[at : at + 6]
            return f"a string contains a lone surrogate {escape}", at, depth
        return None, 0, depth
    return _number_problem(token), 0, depth


def first_problem(text: str) -> str | None:
    """`<what> (line L, column C)` for the first value strict JSON refuses, or None."""
    depth = 0
    for match in _TOKEN.finditer(text):
        problem, at, depth = _token_problem(match.group(), depth)
        if problem is not None:
            line, column = position(text, match.start() + at)
            return f"{problem} (line {line}, column {column})"
    return None
