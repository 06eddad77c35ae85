"""The per-trace source index of data flow (policy v1.1 section 6): sources and questions
are recorded as the trace is read, and every question is answered at the end in one
pass over the distinct source texts (`resolve`).

Answering at the end is what keeps the cost near-linear: a question asked at step s
concerns the sources before s, and the earliest occurrence of a unit in each kind of
source settles every such question at once. The index keeps each distinct folded
source text once (memory O(distinct source text)) plus the questions' units.
"""

from __future__ import annotations

import sys
from bisect import bisect_right
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from .literals import LiteralSearch, encode
from .sources import Marker, output_texts, taint_regions
from .units import NUMERAL, Unit, fold, grounded_leaves, numeral_value, value_units

INPUT_POSITION = -1
_NEVER = sys.maxsize
_TRUSTED, _TAINT = 1, 2
_CHUNK = 1 << 18
_SEPARATOR = "\x00"


@dataclass(frozen=True, slots=True)
class DataflowOptions:
    """The `dataflow` keys the index needs; `untrusted_if` None means absent."""

    min_value_length: int = 6
    untrusted_if: tuple[Marker, ...] | None = None
    taint_window: int = 400
    trusted_values: tuple[str, ...] = ()


class _Seen:
    """The earliest position of a text (or number) in a trusted source, in a taint
    source (with its marker; -1 for none) and in any source at all."""

    __slots__ = ("any", "marker", "taint", "trusted")

    def __init__(self) -> None:
        self.trusted = self.taint = self.any = _NEVER
        self.marker = -1

    def note(self, position: int, kinds: int, marker: int = -1) -> None:
        self.any = min(self.any, position)
        if kinds & _TRUSTED:
            self.trusted = min(self.trusted, position)
        if kinds & _TAINT and (position, marker) < (self.taint, self.marker):
            self.taint, self.marker = position, marker

    def merge(self, other: _Seen) -> None:
        self.any = min(self.any, other.any)
        self.trusted = min(self.trusted, other.trusted)
        self.taint, self.marker = min((self.taint, self.marker), (other.taint, other.marker))


@dataclass(frozen=True, slots=True)
class TaintedUnit:
    """A unit of a sink argument from a taint source: the earliest such source's
    position and, with `untrusted_if`, the marker whose region held it."""

    unit: Unit
    source: int
    pattern: str | None


@dataclass(frozen=True, slots=True)
class TaintedArgument:
    name: str
    units: tuple[TaintedUnit, ...]


@dataclass(frozen=True, slots=True)
class SinkResult:
    """One `ask_sink`: the checked arguments holding a tainted unit, by name."""

    position: int
    tainted: tuple[TaintedArgument, ...]


@dataclass(frozen=True, slots=True)
class GroundedResult:
    """One `ask_grounded`: `missing` is the first leaf found in no earlier source."""

    position: int
    name: str
    missing: Unit | None


@dataclass(frozen=True, slots=True)
class Resolution:
    """The answers, in the order the questions were asked."""

    sinks: tuple[SinkResult, ...]
    grounded: tuple[GroundedResult, ...]


