"""What a source holds for data flow (policy v1.1 section 6): the folded texts and JSON
numbers of a tool output, and the taint regions that injection markers open in them."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import msgspec

from .units import decimal_form, fold, is_number


class MatchLike(Protocol):
    def start(self) -> int: ...
    def end(self) -> int: ...


class Searcher(Protocol):
    """A compiled pattern: `re2.compile(...)` (what the policy loader builds) or `re`."""

    def finditer(self, text: str) -> Iterable[MatchLike]: ...


class Marker(msgspec.Struct, frozen=True):
    """One `untrusted_if` pattern: its source text (for messages) and compiled form,
    which must search case-insensitively."""

    pattern: str
    regex: Searcher


class OutputTexts(msgspec.Struct):
    """`texts`: folded strings (keys included) and decimal forms of numbers;
    `searched`: the folded strings markers are searched in
    (a string holding a JSON object or array is replaced by its own strings, but stays
    a text too); `numbers`: the JSON numbers."""

    texts: list[str] = msgspec.field(default_factory=list)
    searched: list[str] = msgspec.field(default_factory=list)
    numbers: list[int | float] = msgspec.field(default_factory=list)


_JSON_START = re.compile(r"\s*[\[{]")
_MAY_START = frozenset("[{ \t\n\r")


def _parsed(text: str) -> Any:
    """The object or array a string holds, else None."""
    if text[:1] not in _MAY_START or not _JSON_START.match(text):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict | list) else None


def output_texts(output: Any) -> OutputTexts:
    """Every string (dict keys too) and number of an output, at any depth. The order
    of the lists is no part of the contract: every answer takes minima over them."""
    out = OutputTexts()
    texts, searched, numbers = out.texts, out.searched, out.numbers
    stack: list[Any] = [output]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            stack.extend(_string(item, texts, searched))
        elif isinstance(item, dict):
            for key, value in item.items():
                folded = fold(key if type(key) is str else str(key))
                texts.append(folded)
                searched.append(folded)
                if type(value) is str:
                    stack.extend(_string(value, texts, searched))
                else:
                    stack.append(value)
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif is_number(item):
            numbers.append(item)
            text = decimal_form(item)
            if text is not None:
                texts.append(text)
    return out


def _string(text: str, texts: list[str], searched: list[str]) -> tuple[Any, ...]:
    """Record one string; what it holds, when it holds JSON, is left to walk."""
    folded = fold(text)
    texts.append(folded)
    inner = _parsed(text)
    if inner is None:
        searched.append(folded)
        return ()
    return (inner,)


def taint_regions(folded: str, markers: Sequence[Marker], window: int) -> list[tuple[str, int]]:
    """(region, marker index) for each match of each marker in a folded string: from
    the match's start to the end of the string, at most `window` characters. Empty
    matches open no region (a pattern that matches nothing cannot mark anything)."""
    regions: list[tuple[str, int]] = []
    for number, marker in enumerate(markers):
        for match in marker.regex.finditer(folded):
            if match.end() > match.start():
                start = match.start()
                regions.append((folded[start : start + window], number))
    return regions
