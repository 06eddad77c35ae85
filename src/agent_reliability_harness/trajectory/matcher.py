"""The trajectory matcher: takes the considered calls one at a time (in trace order, so
a trace read a chunk at a time works), keeps a few integers per call, and gives the
matching, the missing entries with their nearest calls, the unexpected calls and the
sequence-category checks.
"""

from __future__ import annotations

from array import array
from bisect import insort
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .model import EntryTest, ToolFilter, TrajectorySpec
from .ordered import OrderedInput, match_ordered
from .unordered import CallClass, match_unordered


@dataclass(frozen=True, slots=True)
class NearestCall:
    """The unmatched call of a missing entry's tool with the most argument keys equal to
    the entry's (the earliest on ties), its arguments as recorded."""

    position: int
    arguments: Mapping[str, Any]
    equal_keys: int


@dataclass(frozen=True, slots=True)
class MissingCall:
    """An unmatched non-optional entry (ARH-SEQ-006), by index in `expected`."""

    entry: int
    nearest: NearestCall | None


@dataclass(frozen=True, slots=True)
class TrajectoryResult:
    """`matched`: (entry index, call position) in entry order; `unexpected`: positions of
    considered calls matching no entry, in trace order, only in the modes that forbid
    them (ARH-SEQ-007); `checks`/`failed`: the sequence category's counts."""

    matched: tuple[tuple[int, int], ...]
    missing: tuple[MissingCall, ...]
    unexpected: Sequence[int]
    considered: int
    checks: int
    failed: int


class _Slot:
    """One entry as a call of its tool meets it: its bit in the signature, its test,
    and (non-optional entries, modes that report missing calls) its nearest candidates."""

    __slots__ = ("bit", "limit", "nearest", "test")

    def __init__(self, index: int, test: EntryTest, limit: int, keeps: bool) -> None:
        self.bit = 1 << index
        self.test = test
        self.limit = limit
        # (-equal keys, call number, arguments), best first; None: not kept.
        self.nearest: list[tuple[int, int, Mapping[str, Any]]] | None = [] if keeps else None

    def keep(self, equal: int, number: int, args: Mapping[str, Any]) -> None:
        # At most `limit - 1` calls of the tool can be matched, so the best unmatched one
        # is always among the best `limit`; calls come in order, so a tie never displaces.
        kept = self.nearest
        if kept is None:
            return
        if len(kept) < self.limit:
            insort(kept, (-equal, number, args), key=_rank)
        elif -equal < kept[-1][0]:
            kept.pop()
            insort(kept, (-equal, number, args), key=_rank)


def _rank(item: tuple[int, int, Mapping[str, Any]]) -> tuple[int, int]:
    return item[0], item[1]


class _ToolCalls:
    """The considered calls of one expected tool: their numbers and signature ids."""

    __slots__ = ("numbers", "sigs", "slots")

    def __init__(self, slots: list[_Slot]) -> None:
        self.slots = slots
        self.numbers: array[int] = array("I")
        self.sigs: array[int] = array("I")


