"""TraceFacts: everything several rules (and the report) need, computed in one pass.

Nothing here decides a finding; it only indexes the trace so that every rule
stays linear in the number of steps.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from ..models.common import Status, StepType
from ..models.trace import Step, Trace


def _exact(value: float) -> Decimal:
    # The shortest repr of a float is the value as it was written in the trace,
    # so 0.1 + 0.2 sums to exactly 0.3.
    return Decimal(value) if isinstance(value, int) else Decimal(repr(value))


# Decimal's default context keeps 28 digits: integer sums below this are exact.
_EXACT_DECIMAL_INT = 10**28


def _decimal_sum(values: Iterable[float | None]) -> Decimal:
    """The recorded values summed in order, in Decimal, as written in the trace."""
    total = Decimal(0)
    for value in values:
        if value is not None:
            total += _exact(value)
    return total


def json_number(value: Decimal | int | None) -> float | int | None:
    """An exact total as the JSON number a user expects (240, 0.3), or None."""
    if value is None or isinstance(value, int):
        return value
    return int(value) if value == value.to_integral_value() else float(value)


def argument_identity(arguments: dict[str, Any] | None) -> str:
    """Canonical JSON of a call's arguments (sorted keys); absent arguments are `{}`."""
    if not arguments:
        return "{}"
    return _IDENTITY.encode(arguments)


# What json.dumps(sort_keys=True, ensure_ascii=False, separators=(",", ":")) uses,
# built once instead of once per call.
_IDENTITY = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))


class TraceFacts:
    """Indexes of one trace, built once and shared by every rule."""

    __slots__ = (
        "_groups",
        "calls",
        "cited_grounded",
        "cost_total",
        "counts",
        "first_call",
        "grounded",
        "last_call",
        "latency_steps",
        "latency_total",
        "memo",
        "steps",
        "token_total",
        "tool_call_count",
    )

    def __init__(self, trace: Trace) -> None:
        self.steps: tuple[Step, ...] = trace.steps
        # (position, step) of every tool_call that names a tool.
        self.calls: list[tuple[int, Step]] = []
        self.tool_call_count = 0
        self.counts: dict[str, int] = {}
        self.first_call: dict[str, int] = {}
        self.last_call: dict[str, int] = {}
        self.grounded: list[int] = []
        self.cited_grounded = 0
        self.latency_steps = 0
        whole_latency = 0  # integer latencies summed as int: exact, and no Decimal per step
        float_latency = False
        cost: Decimal | None = None
        tokens: int | None = None
        for index, step in enumerate(trace.steps):
            step_latency = step.latency_ms
            if step_latency is not None:
                self.latency_steps += 1
                if type(step_latency) is int:
                    whole_latency += step_latency
                else:
                    float_latency = True
            if step.cost_usd is not None:
                cost = (cost or Decimal(0)) + _exact(step.cost_usd)
            if step.input_tokens is not None or step.output_tokens is not None:
                tokens = (tokens or 0) + (step.input_tokens or 0) + (step.output_tokens or 0)
            if step.type is StepType.TOOL_CALL:
                self.tool_call_count += 1
                name = step.tool_name
                if name:
                    self.calls.append((index, step))
                    self.counts[name] = self.counts.get(name, 0) + 1
                    self.first_call.setdefault(name, index)
                    self.last_call[name] = index
            elif step.requires_grounding:
                self.grounded.append(index)
                if step.citations:
                    self.cited_grounded += 1
        self.latency_total: Decimal | None = None
        if self.latency_steps:
            if float_latency or whole_latency >= _EXACT_DECIMAL_INT:
                self.latency_total = _decimal_sum(s.latency_ms for s in trace.steps)
            else:  # what the Decimal sum gives while no partial sum needs rounding
                self.latency_total = Decimal(whole_latency)
        self.cost_total = cost
        self.token_total = tokens
        self._groups: dict[tuple[str, str], list[int]] | None = None
        # Derived tables a rule module builds once per trace and shares between its rules.
        self.memo: dict[Any, Any] = {}

    @property
    def citation_coverage(self) -> float | None:
        if not self.grounded:
            return None
        return self.cited_grounded / len(self.grounded)

    def groups(self) -> dict[tuple[str, str], list[int]]:
        """Named tool calls grouped by (tool, argument identity), in first-call order."""
        if self._groups is None:
            groups: dict[tuple[str, str], list[int]] = {}
            for index, step in self.calls:
                key = (step.tool_name or "", argument_identity(step.arguments))
                groups.setdefault(key, []).append(index)
            self._groups = groups
        return self._groups

    def failed(self, index: int) -> bool:
        return self.steps[index].status is Status.ERROR
