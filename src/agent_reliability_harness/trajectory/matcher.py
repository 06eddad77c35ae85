"""The trajectory matcher: takes the considered calls one at a time (in trace order, so
a trace read a chunk at a time works), keeps a few integers per call, and gives the
matching, the missing entries with their nearest calls, the unexpected calls and the
sequence-category checks.
"""

from __future__ import annotations

import json
from array import array
from bisect import bisect_left, insort
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

from .model import ArgumentsMatch, EntryTest, ToolFilter, TrajectorySpec
from .ordered import OrderedInput, match_ordered
from .unordered import CallClass, match_unordered


class NearestCall(msgspec.Struct, frozen=True):
    """The unmatched call of a missing entry's tool with the most argument keys equal to
    the entry's (the earliest on ties), its arguments as recorded and the label it was
    added with."""

    position: int
    arguments: Mapping[str, Any]
    equal_keys: int
    label: Any = None


class MissingCall(msgspec.Struct, frozen=True):
    """An unmatched non-optional entry (ARH-SEQ-006), by index in `expected`."""

    entry: int
    nearest: NearestCall | None


class TrajectoryResult(msgspec.Struct, frozen=True):
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
        # (-equal keys, call number, arguments, label), best first; None: not kept.
        self.nearest: list[_Kept] | None = [] if keeps else None

    def keep(self, equal: int, number: int, args: Mapping[str, Any], label: Any) -> None:
        # At most `limit - 1` calls of the tool can be matched, so the best unmatched one
        # is always among the best `limit`; calls come in order, so a tie never displaces.
        kept = self.nearest
        if kept is None:
            return
        if len(kept) < self.limit:
            insort(kept, (-equal, number, args, label), key=_rank)
        elif -equal < kept[-1][0]:
            kept.pop()
            insort(kept, (-equal, number, args, label), key=_rank)


_Kept = tuple[int, int, Mapping[str, Any], Any]


def _rank(item: _Kept) -> tuple[int, int]:
    return item[0], item[1]


class _Group:
    """The entries of one tool with the same test (mode and arguments): a call is
    compared with them once. `keeping`: those of them that keep nearest candidates."""

    __slots__ = ("bits", "keeping", "test")

    def __init__(self, test: EntryTest) -> None:
        self.test = test
        self.bits = 0
        self.keeping: list[_Slot] = []


