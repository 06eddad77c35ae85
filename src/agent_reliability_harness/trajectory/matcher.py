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


class TrajectoryMatcher:
    """Feed every status-ok call with a tool name to `add`, in trace order (`position`
    is the caller's label for it, such as the step index); then call `finish` once.

    Per considered call it keeps its position (8 bytes) and, for a call of a tool some
    entry names, a signature id (4 bytes + 4 in its tool's list); per missing-entry
    candidate at most (entries of the tool + 1) argument objects. So memory is
    O(considered calls) integers plus O(entries^2) kept arguments.
    """

    def __init__(self, spec: TrajectorySpec) -> None:
        self.spec = spec
        self._filter = ToolFilter(spec)
        self._tests = [EntryTest(entry, spec) for entry in spec.expected]
        optional = sum(1 for t in self._tests if t.optional)
        # Any non-optional match outweighs every optional one: lexicographic objective.
        self._weights = [1 if t.optional else optional + 1 for t in self._tests]
        self._by_tool: dict[str, list[int]] = {}
        for index, test in enumerate(self._tests):
            self._by_tool.setdefault(test.tool, []).append(index)
        self._positions: array[int] = array("q")
        self._tool_cands: dict[str, array[int]] = {t: array("I") for t in self._by_tool}
        self._tool_sigs: dict[str, array[int]] = {t: array("I") for t in self._by_tool}
        self._cand_call: array[int] = array("q")  # candidate -> considered-call number
        self._sig_ids: dict[int, int] = {}
        self._sig_masks: list[int] = []
        self._nearest: dict[int, list[tuple[int, int, Mapping[str, Any]]]] = {}
        if spec.match.reports_missing:
            self._nearest = {i: [] for i, t in enumerate(self._tests) if not t.optional}

    def add(self, tool: str, arguments: Mapping[str, Any] | None, position: int) -> bool:
        """Take one call; False when `ignore_tools` leaves it out."""
        if self._filter.ignores(tool):
            return False
        number = len(self._positions)
        self._positions.append(position)
        entries = self._by_tool.get(tool)
        if entries is None:
            return True
        args: Mapping[str, Any] = arguments or {}
        ignore = self.spec.ignore_arguments
        kept = len(args) - sum(1 for k in ignore if k in args) if ignore else len(args)
        mask = 0
        for index in entries:
            fits, equal = self._tests[index].compare(args, kept)
            if fits:
                mask |= 1 << index
            kept_list = self._nearest.get(index)
            if kept_list is not None:
                self._keep_nearest(kept_list, len(entries) + 1, (-equal, number, args))
        sig = self._sig_ids.setdefault(mask, len(self._sig_masks))
        if sig == len(self._sig_masks):
            self._sig_masks.append(mask)
        self._tool_cands[tool].append(len(self._cand_call))
        self._tool_sigs[tool].append(sig)
        self._cand_call.append(number)
        return True

    @staticmethod
    def _keep_nearest(
        kept: list[tuple[int, int, Mapping[str, Any]]],
        limit: int,
        item: tuple[int, int, Mapping[str, Any]],
    ) -> None:
        # At most `limit - 1` calls of the tool can be matched, so the best unmatched one
        # is always among the best `limit`; calls come in order, so ties never displace.
        if len(kept) < limit:
            insort(kept, item, key=lambda x: (x[0], x[1]))
        elif (item[0], item[1]) < (kept[-1][0], kept[-1][1]):
            kept.pop()
            insort(kept, item, key=lambda x: (x[0], x[1]))

    def _compatible(self, index: int) -> list[int]:
        tool = self._tests[index].tool
        bit = 1 << index
        masks = self._sig_masks
        good = {s for s, m in enumerate(masks) if m & bit}
        cands, sigs = self._tool_cands[tool], self._tool_sigs[tool]
        return [c for c, s in zip(cands, sigs, strict=True) if s in good]

    def _match_unordered(self) -> list[int]:
        chosen = [-1] * len(self._tests)
        for tool, entries in self._by_tool.items():
            local = {index: n for n, index in enumerate(entries)}
            classes: dict[int, CallClass] = {}
            for cand, sig in zip(self._tool_cands[tool], self._tool_sigs[tool], strict=True):
                cls = classes.get(sig)
                if cls is None:
                    mask = self._sig_masks[sig]
                    fits = tuple(local[i] for i in entries if mask >> i & 1)
                    cls = classes[sig] = CallClass(fits)
                if len(cls.positions) < len(cls.fits):
                    cls.positions.append(cand)
            usable = [c for c in classes.values() if c.fits]
            weights = [self._weights[i] for i in entries]
            for index, cand in zip(entries, match_unordered(weights, usable), strict=True):
                chosen[index] = cand
        return chosen

    def finish(self) -> TrajectoryResult:
        """The optimal, deterministic matching of everything added so far."""
        if self.spec.match.ordered:
            chosen = match_ordered(OrderedInput(self._weights, self._compatible))
        else:
            chosen = self._match_unordered()
        used = {self._cand_call[c] for c in chosen if c >= 0}
        positions = self._positions
        matched = tuple((i, positions[self._cand_call[c]]) for i, c in enumerate(chosen) if c >= 0)
        missing = tuple(
            MissingCall(i, self._nearest_unmatched(i, used))
            for i, c in enumerate(chosen)
            if c < 0 and i in self._nearest
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
        for neg_equal, number, args in self._nearest[index]:
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
