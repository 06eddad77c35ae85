"""Where the units a trace asks about occur: the earliest position of each in each kind
of source, found in one pass over the distinct source texts (joined into chunks, so a
single RE2 set search covers many texts) and over their numbers."""

from __future__ import annotations

import re
import sys
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from typing import Any

from .literals import LiteralSearch, encode
from .units import NUMERAL, numeral_value

NEVER = sys.maxsize
TRUSTED, TAINT = 1, 2
_CHUNK = 1 << 14
_SEPARATOR = "\x00"
# Beyond this many wanted integer parts, an alternation screens too slowly to pay.
_SCREEN_LIMIT = 64


class Seen:
    """The earliest position of a text (or number) in a trusted source, in a taint
    source (with its marker; -1 for none) and in any source at all."""

    __slots__ = ("any", "marker", "taint", "trusted")

    def __init__(self) -> None:
        self.trusted = self.taint = self.any = NEVER
        self.marker = -1

    def note(self, position: int, kinds: int, marker: int = -1) -> None:
        self.any = min(self.any, position)
        if kinds & TRUSTED:
            self.trusted = min(self.trusted, position)
        if kinds & TAINT and (position, marker) < (self.taint, self.marker):
            self.taint, self.marker = position, marker

    def merge(self, other: Seen) -> None:
        self.any = min(self.any, other.any)
        self.trusted = min(self.trusted, other.trusted)
        self.taint, self.marker = min((self.taint, self.marker), (other.taint, other.marker))


def _chunks(texts: Mapping[str, Seen]) -> list[tuple[str, list[int], list[Seen]]]:
    """The texts joined by a separator into chunks of about _CHUNK characters, with
    each text's start offset, so one search call covers many texts."""
    out: list[tuple[str, list[int], list[Seen]]] = []
    parts: list[str] = []
    starts: list[int] = []
    seen: list[Seen] = []
    size = 0
    for text, where in texts.items():
        if size and size + len(text) > _CHUNK:
            out.append((_SEPARATOR.join(parts), starts, seen))
            parts, starts, seen, size = [], [], [], 0
        starts.append(size)
        parts.append(text)
        seen.append(where)
        size += len(text) + 1
    if parts:
        out.append((_SEPARATOR.join(parts), starts, seen))
    return out


def search(strings: Sequence[str], texts: Mapping[str, Seen]) -> list[Seen]:
    """For each string, the merged record of the texts it is a substring of."""
    result = [Seen() for _ in strings]
    if not strings:
        return result
    # A string holding the separator could match across two texts: look it up per text.
    # A string longer than every text occurs nowhere.
    longest = max(map(len, texts), default=0)
    joinable = [i for i, s in enumerate(strings) if _SEPARATOR not in s and len(s) <= longest]
    apart = [i for i, s in enumerate(strings) if _SEPARATOR in s and len(s) <= longest]
    if not joinable and not apart:
        return result
    search = LiteralSearch([strings[i] for i in joinable])
    for chunk, starts, seen in _chunks(texts):
        data = encode(chunk)
        for n in search.occurring(data):
            i = joinable[n]
            _merge_containing(result[i], strings[i], chunk, starts, seen)
    for i in apart:
        for text, where in texts.items():
            if strings[i] in text:
                result[i].merge(where)
    return result


def _merge_containing(
    into: Seen, needle: str, chunk: str, starts: list[int], seen: list[Seen]
) -> None:
    at = chunk.find(needle)
    while at >= 0:
        k = bisect_right(starts, at) - 1
        into.merge(seen[k])
        following = starts[k + 1] if k + 1 < len(starts) else len(chunk)
        at = chunk.find(needle, following)


def numbers(
    wanted: set[Any], numbers: Mapping[int | float, Seen], texts: Mapping[str, Seen]
) -> dict[Any, Seen]:
    """For each number, the merged record of the sources holding it as a JSON number
    or as a numeral inside a text."""
    result: dict[Any, Seen] = {n: Seen() for n in wanted}
    if not wanted:
        return result
    for number, seen in result.items():
        where = numbers.get(number)
        if where is not None:
            seen.merge(where)
    # A numeral of a wanted value holds that value's integer digits: texts without any
    # of them cannot hold one, and only the others are read numeral by numeral.
    digits = sorted({str(int(abs(n))) for n in wanted}, key=len, reverse=True)
    screen = re.compile("|".join(digits)) if len(digits) <= _SCREEN_LIMIT else None
    for text, where in texts.items():
        if screen is not None and not screen.search(text):
            continue
        for match in NUMERAL.finditer(text):
            value = _signed(text, match.start(), match.group())
            if value is not None and value in result:
                result[value].merge(where)
    return result


def _signed(text: str, start: int, numeral: str) -> int | float | None:
    value = numeral_value(numeral)
    if value is None:
        return None
    # "-5" is minus five after a space or at the start, not in "id-5" or "3-5".
    if start and text[start - 1] == "-" and (start == 1 or not text[start - 2].isalnum()):
        return -value
    return value
