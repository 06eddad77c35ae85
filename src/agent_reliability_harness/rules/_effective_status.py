"""Whether a tool call counts as failed (policy v1.1 section 4): its status is error, or
it is ok and its output matches `error_handling.error_output_patterns`. A stand-in, with
the same meaning, for the shared "effective status" fact of TraceFacts; the trajectory
and data-flow rules read status through this module only, so the swap is one line."""

from __future__ import annotations

from collections.abc import Container, Sequence
from typing import Any

import msgspec

from ..models.common import Status
from ..models.trace import Step
from ..patterns import PatternSet
from .facts import TraceFacts

_ERROR = Status.ERROR
_KEY = "effective_status.failed"
# Outputs screened together: a window that may match is then checked output by output.
_WINDOW = 64
_encode = msgspec.json.Encoder().encode


def _strings(value: Any, out: list[str]) -> None:
    """Every string value at any depth (object keys are not searched)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)


def output_matches(output: Any, patterns: PatternSet) -> bool:
    """Whether a string of the output, at any depth, matches one of `patterns`."""
    texts: list[str] = []
    _strings(output, texts)
    return any(patterns.matches(text) for text in texts)


def call_failed(step: Step, patterns: PatternSet) -> bool:
    """A failed call: status error, or status ok with an output string matching one of
    `patterns` (case-insensitive searches)."""
    if step.status is _ERROR:
        return True
    return bool(patterns) and step.output is not None and output_matches(step.output, patterns)


def failed_by_output(facts: TraceFacts, patterns: PatternSet) -> Container[int]:
    """Positions of the chunk's named status-ok calls whose output matches `patterns`;
    computed once per chunk. Outputs are screened a window at a time as JSON: with no
    backslash in it every string is written verbatim between quotes, which is what
    `PatternSet.may_match_delimited` screens. The calls that `failed_when` marks as
    failed (TraceFacts.failed_when_hits) are among them."""
    if not patterns:
        return facts.failed_when_hits  # those of `failed_when` (policy v1.2)
    found: frozenset[int] | None = facts.memo.get(_KEY)
    if found is None:
        calls = [
            (p, s.output) for p, s in facts.calls if s.status is not _ERROR and s.output is not None
        ]
        found = frozenset(
            position
            for start in range(0, len(calls), _WINDOW)
            for position in _matching(calls[start : start + _WINDOW], patterns)
        )
        facts.memo[_KEY] = found = found | facts.failed_when_hits
    return found


def _matching(calls: Sequence[tuple[int, Any]], patterns: PatternSet) -> list[int]:
    if patterns.screens:
        try:
            blob = _encode([output for _, output in calls])
        except Exception:  # msgspec refused a value: check each output
            blob = b"\\"
        if b"\\" not in blob and not patterns.may_match_delimited(blob, b'"'):
            return []
    return [position for position, output in calls if output_matches(output, patterns)]
