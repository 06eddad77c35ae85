"""Effective status (policy v1.1 section 4, `error_handling.error_output_patterns`): which
tool calls count as failed. A call fails when its status is error, or when its status is
ok and its output (a string, or any string inside it) matches one of the patterns.

Only the verdict is derived here; the trace's own data is never rewritten. TraceFacts
keeps the verdict per call (`TraceFacts.failed`), so every rule that reads status reads
the same one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..models.common import Status
from ..models.trace import Step
from ..patterns import PatternSet
from .screen import screen_json

# Why a status-ok call counts as failed: the words every finding about it adds.
OUTPUT_MATCHED = "output matched error_output_patterns"
FAILED_WHEN_MATCHED = "output matched failed_when"  # policy v1.2 section 3
_OK = Status.OK


def string_values(value: Any, out: list[str]) -> None:
    """Append every non-empty string inside a JSON value (any depth, in document order;
    object keys left out) to `out`. Iterative, so no nesting depth can overflow it."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or (kind is not dict and kind is not list and isinstance(item, str)):
            if item:
                out.append(item)
        elif kind is dict or isinstance(item, dict):
            stack.extend(reversed(item.values()))
        elif kind is list or isinstance(item, list | tuple):
            stack.extend(reversed(item))


def output_matches(patterns: PatternSet, output: Any) -> bool:
    """Whether any string of a call's output matches one of the patterns (searched
    case-insensitively, each string on its own)."""
    if output is None:
        return False
    if type(output) is str:
        return bool(patterns.matches(output))
    texts: list[str] = []
    string_values(output, texts)
    if not texts:
        return False
    if len(texts) == 1:
        return bool(patterns.matches(texts[0]))
    # One scan of the join clears the usual output; a possible match is checked string
    # by string (a match across two strings of the join is not one).
    return patterns.may_match_any(texts) and any(patterns.matches(text) for text in texts)


# Calls screened together (see screen.py): a window whose outputs the screen clears
# holds no match; the calls of any other window are checked one by one.
_WINDOW = 64


def output_failures(patterns: PatternSet, calls: Iterable[tuple[int, Step]]) -> frozenset[int]:
    """The positions of the status-ok calls whose output matches `patterns`."""
    candidates = [(i, step) for i, step in calls if step.status is _OK and step.output is not None]
    found: list[int] = []
    for at in range(0, len(candidates), _WINDOW):
        window = candidates[at : at + _WINDOW]
        if patterns.screens:
            screen = screen_json([step.output for _, step in window])
            if screen is not None and not patterns.may_match_delimited(screen[0], screen[1]):
                continue
        found += [i for i, step in window if output_matches(patterns, step.output)]
    return frozenset(found)
