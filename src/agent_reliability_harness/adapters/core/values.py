"""Small value helpers of the TraceBuilder: briefed note values, call queues, counts, a
turn's usage, outcome labels, call statuses and error texts."""

from __future__ import annotations

import json
import math
from typing import Any

import msgspec

from ...models.common import is_number, type_name

# A noted value whose JSON text is longer than this is kept as a cut-down text.
BRIEF_CHARS = 600


def brief(value: Any) -> Any:
    """A noted value as is, or (when huge) the start of its JSON text and its length."""
    if isinstance(value, str):
        text = value
    elif value is None or isinstance(value, bool | int | float):
        return value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError):
            text = repr(value)
        if len(text) <= BRIEF_CHARS:
            return value
    if len(text) <= BRIEF_CHARS:
        return text
    return f"{text[:BRIEF_CHARS]}... ({len(text)} characters)"


class Queue:
    """Step indexes of calls in call order; the oldest unanswered one is served first."""

    __slots__ = ("head", "items")

    def __init__(self) -> None:
        self.items: list[int] = []
        self.head = 0

    def first(self, answered: set[int]) -> int | None:
        items = self.items
        while self.head < len(items) and items[self.head] in answered:
            self.head += 1
        for index in items[self.head :]:
            if index not in answered:
                return index
        return None


def add_counts(*values: int | None) -> int | None:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def larger(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    return a if b is None else max(a, b)


def shifted(total: int | None, old: int | None, new: int | None) -> int | None:
    if new is None:
        return total
    return (total or 0) - (old or 0) + new


def label_text(value: Any) -> str | None:
    """A trace label as the transcript wrote it: a non-empty string as is, an integral
    number as its decimal string; None for anything else."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value if isinstance(value, str) and value else None


def outcome_problem(outcome: Any) -> str | None:
    """Why a transcript's `outcome` label cannot be carried (TRACE-SPEC.md), or None."""
    if not isinstance(outcome, dict):
        return f"outcome is not an object (got {type_name(outcome)})"
    success, reward = outcome.get("success"), outcome.get("reward")
    if success is not None and not isinstance(success, bool):
        return "outcome.success is not a boolean"
    if reward is None:
        return None
    if not is_number(reward):
        return "outcome.reward is not a number"
    try:
        finite = math.isfinite(reward)
    except OverflowError:  # an integer beyond the float range
        finite = False
    return None if finite else "outcome.reward is not a finite number"


def error_text(output: Any) -> str:
    if isinstance(output, str) and output.strip():
        return output
    if output is None:
        return "tool reported an error"
    return json.dumps(output, sort_keys=True, ensure_ascii=False)[:2000]


class Usage(msgspec.Struct, frozen=True):
    """One model turn's recorded usage, and where it was read."""

    input: int | None
    output: int | None
    cost: float | None
    at: str
    key: str | None

    @property
    def empty(self) -> bool:
        return self.input is None and self.output is None and self.cost is None

    def merged(self, other: Usage) -> Usage:
        """Two entries of one message: the largest of each figure (they repeat, and grow)."""
        cost = other.cost if self.cost is None else self.cost
        if self.cost is not None and other.cost is not None:
            cost = max(self.cost, other.cost)
        return Usage(
            larger(self.input, other.input),
            larger(self.output, other.output),
            cost,
            self.at,
            self.key,
        )


def set_status(step: dict[str, Any], error: str | None, is_error: bool | None) -> None:
    """A call's status from a result's failure flag or error text (neither: left unset)."""
    if is_error is None and error is None:
        return
    failed = bool(is_error) or bool(error)
    step["status"] = "error" if failed else "ok"
    if failed:
        step["error"] = error if error else error_text(step.get("output"))
    else:
        step.pop("error", None)


LABELS = ("trace_id", "agent_name", "workflow", "task_id")


def read_labels(body: dict[str, Any]) -> list[tuple[str, Any, str | None]]:
    """The labels written in a transcript body, in order, each as (key, value, problem):
    a label's text (a numeric id as its decimal text) and the outcome with no problem, or
    the value as written and why it is not carried."""
    found: list[tuple[str, Any, str | None]] = []
    for key in LABELS:
        value = body.get(key)
        if value is not None:
            text = label_text(value)
            problem = "label is not a string" if text is None else None
            found.append((key, value if text is None else text, problem))
    outcome = body.get("outcome")
    if outcome is not None:
        found.append(("outcome", outcome, outcome_problem(outcome)))
    return found
