"""A file's own run totals (tokens, cost), reconciled with the steps' figures.

Several formats record run totals next to their per-step figures (a Claude Code `result`
line, ATIF `final_metrics`, gemini `stats`, Langfuse usage totals, OpenHands
`accumulated_token_usage`). ARH's run totals must equal the file's: when the steps sum
to less than the file's total, the difference is counted on the step the file says it
belongs to (by default the last model response), whose `metadata.arh_recorded_totals`
names both numbers; when the steps sum to more (or no step can carry it), the step
figures are kept and an adapter note (ARH-SCH-013) names both numbers. Never a silent
undercount (docs/adapters.md, "Run totals").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

_FIELDS = ("input_tokens", "output_tokens", "cost_usd")


class RecordedTotals(msgspec.Struct, frozen=True):
    """The totals a file records for the whole run, and where it records them."""

    at: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    # The step that carries a difference (None: the last model response).
    index: int | None = None

    def value(self, name: str) -> int | float | None:
        figure: int | float | None = getattr(self, name)
        return figure


def _target(steps: list[dict[str, Any]], index: int | None) -> int | None:
    if index is not None and 0 <= index < len(steps):
        return index
    for position in range(len(steps) - 1, -1, -1):
        if steps[position].get("type") == "model_response":
            return position
    return None


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def reconcile(
    steps: list[dict[str, Any]],
    totals: RecordedTotals,
    note: Callable[[str, str, Any], None],
) -> None:
    """Make the steps' sums equal the file's totals where the steps fall short (the
    difference lands on the target step); note an excess the steps cannot give back."""
    target = _target(steps, totals.index)
    for name in _FIELDS:
        recorded = totals.value(name)
        if recorded is None:
            continue
        present = [s[name] for s in steps if s.get(name) is not None]
        summed = sum(present) if present else 0
        if _same(summed, recorded):
            continue
        where = f"{totals.at}.{name}"
        if recorded < summed or target is None:
            note(
                where,
                f"the steps' {name} sum to {summed}; the file's total is {recorded}",
                recorded,
            )
            continue
        difference = recorded - summed
        if name != "cost_usd":
            difference = int(difference)
        step = steps[target]
        step[name] = (step.get(name) or 0) + difference
        if present:  # the steps had figures of their own: say what was added, and why
            added = step.setdefault("metadata", {}).setdefault("arh_recorded_totals", {})
            added[name] = {"steps": summed, "file": recorded, "added": difference, "at": where}


__all__ = ["RecordedTotals", "reconcile"]
