"""The per-trace source index of data flow (policy v1.1 section 6): sources and questions
are recorded as the trace is read, and every question is answered at the end in one
pass over the distinct source texts (`resolve`).

Answering at the end is what keeps the cost near-linear: a question asked at step s
concerns the sources before s, and the earliest occurrence of a unit in each kind of
source settles every such question at once. The index keeps each distinct folded
source text once (memory O(distinct source text)) and the asked argument values.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from fnmatch import fnmatchcase
from typing import Any, NamedTuple

import msgspec

from .occurrences import NEVER, TAINT, TRUSTED, Seen, numbers, search
from .sources import Marker, output_texts, taint_regions
from .units import Unit, fold, grounded_leaves, value_units

INPUT_POSITION = -1


class DataflowOptions(msgspec.Struct, frozen=True):
    """The `dataflow` keys the index needs; `untrusted_if` None means absent."""

    min_value_length: int = 6
    untrusted_if: tuple[Marker, ...] | None = None
    taint_window: int = 400
    trusted_values: tuple[str, ...] = ()


class TaintedUnit(NamedTuple):
    """A unit of a sink argument from a taint source: the earliest such source's
    position and, with `untrusted_if`, the marker whose region held it (the first in
    `untrusted_if` order among that source's regions holding it)."""

    unit: Unit
    source: int
    pattern: str | None


class TaintedArgument(NamedTuple):
    name: str
    units: tuple[TaintedUnit, ...]


class SinkResult(NamedTuple):
    """One `ask_sink`: the checked arguments holding a tainted unit, by name."""

    position: int
    tainted: tuple[TaintedArgument, ...]


class GroundedResult(NamedTuple):
    """One `ask_grounded`: `missing` is the first leaf found in no earlier source."""

    position: int
    name: str
    missing: Unit | None


class Resolution(msgspec.Struct, frozen=True):
    """The answers, in the order the questions were asked."""

    sinks: tuple[SinkResult, ...]
    grounded: tuple[GroundedResult, ...]


class SourceIndex:
    """Record trace inputs (`add_input`), tool outputs (`add_output`) and questions
    (`ask_sink`, `ask_grounded`) in any order; positions order them (a source counts
    for a question when its position is smaller; inputs come before every step)."""

    def __init__(self, options: DataflowOptions) -> None:
        self.options = options
        self._texts: dict[str, Seen] = {}
        self._numbers: dict[int | float, Seen] = {}
        self._first_taint = NEVER
        # Questions keep their values; units are taken only when an answer can need them.
        self._sinks: list[tuple[int, Mapping[str, Any], Collection[str] | None]] = []
        self._grounded: list[tuple[int, str, Any]] = []
        self._trusted_globs = tuple(fold(g) for g in options.trusted_values)

    def add_input(self, text: str) -> None:
        """A trace input (user, system or developer text): trusted."""
        found = output_texts(text)
        self._add_found(INPUT_POSITION, found.texts, found.numbers, TRUSTED)

    def add_output(self, position: int, output: Any, untrusted: bool) -> None:
        """The output of the call at `position`; `untrusted`: its tool is labelled so."""
        found = output_texts(output)
        markers = self.options.untrusted_if
        if markers is None:
            self._add_found(position, found.texts, found.numbers, TAINT if untrusted else TRUSTED)
            return
        regions = [
            region
            for text in found.searched
            for region in taint_regions(text, markers, self.options.taint_window)
        ]
        # A marked output is neither trusted nor (outside its regions) taint; an
        # unmarked output of an untrusted tool is neutral.
        kinds = 0 if regions or untrusted else TRUSTED
        self._add_found(position, found.texts, found.numbers, kinds)
        for region, marker in regions:
            seen = self._texts.get(region)
            if seen is None:
                seen = self._texts[region] = Seen()
            seen.note(position, TAINT, marker)
            self._first_taint = min(self._first_taint, position)

    def _add_found(
        self, position: int, texts: list[str], found_numbers: list[int | float], kinds: int
    ) -> None:
        known = self._texts
        taint = kinds & TAINT
        trusted = kinds & TRUSTED
        if taint and (texts or found_numbers):
            self._first_taint = min(self._first_taint, position)
        for text in texts:
            seen = known.get(text)
            if seen is None:
                seen = known[text] = Seen()
            # Seen.note, inlined: this runs for every string of every output.
            seen.any = min(seen.any, position)
            if trusted and position < seen.trusted:
                seen.trusted = position
            if taint and (position, -1) < (seen.taint, seen.marker):
                seen.taint, seen.marker = position, -1
        for number in found_numbers:
            seen = self._numbers.get(number)
            if seen is None:
                seen = self._numbers[number] = Seen()
            seen.note(position, kinds)

    def ask_sink(
        self, position: int, arguments: Mapping[str, Any] | None, checked: Collection[str] | None
    ) -> None:
        """A sink call: which of its `checked` arguments (None: all) carry a unit from a
        taint source and from no trusted source, matching no `trusted_values`."""
        self._sinks.append((position, arguments or {}, checked))

    def ask_grounded(self, position: int, name: str, value: Any) -> None:
        """A grounded argument: does each of its leaves occur in some earlier source."""
        self._grounded.append((position, name, value))

    def _sink_units(
        self, arguments: Mapping[str, Any], checked: Collection[str] | None
    ) -> list[tuple[str, list[Unit]]]:
        asked = []
        globs = self._trusted_globs
        for name in sorted(arguments):
            if checked is not None and name not in checked:
                continue
            units = value_units(arguments[name], self.options.min_value_length)
            if globs:
                units = [u for u in units if not any(fnmatchcase(u.text, g) for g in globs)]
            asked.append((name, units))
        return asked

    def resolve(self) -> Resolution:
        """Answer every question asked so far."""
        # A sink asked before the first taint source can have no tainted unit.
        sink_units = [
            self._sink_units(arguments, checked) if position > self._first_taint else []
            for position, arguments, checked in self._sinks
        ]
        leaves = [grounded_leaves(value) for _, _, value in self._grounded]
        units = [u for asked in sink_units for _, us in asked for u in us]
        units.extend(u for found in leaves for u in found)
        seen = self._occurrences(units)
        sinks = [
            SinkResult(position, self._tainted(position, asked, seen))
            for (position, _, _), asked in zip(self._sinks, sink_units, strict=True)
        ]
        grounded = [
            GroundedResult(
                position, name, next((u for u in found if seen[_key(u)].any >= position), None)
            )
            for (position, name, _), found in zip(self._grounded, leaves, strict=True)
        ]
        return Resolution(tuple(sinks), tuple(grounded))

    def _tainted(
        self, position: int, asked: list[tuple[str, list[Unit]]], seen: dict[tuple[bool, Any], Seen]
    ) -> tuple[TaintedArgument, ...]:
        markers = self.options.untrusted_if or ()
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
        return tuple(tainted)

    def sink_answer(
        self, position: int, arguments: Mapping[str, Any], checked: Collection[str] | None
    ) -> SinkResult:
        """What `resolve` would answer an `ask_sink` at `position`, from the sources so
        far (the guard's question about a call before it runs; nothing is recorded)."""
        if position <= self._first_taint:
            return SinkResult(position, ())
        asked = self._sink_units(arguments, checked)
        seen = self._occurrences([u for _, us in asked for u in us])
        return SinkResult(position, self._tainted(position, asked, seen))

    def grounded_answer(self, position: int, name: str, value: Any) -> GroundedResult:
        """What `resolve` would answer an `ask_grounded` at `position` (nothing recorded)."""
        found = grounded_leaves(value)
        seen = self._occurrences(found)
        missing = next((u for u in found if seen[_key(u)].any >= position), None)
        return GroundedResult(position, name, missing)

    def _occurrences(self, units: list[Unit]) -> dict[tuple[bool, Any], Seen]:
        strings = sorted({u.text for u in units if u.number is None})
        wanted = {u.number for u in units if u.number is not None}
        found: dict[tuple[bool, Any], Seen] = {}
        for text, seen in zip(strings, search(strings, self._texts), strict=True):
            found[(True, text)] = seen
        for number, seen in numbers(wanted, self._numbers, self._texts).items():
            found[(False, number)] = seen
        return found


def _key(unit: Unit) -> tuple[bool, Any]:
    return (True, unit.text) if unit.number is None else (False, unit.number)
