"""ARH-SCH-010 and ARH-SCH-013: lint on the trace's own shape, never scored."""

from __future__ import annotations

from typing import Any

from ..models.common import Category, Severity
from .base import Counts, Hit, Moment, RuleContext, RuleResult, brief, rule

WARNING = Severity.WARNING


@rule(
    "ARH-SCH-010",
    Category.SCHEMA,
    WARNING,
    moment=Moment.CLOSING,
    title="Step id is not unique",
    remediation="Give every step a unique step_id so findings and fingerprints point at one step.",
    counts=Counts.NONE,
)
def duplicate_step_id(ctx: RuleContext) -> RuleResult:
    positions = ctx.facts.step_positions
    return RuleResult(
        hits=[
            Hit(
                positions[step_id],
                f"step_id '{step_id}' occurs {count} times",
                None,
                count,
                step_id,
            )
            for step_id, count in ctx.facts.id_repeats.items()
        ]
    )


@rule(
    "ARH-SCH-013",
    Category.SCHEMA,
    WARNING,
    moment=Moment.CLOSING,
    title="Transcript content was not mapped",
    remediation="Check the adapter note: the transcript holds content ARH could not map to a "
    "step (an unknown message or part type, a malformed item); map it or report the format.",
    counts=Counts.NONE,
)
def adapter_notes(ctx: RuleContext) -> RuleResult:
    """One hit per note in the trace's `metadata.adapter.notes`, at its nearest step."""
    trace = ctx.trace
    adapter = trace.metadata.get("adapter") if trace is not None else None
    notes = adapter.get("notes") if isinstance(adapter, dict) else None
    if not isinstance(notes, list):
        return RuleResult()
    return RuleResult(hits=[_note_hit(note, ctx.facts.step_positions) for note in notes])


def _note_hit(note: Any, positions: dict[str, int]) -> Hit:
    if not isinstance(note, dict):
        return Hit(None, "adapter note is not an object", observed=brief(note))
    issue, at, step = note.get("issue"), note.get("at"), note.get("step")
    issue = issue if isinstance(issue, str) and issue else "content could not be mapped"
    where = f" at {at}" if isinstance(at, str) and at else ""
    index = positions.get(step) if isinstance(step, str) else None
    return Hit(
        index,
        f"{issue}{where}",
        observed=brief(note.get("value")),
        step_id=step if index is not None else None,
    )