class _ToolCalls:
    """The considered calls of one expected tool: their numbers and signature ids, and
    its entries: tool-only ones fit every call (`always`), the others by group."""

    __slots__ = ("always", "constant", "groups", "kept_keys", "numbers", "plain", "sigs", "slots")

    def __init__(self, slots: list[_Slot]) -> None:
        self.slots = slots
        self.numbers: array[int] = array("I")
        self.sigs: array[int] = array("I")
        self.always = 0
        self.plain: list[_Slot] = []  # tool-only entries that keep nearest candidates
        # The signature id of every further call, once nothing about a call can change
        # it: every entry is tool-only and no nearest candidate is wanted any more.
        self.constant: int | None = None
        groups: dict[tuple[str, str], _Group] = {}
        for slot in slots:
            test = slot.test
            if test.expected is None:
                self.always |= slot.bit
                if slot.nearest is not None:
                    self.plain.append(slot)
                continue
            key = (test.mode.value, json.dumps(test.expected, sort_keys=True, default=repr))
            group = groups.get(key)
            if group is None:
                group = groups[key] = _Group(test)
            group.bits |= slot.bit
            if slot.nearest is not None:
                group.keeping.append(slot)
        self.groups = list(groups.values())
        # Only an exact comparison needs the call's count of compared keys.
        self.kept_keys = any(g.test.mode is ArgumentsMatch.EXACT for g in self.groups)


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

    def __init__(self, spec: TrajectorySpec, keep_labels: bool = False) -> None:
        """`keep_labels`: keep every considered call's label and whether it fits some
        entry (8 + 1 more bytes per call), for `label_of`."""
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
        # wording of findings; with keep_labels, the same for every considered call.
        self.last_fits = False
        self.labels: list[Any] | None = [] if keep_labels else None
        self.fits = bytearray()

    def add(
        self, tool: str, arguments: Mapping[str, Any] | None, position: int, label: Any = None
    ) -> bool:
        """Take one call; False when `ignore_tools` leaves it out. `label` is kept with
        the call if it becomes a nearest-call candidate (NearestCall.label), and with
        every considered call when the matcher keeps labels."""
        before = len(self._positions)
        self.add_many(((tool, arguments, position, label),))
        return len(self._positions) > before

    def add_many(self, calls: Iterable[tuple[str, Mapping[str, Any] | None, int, Any]]) -> None:
        """`add` for each (tool, arguments, position, label), in order."""
        ignored, ignores = self._filter.cache, self._filter.ignores
        positions, tools = self._positions, self._tools
        labels, fits = self.labels, self.fits
        last = self.last_fits
        number = len(positions)
        for tool, arguments, position, label in calls:
            skip = ignored.get(tool)
            if skip or (skip is None and ignores(tool)):
                continue
            positions.append(position)
            known = tools.get(tool)
            if known is None:
                last = False
            elif known.constant is not None:  # tool-only entries, nothing left to keep
                known.numbers.append(number)
                known.sigs.append(known.constant)
                last = True
            else:
                last = self._signature(known, arguments or {}, number, label) != 0
            number += 1
            if labels is not None:
                labels.append(label)
                fits.append(last)
        self.last_fits = last

    def _signature(
        self, calls: _ToolCalls, args: Mapping[str, Any], number: int, label: Any
    ) -> int:
        """Record a call of an expected tool: the entries it fits (a mask), its nearest-call
        candidacy, and its number and interned signature."""
        mask = calls.always
        if calls.groups:
            kept = 0
            if calls.kept_keys:
                ignore = self.spec.ignore_arguments
                kept = len(args) - sum(1 for k in ignore if k in args) if ignore else len(args)
            for group in calls.groups:
                fits, equal = group.test.compare(args, kept)
                if fits:
                    mask |= group.bits
                for slot in group.keeping:
                    nearest = slot.nearest
                    assert nearest is not None
                    if len(nearest) < slot.limit or -equal < nearest[-1][0]:
                        slot.keep(equal, number, args, label)
        if calls.plain:
            # Equal keys are 0 for a tool-only entry: only its first `limit` calls are kept.
            for slot in calls.plain:
                if len(slot.nearest or ()) < slot.limit:
                    slot.keep(0, number, args, label)
            calls.plain = [s for s in calls.plain if len(s.nearest or ()) < s.limit]
        sig = self._sig_ids.get(mask)
        if sig is None:
            sig = self._sig_ids[mask] = len(self._sig_masks)
            self._sig_masks.append(mask)
        calls.numbers.append(number)
        calls.sigs.append(sig)
        if not calls.groups and not calls.plain:
            calls.constant = sig
        return mask

    def label_of(self, position: int) -> tuple[Any, bool]:
        """(label, fits some entry) of the considered call at `position` (labels kept)."""
        number = bisect_left(self._positions, position)
        assert self.labels is not None
        return self.labels[number], bool(self.fits[number])

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
        for neg_equal, number, args, label in self._slots[index].nearest or ():
            if number not in used:
                return NearestCall(self._positions[number], args, -neg_equal, label)
        return None

    def considered_calls(self, tool: str) -> int:
        """How many considered calls of a tool some entry names were added so far."""
        calls = self._tools.get(tool)
        return 0 if calls is None else len(calls.numbers)


def match_trajectory(
    spec: TrajectorySpec, calls: Iterable[tuple[str, Mapping[str, Any] | None, int]]
) -> TrajectoryResult:
    """Match the (tool, arguments, position) calls, given in trace order; the caller
    passes only status-ok calls with a tool name (failed calls are never considered)."""
    matcher = TrajectoryMatcher(spec)
    matcher.add_many((tool, arguments, position, None) for tool, arguments, position in calls)
    return matcher.finish()
