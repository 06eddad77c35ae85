"""Statistical compare of repeated runs (policy v1.1 section 7): per task, the baseline's
and the candidate's pass rates, and each rule's firing rate, under a one-sided Fisher
exact test; only a significant worsening (`regressed`) fails the gate.

Pure, over the per-task tallies of the two reports (stats/); the compare engine decides
when it applies (both sides hold repeated runs, or it is asked for) and which traces it
judges (the runs of the tasks present on both sides).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..models.report import RunReport, TraceReport
from ..stats import Change, TaskStats, Verdict, any_repeated, compare_tasks, task_stats
from .model import GateReason, ReasonKind

INCONCLUSIVE_NOTE = "inconclusive: too few runs to tell"


def task_stats_of(run: RunReport) -> list[TaskStats]:
    """The per-task figures of a report's traces that name a task (the verdict is the
    report's `passed`; a rule fired when it has at least one finding)."""
    return task_stats(
        (r.task_id, r.passed, [f.rule_id for f in r.findings if f.rule_id])
        for r in run.reports
        if r.task_id is not None
    )


@dataclass(frozen=True, slots=True)
class RepeatedComparison:
    """Every task present on both sides, and every rule that fired in one of them on
    either side, with its verdict and the p-value of the regression test."""

    alpha: Fraction
    task_changes: tuple[Change, ...]
    rule_changes: tuple[Change, ...]

    @property
    def tasks(self) -> frozenset[str]:
        """The tasks judged statistically (their runs are not judged trace by trace)."""
        return frozenset(change.task_id for change in self.task_changes)

    def judges(self, baseline: TraceReport | None, candidate: TraceReport | None) -> bool:
        """Whether the run on either side belongs to a task compared here."""
        tasks = self.tasks
        return any(side is not None and side.task_id in tasks for side in (baseline, candidate))

    def with_verdict(self, verdict: Verdict, rules: bool = False) -> list[Change]:
        changes = self.rule_changes if rules else self.task_changes
        return [change for change in changes if change.verdict is verdict]

    def to_dict(self) -> dict[str, Any]:
        """The compare report's keys (after `traces`)."""
        return {
            "task_changes": [change.to_json() for change in self.task_changes],
            "rule_changes": [change.to_json() for change in self.rule_changes],
        }


def compare_repeated(
    baseline: RunReport, candidate: RunReport, alpha: Fraction, forced: bool = False
) -> RepeatedComparison | None:
    """The statistical comparison when both reports hold repeated runs (some task with
    two or more runs on each side) or when `forced`; else None (v1 compare holds)."""
    before = task_stats_of(baseline)
    after = task_stats_of(candidate)
    if not forced and not (any_repeated(before) and any_repeated(after)):
        return None
    tasks, rules = compare_tasks(before, after, alpha)
    return RepeatedComparison(alpha, tuple(tasks), tuple(rules))


def p_text(p_value: Fraction) -> str:
    """A p-value to 3 significant digits (0.0203, 0.5, 1), never in exponent form."""
    if p_value < Fraction(1, 10_000):
        return "< 0.0001"
    return format(float(p_value), ".3g")


def alpha_text(alpha: Fraction) -> str:
    return format(float(alpha), "g")


def rates(change: Change) -> str:
    """`7/8 -> 2/8` (passed, or fired, runs of each side)."""
    (b_runs, b_count), (c_runs, c_count) = change.baseline, change.candidate
    return f"{b_count}/{b_runs} -> {c_count}/{c_runs}"


def _reason(change: Change, alpha: Fraction) -> GateReason:
    test = f"one-sided Fisher exact p = {p_text(change.p_value)} < alpha {alpha_text(alpha)}"
    if change.rule_id is None:
        return GateReason(
            ReasonKind.TASK_REGRESSED,
            None,
            f"task {change.task_id!r} passes less often: {rates(change)} runs ({test})",
            task_id=change.task_id,
        )
    return GateReason(
        ReasonKind.RULE_REGRESSED,
        None,
        f"rule {change.rule_id} fires more often in task {change.task_id!r}: "
        f"{rates(change)} runs ({test})",
        rule_id=change.rule_id,
        task_id=change.task_id,
    )


def regression_reasons(repeated: RepeatedComparison) -> list[GateReason]:
    """Every regressed task, then every regressed rule, by task_id then rule_id."""
    changes: Iterable[Change] = (
        *repeated.with_verdict(Verdict.REGRESSED),
        *repeated.with_verdict(Verdict.REGRESSED, rules=True),
    )
    return [_reason(change, repeated.alpha) for change in changes]
