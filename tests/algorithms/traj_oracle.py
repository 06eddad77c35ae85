"""A brute-force reference for trajectory matching: enumerate every alignment and pick
the optimum the way section 5 and the module docs define it. Written independently of
the implementation (its own JSON equality, its own filtering), for small inputs only."""

from __future__ import annotations

import math
from fnmatch import fnmatchcase
from fractions import Fraction
from typing import Any

from agent_reliability_harness.trajectory import ArgumentsMatch, MatchMode, TrajectorySpec

INF = math.inf


def canon(value: Any) -> Any:
    """A form whose == is JSON equality: bools tagged apart from numbers, numbers exact."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | float):
        return ("num", Fraction(value))
    if isinstance(value, list | tuple):
        return ("list", tuple(canon(v) for v in value))
    if isinstance(value, dict):
        return ("dict", frozenset((k, canon(v)) for k, v in value.items()))
    return ("other", type(value).__name__, value)


def fits(spec: TrajectorySpec, entry_index: int, tool: str, args: dict[str, Any] | None) -> bool:
    entry = spec.expected[entry_index]
    if entry.tool != tool:
        return False
    if entry.arguments is None:
        return True
    mode = entry.arguments_match or spec.arguments_match
    if mode is ArgumentsMatch.IGNORE:
        return True
    drop = spec.ignore_arguments
    want = {k: canon(v) for k, v in entry.arguments.items() if k not in drop}
    have = {k: canon(v) for k, v in (args or {}).items() if k not in drop}
    if mode is ArgumentsMatch.EXACT:
        return want == have
    return all(k in have and have[k] == v for k, v in want.items())


def equal_keys(spec: TrajectorySpec, entry_index: int, args: dict[str, Any] | None) -> int:
    entry = spec.expected[entry_index]
    if entry.arguments is None:
        return 0
    have = args or {}
    return sum(
        1
        for k, v in entry.arguments.items()
        if k not in spec.ignore_arguments and k in have and canon(have[k]) == canon(v)
    )


def considered(
    spec: TrajectorySpec, calls: list[tuple[str, Any, int]]
) -> list[tuple[str, Any, int]]:
    named = {e.tool for e in spec.expected}
    return [
        c
        for c in calls
        if c[0] in named or not any(fnmatchcase(c[0], g) for g in spec.ignore_tools)
    ]


def _alignments(spec: TrajectorySpec, calls: list[tuple[str, Any, int]]) -> list[list[int | None]]:
    ordered = spec.match in (MatchMode.STRICT, MatchMode.IN_ORDER)
    out: list[list[int | None]] = []

    def walk(i: int, chosen: list[int | None], used: set[int], last: int) -> None:
        if i == len(spec.expected):
            out.append(list(chosen))
            return
        chosen.append(None)
        walk(i + 1, chosen, used, last)
        chosen.pop()
        for n, (tool, args, _) in enumerate(calls):
            if n in used or (ordered and n <= last) or not fits(spec, i, tool, args):
                continue
            chosen.append(n)
            used.add(n)
            walk(i + 1, chosen, used, n if ordered else last)
            used.discard(n)
            chosen.pop()

    walk(0, [], set(), -1)
    return out


def brute_match(spec: TrajectorySpec, all_calls: list[tuple[str, Any, int]]) -> dict[str, Any]:
    calls = considered(spec, all_calls)
    best: tuple[Any, ...] | None = None
    best_choice: list[int | None] = []
    for choice in _alignments(spec, calls):
        req = sum(
            1 for i, c in enumerate(choice) if c is not None and not spec.expected[i].optional
        )
        opt = sum(1 for i, c in enumerate(choice) if c is not None and spec.expected[i].optional)
        vector = tuple(INF if c is None else c for c in choice)
        key = (-req, -opt, vector)
        if best is None or key < best:
            best, best_choice = key, choice
    used = {c for c in best_choice if c is not None}
    missing = []
    if spec.match is not MatchMode.SUBSET:
        for i, c in enumerate(best_choice):
            if c is not None or spec.expected[i].optional:
                continue
            options = [
                (-equal_keys(spec, i, args), n)
                for n, (tool, args, _) in enumerate(calls)
                if n not in used and tool == spec.expected[i].tool
            ]
            if options:
                neg, n = min(options)
                missing.append((i, calls[n][2], -neg))
            else:
                missing.append((i, None, None))
    forbids = spec.match in (MatchMode.STRICT, MatchMode.UNORDERED, MatchMode.SUBSET)
    unexpected = [p for n, (_, _, p) in enumerate(calls) if n not in used] if forbids else []
    checks = sum(1 for e in spec.expected if not e.optional) + (len(calls) if forbids else 0)
    return {
        "matched": [(i, calls[c][2]) for i, c in enumerate(best_choice) if c is not None],
        "missing": missing,
        "unexpected": unexpected,
        "checks": checks,
        "failed": len(missing) + len(unexpected),
    }
