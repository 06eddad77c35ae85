"""Optimal ordered matching (strict, in_order): a weighted longest common subsequence
of the expected entries and the candidate calls, earliest calls among optimal ones.

Row i of the table is S_i(j), the best weight that entries i.. can reach with the calls
from j on. It is non-increasing in j and takes few distinct values (sums of entry
weights), so each row is kept as a step function: its size is bounded by the number of
distinct values, never by the number of calls. Memory is O(entries x distinct weights);
time O(sum over entries of the calls of the entry's tool) plus log factors.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence

import msgspec


class Step(msgspec.Struct):
    """A non-increasing step function on 0..U: values[k] holds from starts[k] on."""

    starts: list[int]
    values: list[int]

    def at(self, j: int) -> int:
        return self.values[bisect_right(self.starts, j) - 1]


class OrderedInput(msgspec.Struct, frozen=True):
    """Entry i has weight `weights[i]`; `compatible(i)` lists the candidates it may
    match, ascending. It is asked twice per entry and its lists are not kept, so the
    memory stays that of one list at a time."""

    weights: Sequence[int]
    compatible: Callable[[int], Sequence[int]]


def _g_segments(nxt: Step, calls: Sequence[int], weight: int) -> list[tuple[int, int, int]]:
    """(first j, last j, value) where matching the entry at its first compatible call
    >= j reaches `value`; the value only changes where that call crosses a step of
    `nxt`, so this walks the steps, not the calls."""
    out: list[tuple[int, int, int]] = []
    starts = nxt.starts
    for k, value in enumerate(nxt.values):
        # Calls p whose continuation p + 1 falls in step k.
        lo = bisect_left(calls, starts[k] - 1)
        hi = len(calls) if k + 1 == len(starts) else bisect_left(calls, starts[k + 1] - 1)
        if lo < hi:
            first = calls[lo - 1] + 1 if lo else 0
            out.append((first, calls[hi - 1], weight + value))
    return out


def next_row(nxt: Step, calls: Sequence[int], weight: int) -> Step:
    """S_i from S_{i+1}: S_i(j) = max(S_{i+1}(j), weight + S_{i+1}(c + 1)) with c the
    entry's first compatible call >= j."""
    segments = _g_segments(nxt, calls, weight)
    points = sorted({*nxt.starts, *(s for s, _, _ in segments), *(e + 1 for _, e, _ in segments)})
    starts: list[int] = []
    values: list[int] = []
    firsts = [s for s, _, _ in segments]
    for j in points:
        best = nxt.at(j)
        k = bisect_right(firsts, j) - 1
        if k >= 0 and j <= segments[k][1]:
            best = max(best, segments[k][2])
        if not values or values[-1] != best:
            starts.append(j)
            values.append(best)
    return Step(starts, values)


def match_ordered(data: OrderedInput) -> list[int]:
    """The candidate matched by each entry (-1: none): maximum total weight, and among
    those the lexicographically smallest vector of matched candidates in entry order
    (an unmatched entry counting as later than any call)."""
    count = len(data.weights)
    rows = [Step([0], [0])]
    for i in range(count - 1, -1, -1):
        rows.append(next_row(rows[-1], data.compatible(i), data.weights[i]))
    rows.reverse()
    result: list[int] = []
    j = 0
    for i in range(count):
        target = rows[i].at(j)
        calls = data.compatible(i)
        k = bisect_left(calls, j)
        if k < len(calls) and data.weights[i] + rows[i + 1].at(calls[k] + 1) == target:
            result.append(calls[k])
            j = calls[k] + 1
        else:
            result.append(-1)
    return result
