"""Whether a tool call counts as failed (policy v1.1 section 4): its status is error, or
it is ok and its output matches `error_handling.error_output_patterns`. A stand-in, with
the same meaning, for the shared "effective status" fact of TraceFacts; the trajectory
and data-flow rules read status through `call_failed` only, so the swap is one line."""

from __future__ import annotations

from typing import Any

from ..models.common import Status
from ..models.trace import Step
from ..patterns import PatternSet

_ERROR = Status.ERROR


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


def call_failed(step: Step, patterns: PatternSet) -> bool:
    """A failed call: status error, or status ok with an output string matching one of
    `patterns` (case-insensitive searches)."""
    if step.status is _ERROR:
        return True
    if not patterns or step.output is None:
        return False
    texts: list[str] = []
    _strings(step.output, texts)
    return any(patterns.matches(text) for text in texts)
