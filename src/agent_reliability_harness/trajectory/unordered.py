"""Optimal unordered matching (unordered, superset, subset) within one tool: a maximum
weight bipartite matching of entries to calls, earliest calls among optimal ones.

Calls that fit exactly the same entries are interchangeable but for their position, so
they form one class with a capacity; a class can serve at most as many entries as fit
it, so it keeps only that many (earliest) positions. The matchable sets of entries form
a matroid, so the maximum weight comes from the greedy order (heaviest entries first,
each kept when an augmenting path exists).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec


class CallClass(msgspec.Struct):
    """Calls that fit the same entries (`fits`: local entry indices) and the earliest
    positions among them (candidate numbers, ascending, at most len(fits) of them)."""

    fits: tuple[int, ...]
    positions: list[int] = msgspec.field(default_factory=list)


class _Flow:
    """Augmenting paths over entry -> class edges with class capacities."""

    __slots__ = ("caps", "edges", "users")

    def __init__(self, edges: Sequence[Sequence[int]], caps: list[int]) -> None:
        self.edges = edges
        self.caps = caps
        self.users: list[list[int]] = [[] for _ in caps]

    def place(self, entry: int, seen: set[int]) -> bool:
        for cls in self.edges[entry]:
            if cls in seen:
                continue
            seen.add(cls)
            users = self.users[cls]
            if len(users) < self.caps[cls]:
                users.append(entry)
                return True
            for other in list(users):
                if self.place(other, seen):
                    users.remove(other)
                    users.append(entry)
                    return True
        return False


def _best_weight(
    entries: Sequence[int], weights: Sequence[int], edges: Sequence[Sequence[int]], caps: list[int]
) -> int:
    flow = _Flow(edges, caps)
    total = 0
    for entry in sorted(entries, key=lambda e: (-weights[e], e)):
        if flow.place(entry, set()):
            total += weights[entry]
    return total


def match_unordered(weights: Sequence[int], classes: Sequence[CallClass]) -> list[int]:
    """The candidate matched by each local entry (-1: none): maximum total weight, and
    among those the lexicographically smallest vector of candidates in entry order
    (an unmatched entry counting as later than any call)."""
    count = len(weights)
    edges: list[list[int]] = [[] for _ in range(count)]
    for number, cls in enumerate(classes):
        for entry in cls.fits:
            edges[entry].append(number)
    caps = [min(len(cls.positions), len(cls.fits)) for cls in classes]
    optimum = _best_weight(range(count), weights, edges, caps)
    used = [0] * len(classes)
    fixed = 0
    result: list[int] = []
    for entry in range(count):
        rest = range(entry + 1, count)
        options = sorted(
            (classes[c].positions[used[c]], c) for c in edges[entry] if used[c] < caps[c]
        )
        chosen = -1
        for position, number in options:
            used[number] += 1
            left = [cap - n for cap, n in zip(caps, used, strict=True)]
            if fixed + weights[entry] + _best_weight(rest, weights, edges, left) == optimum:
                chosen = position
                fixed += weights[entry]
                break
            used[number] -= 1
        result.append(chosen)
    return result
