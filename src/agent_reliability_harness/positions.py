"""Line positions of trace and step objects in a JSON document's text, for SARIF regions.

One linear pass over tokens with an explicit stack (no recursion, no second parse);
it assumes the text already decoded as JSON and never validates it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import msgspec

from .io import Document

# Strings, punctuation and bare scalars; whitespace is skipped. Strings cannot hold a raw
# line break in valid JSON, so every "\n" in the text is a real line end.
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+')
# A bracket, or a run of anything else between brackets (strings read whole).
_COARSE = re.compile(r'[{}\[\]]|(?:[^"{}\[\]]+|"(?:[^"\\\n]|\\.)*")+')
_DEPTH = {"{": 1, "[": 1, "}": -1, "]": -1}  # how a bracket moves the nesting depth

_ROOT_ARRAY = 0
_TRACE = 1
_STEPS = 2
_OTHER = 3


class TracePosition(msgspec.Struct, frozen=True):
    """1-based start line of one trace value and of each element of its "steps" array."""

    line: int
    step_lines: tuple[int, ...] = ()


class _Frame(msgspec.Struct):
    is_object: bool
    role: int
    key: str | None = None  # object: the key whose value comes next
    expect_key: bool = True  # object: the next string is a key


def trace_positions(text: str) -> list[TracePosition]:
    """Positions of the single trace object, or of each element of a top-level array.

    Step lines come from the last "steps" key of a trace object, as json.loads keeps
    the last of duplicate keys; a trace without a "steps" array has no step lines.
    Only the document, its traces and their "steps" arrays are read token by token;
    inside any other value (a step, metadata) only brackets are counted, over runs of
    everything else (strings whole) read as one token.
    """
    scanner = _Scanner(text)
    fine = _TOKEN.finditer
    skip = 0  # depth inside a value whose insides are never recorded
    for match in _COARSE.finditer(text):
        token = match.group()
        if skip:
            skip += _DEPTH.get(token, 0)
        elif token in _DEPTH:
            skip = scanner.token(match)
        else:  # a run between brackets, read token by token here
            for part in fine(text, match.start(), match.end()):
                scanner.token(part)
    return [TracePosition(start, tuple(steps)) for start, steps in scanner.found]


class _Scanner:
    """The token-by-token reading of the levels whose values are recorded."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.found: list[tuple[int, list[int]]] = []
        self.stack: list[_Frame] = []
        self.line = 1
        self.counted = 0  # line breaks before this offset are already in `line`

    def token(self, match: re.Match[str]) -> int:
        """Read one token; 1 when it opens a value whose insides are never recorded."""
        token, stack = match.group(), self.stack
        if token in {",", ":"}:
            if stack and stack[-1].is_object:
                stack[-1].expect_key = token == ","
            return 0
        if token in {"}", "]"}:
            if stack:
                stack.pop()
            return 0
        parent = stack[-1] if stack else None
        if parent is not None and parent.is_object and parent.expect_key:
            parent.key = _key_text(token)
            return 0
        self.line += self.text.count("\n", self.counted, match.start())
        self.counted = match.start()
        role = _value_started(parent, token, self.line, self.found)
        if token not in {"{", "["}:
            return 0
        if role == _OTHER:
            return 1
        stack.append(_Frame(is_object=token == "{", role=role))
        return 0


def _value_started(
    parent: _Frame | None, token: str, line: int, found: list[tuple[int, list[int]]]
) -> int:
    """Record a value that starts on `line`; return the role a container there would play."""
    if parent is None:  # the document itself: one trace object, or an array of traces
        if token == "[":
            return _ROOT_ARRAY
        found.append((line, []))
        return _TRACE
    if parent.role == _ROOT_ARRAY:
        found.append((line, []))
        return _TRACE
    if parent.role == _TRACE and parent.key == "steps" and token == "[":
        found[-1][1].clear()  # a repeated "steps" key replaces the earlier one
        return _STEPS
    if parent.role == _TRACE and parent.key == "steps":
        found[-1][1].clear()  # "steps" is not an array: no step lines
    elif parent.role == _STEPS:
        found[-1][1].append(line)
    return _OTHER


def _key_text(token: str) -> str | None:
    """The text of a key token, decoded only when it holds an escape (e.g. "st\\u0065ps")."""
    if "\\" not in token:
        return token[1:-1]
    try:
        value = json.loads(token)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _on_one_line(element: Any) -> TracePosition:
    """What trace_positions finds for a trace written on line 1 with no line break:
    line 1 for it and for each element of its "steps" array (the decoded value holds
    the last of duplicate keys, as the scanner keeps the last "steps" array)."""
    steps = element.get("steps") if isinstance(element, dict) else None
    return TracePosition(1, (1,) * len(steps) if isinstance(steps, list) else ())


def locate_traces(
    document: Document, candidates: Sequence[Any]
) -> list[tuple[int, tuple[int, ...]]] | None:
    """(trace line, step lines) for each canonical trace a document yielded, in order.

    None when the document's text was not kept. A trace an adapter built from
    another format has no object of its own in the file: it gets the document's
    first line and no step lines.
    """
    if document.text is None:
        return None
    offset = (document.line or 1) - 1  # a JSONL document is one line of its file
    value = document.value
    elements = value if isinstance(value, list) else [value]
    text = document.text
    if "\n" in text.rstrip():
        positions = trace_positions(text)
    else:  # one line (a JSONL line, a compact file): every value starts on line 1
        positions = [_on_one_line(element) for element in elements]
    if len(positions) != len(elements):
        positions = []
    located: list[tuple[int, tuple[int, ...]]] = []
    for index, candidate in enumerate(candidates):
        same = index < len(positions) and candidate is elements[index]
        if same:
            where = positions[index]
            located.append((where.line + offset, tuple(n + offset for n in where.step_lines)))
        else:
            located.append((document.start_line, ()))
    return located
