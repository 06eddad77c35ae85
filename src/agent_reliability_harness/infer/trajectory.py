"""A task's expected trajectory from its good runs: the calls common to all of them, in
order (`match: in_order`), each with the arguments equal in every run (`subset`).

The common calls are a common subsequence of the runs' considered calls (status ok, with
a tool name) by tool, folded run by run in input order; each run's calls are then
aligned to it earliest-first, and an entry keeps the arguments whose value is the same in
every aligned call. Every run holds that alignment, so the optimal matcher of ARH-SEQ-006
matches every entry in every good run.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

Call = tuple[str, str]  # (tool, canonical JSON arguments)


def common_subsequence(left: Sequence[str], right: Sequence[str]) -> list[str]:
    """A longest common subsequence (earliest in `left` on ties)."""
    n, m = len(left), len(right)
    lengths = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = lengths[i], lengths[i + 1]
        for j in range(m - 1, -1, -1):
            row[j] = below[j + 1] + 1 if left[i] == right[j] else max(below[j], row[j + 1])
    out: list[str] = []
    i = j = 0
    while i < n and j < m:
        if left[i] == right[j]:
            out.append(left[i])
            i, j = i + 1, j + 1
        elif lengths[i + 1][j] >= lengths[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def _aligned(tools: Sequence[str], run: Sequence[Call]) -> list[dict[str, Any]]:
    """The arguments of the calls that take each expected tool, earliest first."""
    out: list[dict[str, Any]] = []
    at = 0
    for tool in tools:
        while run[at][0] != tool:
            at += 1
        out.append(json.loads(run[at][1]))
        at += 1
    return out


def _shared(values: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The keys every argument object holds with the same canonical value."""
    first = values[0] if isinstance(values[0], dict) else {}
    keys = sorted(first)
    shared = {}
    for key in keys:
        text = json.dumps(first[key], sort_keys=True)
        if all(
            isinstance(v, dict) and key in v and json.dumps(v[key], sort_keys=True) == text
            for v in values
        ):
            shared[key] = first[key]
    return shared


def expected_calls(runs: Sequence[Sequence[Call]]) -> list[dict[str, Any]]:
    """The `expected` entries for these runs (empty when they share no call)."""
    if not runs:
        return []
    tools = [tool for tool, _ in runs[0]]
    for run in runs[1:]:
        tools = common_subsequence(tools, [tool for tool, _ in run])
        if not tools:
            return []
    aligned = [_aligned(tools, run) for run in runs]
    entries = []
    for index, tool in enumerate(tools):
        arguments = _shared([calls[index] for calls in aligned])
        entry: dict[str, Any] = {"tool": tool}
        if arguments:
            entry["arguments"] = arguments
        entries.append(entry)
    return entries