class SourceIndex:
    """Record trace inputs (`add_input`), tool outputs (`add_output`) and questions
    (`ask_sink`, `ask_grounded`) in any order; positions order them (a source counts
    for a question when its position is smaller; inputs come before every step)."""

    def __init__(self, options: DataflowOptions) -> None:
        self.options = options
        self._texts: dict[str, _Seen] = {}
        self._numbers: dict[int | float, _Seen] = {}
        self._sinks: list[tuple[int, list[tuple[str, list[Unit]]]]] = []
        self._grounded: list[tuple[int, str, list[Unit]]] = []
        self._trusted_globs = tuple(fold(g) for g in options.trusted_values)

    def _note(self, text: str, position: int, kinds: int, marker: int = -1) -> None:
        seen = self._texts.get(text)
        if seen is None:
            seen = self._texts[text] = _Seen()
        seen.note(position, kinds, marker)

    def add_input(self, text: str) -> None:
        """A trace input (user, system or developer text): trusted."""
        self._add(INPUT_POSITION, text, _TRUSTED)

    def add_output(self, position: int, output: Any, untrusted: bool) -> None:
        """The output of the call at `position`; `untrusted`: its tool is labelled so."""
        markers = self.options.untrusted_if
        if markers is None:
            self._add(position, output, _TAINT if untrusted else _TRUSTED)
            return
        found = output_texts(output)
        regions = [
            region
            for text in found.searched
            for region in taint_regions(text, markers, self.options.taint_window)
        ]
        # A marked output is neither trusted nor (outside its regions) taint; an
        # unmarked output of an untrusted tool is neutral.
        kinds = 0 if regions or untrusted else _TRUSTED
        self._add_found(position, found.texts, found.numbers, kinds)
        for region, marker in regions:
            self._note(region, position, _TAINT, marker)

    def _add(self, position: int, value: Any, kinds: int) -> None:
        found = output_texts(value)
        self._add_found(position, found.texts, found.numbers, kinds)

    def _add_found(
        self, position: int, texts: list[str], numbers: list[int | float], kinds: int
    ) -> None:
        for text in texts:
            self._note(text, position, kinds)
        for number in numbers:
            seen = self._numbers.get(number)
            if seen is None:
                seen = self._numbers[number] = _Seen()
            seen.note(position, kinds)

    def ask_sink(
        self, position: int, arguments: Mapping[str, Any] | None, checked: Collection[str] | None
    ) -> None:
        """A sink call: which of its `checked` arguments (None: all) carry a unit from a
        taint source and from no trusted source, matching no `trusted_values`."""
        asked: list[tuple[str, list[Unit]]] = []
        for name in sorted(arguments or {}):
            if checked is not None and name not in checked:
                continue
            units = value_units(arguments[name], self.options.min_value_length)  # type: ignore[index]
            asked.append((name, [u for u in units if not self._trusted_value(u)]))
        self._sinks.append((position, asked))

    def ask_grounded(self, position: int, name: str, value: Any) -> None:
        """A grounded argument: does each of its leaves occur in some earlier source."""
        self._grounded.append((position, name, grounded_leaves(value)))

    def _trusted_value(self, unit: Unit) -> bool:
        return any(fnmatchcase(unit.text, glob) for glob in self._trusted_globs)

    def resolve(self) -> Resolution:
        """Answer every question asked so far."""
        units = [u for _, asked in self._sinks for _, us in asked for u in us]
        units.extend(u for _, _, leaves in self._grounded for u in leaves)
        seen = self._occurrences(units)
        markers = self.options.untrusted_if or ()
        sinks = []
        for position, asked in self._sinks:
            tainted = []
            for name, arg_units in asked:
                hits = []
                for unit in arg_units:
                    where = seen[_key(unit)]
                    if where.taint < position <= where.trusted:
                        pattern = markers[where.marker].pattern if where.marker >= 0 else None
                        hits.append(TaintedUnit(unit, where.taint, pattern))
                if hits:
                    tainted.append(TaintedArgument(name, tuple(hits)))
            sinks.append(SinkResult(position, tuple(tainted)))
        grounded = [
            GroundedResult(
                position, name, next((u for u in leaves if seen[_key(u)].any >= position), None)
            )
            for position, name, leaves in self._grounded
        ]
        return Resolution(tuple(sinks), tuple(grounded))

    def _occurrences(self, units: Sequence[Unit]) -> dict[tuple[bool, Any], _Seen]:
        strings = sorted({u.text for u in units if u.number is None})
        numbers = {u.number for u in units if u.number is not None}
        found: dict[tuple[bool, Any], _Seen] = {}
        for text, seen in zip(strings, _search(strings, self._texts), strict=True):
            found[(True, text)] = seen
        for number, seen in _numbers(numbers, self._numbers, self._texts).items():
            found[(False, number)] = seen
        return found


def _key(unit: Unit) -> tuple[bool, Any]:
    return (True, unit.text) if unit.number is None else (False, unit.number)


def _chunks(texts: Mapping[str, _Seen]) -> list[tuple[str, list[int], list[_Seen]]]:
    """The texts joined by a separator into chunks of about _CHUNK characters, with
    each text's start offset, so one search call covers many texts."""
    out: list[tuple[str, list[int], list[_Seen]]] = []
    parts: list[str] = []
    starts: list[int] = []
    seen: list[_Seen] = []
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


def _search(strings: Sequence[str], texts: Mapping[str, _Seen]) -> list[_Seen]:
    """For each string, the merged record of the texts it is a substring of."""
    result = [_Seen() for _ in strings]
    if not strings:
        return result
    # A string holding the separator could match across two texts: look it up per text.
    joinable = [i for i, s in enumerate(strings) if _SEPARATOR not in s]
    apart = [i for i, s in enumerate(strings) if _SEPARATOR in s]
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
    into: _Seen, needle: str, chunk: str, starts: list[int], seen: list[_Seen]
) -> None:
    at = chunk.find(needle)
    while at >= 0:
        k = bisect_right(starts, at) - 1
        into.merge(seen[k])
        following = starts[k + 1] if k + 1 < len(starts) else len(chunk)
        at = chunk.find(needle, following)


def _numbers(
    wanted: set[Any], numbers: Mapping[int | float, _Seen], texts: Mapping[str, _Seen]
) -> dict[Any, _Seen]:
    """For each number, the merged record of the sources holding it as a JSON number
    or as a numeral inside a text."""
    result: dict[Any, _Seen] = {n: _Seen() for n in wanted}
    if not wanted:
        return result
    for number, where in numbers.items():
        if number in result:
            result[number].merge(where)
    for text, where in texts.items():
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
