"""The one nesting-depth limit of every JSON document ARH reads, and its check.

MAX_DEPTH is what TRACE-SPEC.md promises: arrays and objects nested at most 512 deep
(`[]` is depth 1) in a trace, policy or report; deeper is refused on every path, so the
same input is read or refused whatever outputs a run asks for, and every recursive step
downstream (argument equality, report writers) stays well inside Python's stack.
"""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 512

# Nested as deep as the limit: strings, other characters, or a bracketed D_{k-1}. Valid
# JSON only (the document was decoded first), so `[` may close with `}` here.
_STRING = r'"(?:[^"\\]|\\.)*"'
_OTHER = r'[^\[\]{}"]'
_REGEXES: dict[int, Any] = {}
# What the depth depends on: brackets, and the quotes that tell which are in strings.
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')


def _regex(limit: int) -> Any:
    regex = _REGEXES.get(limit)
    if regex is None:
        import re2  # noqa: PLC0415 - only when a document is big enough to need it

        pattern = f"(?:{_STRING}|{_OTHER})*"
        for _ in range(limit):
            pattern = f"(?:{_STRING}|{_OTHER}|[\\[{{]{pattern}[\\]}}])*"
        options = re2.Options()
        options.log_errors = False
        options.max_mem = 64 << 20
        options.dot_nl = True
        regex = _REGEXES[limit] = re2.compile(pattern, options)
    return regex


def within(data: bytes | str, limit: int = MAX_DEPTH) -> bool:
    """Whether valid JSON text nests arrays and objects at most `limit` deep."""
    if len(data) < 1 << 16:  # a small text: a quick count may do
        opened = (
            len(data) - len(data.translate(None, b"[{"))  # one pass, where two counts take two
            if isinstance(data, bytes)
            else data.count("[") + data.count("{")
        )
        if opened <= limit:
            return True
    if isinstance(data, bytes):
        data = _structure(data)
    return _regex(limit).fullmatch(data) is not None


def _structure(data: bytes) -> bytes:
    """Valid JSON text cut down to its brackets and string quotes, which nest exactly as
    in `data` (the regex then scans a small part of a big document). Each `\\\\` is
    dropped first (a left-to-right scan meets it only at the start of an escape, as in
    rules/screen.py), then each `\\"`: every `"` left delimits a string; the bytes of
    other escapes go with the rest."""
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    return data.translate(None, _NOT_STRUCTURE)