class TrajectoryMatcher:
    """Feed every status-ok call with a tool name to `add`, in trace order (`position`
    is the caller's label for it, such as the step index); then call `finish` once.

    Per considered call it keeps its position (8 bytes) and, for a call of a tool some
    entry names, its number and signature id (the set of entries it fits, interned;
    4 + 4 bytes); per non-optional entry at most (entries of its tool + 1) candidates for
    the nearest call, with their argument objects. Memory is O(considered calls)
    machine integers plus O(entries^2) kept arguments; `finish` adds, one entry at a
    time, the list of calls that entry fits.
    """

    def __init__(self, spec: TrajectorySpec) -> None:
        self.spec = spec
        self._filter = ToolFilter(spec)
        self._tests = [EntryTest(entry, spec) for entry in spec.expected]
        optional = sum(1 for t in self._tests if t.optional)
        # Any non-optional match outweighs every optional one: lexicographic objective.
        self._weights = [1 if t.optional else optional + 1 for t in self._tests]
        by_tool: dict[str, list[int]] = {}
        for index, test in enumerate(self._tests):
            by_tool.setdefault(test.tool, []).append(index)
        keeps = spec.match.reports_missing
        self._slots: list[_Slot] = [
            _Slot(i, t, len(by_tool[t.tool]) + 1, keeps and not t.optional)
            for i, t in enumerate(self._tests)
        ]
        self._tools = {
            tool: _ToolCalls([self._slots[i] for i in entries]) for tool, entries in by_tool.items()
        }
        self._positions: array[int] = array("q")
        self._sig_ids: dict[int, int] = {}
        self._sig_masks: list[int] = []
        # Whether the call last added fits some entry (its tool and arguments), for the
        # wording of findings.
        self.last_fits = False

    def add(self, tool: str, arguments: Mapping[str, Any] | None, position: int) -> bool:
        """Take one call; False when `ignore_tools` leaves it out."""
        if self._filter.ignores(tool):
            return False
        number = len(self._positions)
        self._positions.append(position)
        calls = self._tools.get(tool)
        if calls is None:
            self.last_fits = False
            return True
        args: Mapping[str, Any] = arguments or {}
        ignore = self.spec.ignore_arguments
        kept = len(args) - sum(1 for k in ignore if k in args) if ignore else len(args)
        mask = 0
        for slot in calls.slots:
            if slot.test.expected is None:
                mask |= slot.bit
                equal = 0
            else:
                fits, equal = slot.test.compare(args, kept)
                if fits:
                    mask |= slot.bit
            nearest = slot.nearest
            if nearest is not None and (len(nearest) < slot.limit or -equal < nearest[-1][0]):
                slot.keep(equal, number, args)
        sig = self._sig_ids.get(mask)
        if sig is None:
            sig = self._sig_ids[mask] = len(self._sig_masks)
            self._sig_masks.append(mask)
        calls.numbers.append(number)
        calls.sigs.append(sig)
        self.last_fits = mask != 0
        return True

    def _compatible(self, index: int) -> Sequence[int]:
        calls = self._tools[self._tests[index].tool]
        bit = 1 << index
        good = {s for s, m in enumerate(self._sig_masks) if m & bit}
        if all(s in good for s in set(calls.sigs)):
            return calls.numbers
        return array("I", (n for n, s in zip(calls.numbers, calls.sigs, strict=True) if s in good))

    def _match_unordered(self) -> list[int]:
        chosen = [-1] * len(self._tests)
        for calls in self._tools.values():
            entries = [self._slots.index(slot) for slot in calls.slots]
            classes: dict[int, CallClass] = {}
            for number, sig in zip(calls.numbers, calls.sigs, strict=True):
                cls = classes.get(sig)
                if cls is None:
                    mask = self._sig_masks[sig]
                    fits = tuple(n for n, i in enumerate(entries) if mask >> i & 1)
                    cls = classes[sig] = CallClass(fits)
                if len(cls.positions) < len(cls.fits):
                    cls.positions.append(number)
            usable = [c for c in classes.values() if c.fits]
            weights = [self._weights[i] for i in entries]
            for index, number in zip(entries, match_unordered(weights, usable), strict=True):
                chosen[index] = number
        return chosen

    def finish(self) -> TrajectoryResult:
        """The optimal, deterministic matching of everything added so far."""
        if self.spec.match.ordered:
            chosen = match_ordered(OrderedInput(self._weights, self._compatible))
        else:
            chosen = self._match_unordered()
        used = {n for n in chosen if n >= 0}
        positions = self._positions
        matched = tuple((i, positions[n]) for i, n in enumerate(chosen) if n >= 0)
        missing = tuple(
            MissingCall(i, self._nearest_unmatched(i, used))
            for i, n in enumerate(chosen)
            if n < 0 and self._slots[i].nearest is not None
        )
        unexpected: Sequence[int] = ()
        checks = sum(1 for t in self._tests if not t.optional)
        if self.spec.match.forbids_extras:
            unexpected = array("q", (p for n, p in enumerate(positions) if n not in used))
            checks += len(positions)
        return TrajectoryResult(
            matched, missing, unexpected, len(positions), checks, len(missing) + len(unexpected)
        )

    def _nearest_unmatched(self, index: int, used: set[int]) -> NearestCall | None:
        for neg_equal, number, args in self._slots[index].nearest or ():
            if number not in used:
                return NearestCall(self._positions[number], args, -neg_equal)
        return None


def match_trajectory(
    spec: TrajectorySpec, calls: Iterable[tuple[str, Mapping[str, Any] | None, int]]
) -> TrajectoryResult:
    """Match the (tool, arguments, position) calls, given in trace order; the caller
    passes only status-ok calls with a tool name (failed calls are never considered)."""
    matcher = TrajectoryMatcher(spec)
    for tool, arguments, position in calls:
        matcher.add(tool, arguments, position)
    return matcher.finish()
