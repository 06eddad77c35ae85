"""The compare engine: two run reports in, a Comparison (with its gate decision) out.

Pure: no files, no clocks, no printing. Deltas are computed in decimal so that
0.3 - 0.1 is 0.2 and not 0.19999999999999998.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from ..errors import ReportError
from ..models.common import Severity
from ..models.report import RunReport, TraceReport
from ..models.task_ids import TaskIds
from .matching import match_findings
from .model import (
    Comparison,
    Gate,
    GateMode,
    GateReason,
    ReasonKind,
    RunSide,
    TraceComparison,
    TraceStatus,
    Transition,
)
from .repeated import RepeatedComparison, compare_repeated, regression_reasons

DEFAULT_ALPHA = Fraction(1, 20)


@dataclass(frozen=True, slots=True)
class GateOptions:
    """`--fail-on` and `--max-score-drop` (the latter counts in `regressions` mode only);
    for repeated runs `--alpha` (exact: 0.05 is 1/20), `--repeated` (the statistical
    compare even when a side has one run per task) and `--task-id-from`."""

    mode: GateMode = GateMode.REGRESSIONS
    max_score_drop: float | None = None
    alpha: Fraction = DEFAULT_ALPHA
    repeated: bool = False
    task_ids: TaskIds | None = None

    def __post_init__(self) -> None:
        drop = self.max_score_drop
        if drop is not None and not 0 <= drop <= 100:
            raise ValueError(f"max_score_drop must be between 0 and 100 (got {drop})")
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must be between 0 and 1 (got {float(self.alpha):g})")


def check_unique_ids(run: RunReport) -> None:
    """A candidate validated on the spot may not judge one trace_id twice (it could not be
    matched against the baseline): ReportError naming the id and both inputs."""
    seen: dict[str, str | None] = {}
    for report in run.reports:
        if report.trace_id in seen:
            first = seen[report.trace_id] or "an earlier input"
            raise ReportError(
                f"{report.source_path or '<input>'}: duplicate trace_id {report.trace_id!r} "
                f"(also in {first})"
            )
        seen[report.trace_id] = report.source_path


def index_reports(run: RunReport, side: str) -> dict[str, TraceReport]:
    """trace_id -> report; ReportError naming the id when one is listed twice."""
    by_id: dict[str, TraceReport] = {}
    for report in run.reports:
        if report.trace_id in by_id:
            raise ReportError(f"{side} report lists trace_id {report.trace_id!r} more than once")
        by_id[report.trace_id] = report
    return by_id


def _delta(before: float | int | None, after: float | int | None) -> float | int | None:
    """after - before, exact in decimal; None when either side is unknown."""
    if before is None or after is None:
        return None
    diff = Decimal(str(after)) - Decimal(str(before))
    if isinstance(before, int) and isinstance(after, int):
        return int(diff)
    as_float = float(diff)
    if math.isfinite(as_float):
        return as_float
    # Beyond the float range (totals near 1.8e308): exact, as the reports write them.
    return int(diff) if diff == diff.to_integral_value() else None


def _transition(before: TraceReport, after: TraceReport) -> Transition | None:
    if before.passed and not after.passed:
        return Transition.PASS_TO_FAIL
    if after.passed and not before.passed:
        return Transition.FAIL_TO_PASS
    return None


def _trace(trace_id: str, before: TraceReport | None, after: TraceReport | None) -> TraceComparison:
    matched = match_findings(before.findings if before else (), after.findings if after else ())
    if before is None or after is None:
        return TraceComparison(
            trace_id=trace_id,
            status=TraceStatus.ADDED if before is None else TraceStatus.REMOVED,
            baseline=before,
            candidate=after,
            transition=None,
            score_delta=None,
            latency_delta_ms=None,
            cost_delta_usd=None,
            new_findings=matched.new,
            resolved_findings=matched.resolved,
            unchanged_findings=matched.unchanged,
        )
    score_delta = float(Decimal(str(after.score)) - Decimal(str(before.score)))
    return TraceComparison(
        trace_id=trace_id,
        status=TraceStatus.COMMON,
        baseline=before,
        candidate=after,
        transition=_transition(before, after),
        score_delta=round(score_delta, 2),
        latency_delta_ms=_delta(before.total_latency_ms, after.total_latency_ms),
        cost_delta_usd=_delta(before.total_cost_usd, after.total_cost_usd),
        new_findings=matched.new,
        resolved_findings=matched.resolved,
        unchanged_findings=matched.unchanged,
    )


def _score(value: float) -> str:
    return f"{value:.2f}"


def _where(step_id: str | None) -> str:
    return "the trace" if step_id is None else f"step {step_id!r}"


def _regressions(traces: Iterable[TraceComparison], max_drop: float | None) -> list[GateReason]:
    traces = tuple(traces)
    reasons: list[GateReason] = []
    for t in traces:
        if t.transition is Transition.PASS_TO_FAIL and t.baseline and t.candidate:
            reasons.append(
                GateReason(
                    ReasonKind.PASS_TO_FAIL,
                    t.trace_id,
                    f"trace {t.trace_id!r} passed in the baseline and fails now "
                    f"(score {_score(t.baseline.score)} -> {_score(t.candidate.score)})",
                )
            )
    for t in traces:
        for f in t.new_findings:
            if f.severity is Severity.ERROR:
                reasons.append(
                    GateReason(
                        ReasonKind.NEW_ERROR_FINDING,
                        t.trace_id,
                        f"new error {f.rule_id or f.category} in trace {t.trace_id!r} "
                        f"at {_where(f.step_id)}: {f.message}",
                        rule_id=f.rule_id,
                        step_id=f.step_id,
                    )
                )
    for t in traces:
        if t.status is TraceStatus.ADDED and t.candidate and not t.candidate.passed:
            reasons.append(
                GateReason(
                    ReasonKind.ADDED_FAILING_TRACE,
                    t.trace_id,
                    f"added trace {t.trace_id!r} fails (score {_score(t.candidate.score)})",
                )
            )
    if max_drop is not None:
        for t in traces:
            if t.score_delta is not None and -t.score_delta > max_drop:
                assert t.baseline and t.candidate
                reasons.append(
                    GateReason(
                        ReasonKind.SCORE_DROP,
                        t.trace_id,
                        f"score of trace {t.trace_id!r} fell by {_score(-t.score_delta)} "
                        f"({_score(t.baseline.score)} -> {_score(t.candidate.score)}), "
                        f"more than the allowed {max_drop:g}",
                    )
                )
    return reasons


def _failures(traces: Iterable[TraceComparison]) -> list[GateReason]:
    return [
        GateReason(
            ReasonKind.FAILING_TRACE,
            t.trace_id,
            f"trace {t.trace_id!r} fails (score {_score(t.candidate.score)})",
        )
        for t in traces
        if t.candidate is not None and not t.candidate.passed
    ]


def _judged_alone(
    traces: tuple[TraceComparison, ...], repeated: RepeatedComparison | None
) -> tuple[TraceComparison, ...]:
    """The traces the v1 regression reasons apply to: all of them, or with repeated runs
    those of no task compared statistically (their tasks' verdicts stand for them)."""
    if repeated is None:
        return traces
    return tuple(t for t in traces if not repeated.judges(t.baseline, t.candidate))


def decide(
    traces: tuple[TraceComparison, ...],
    options: GateOptions,
    repeated: RepeatedComparison | None = None,
) -> Gate:
    """The gate over already compared traces (and, for repeated runs, tasks): every
    reason that fails it, in a fixed order."""
    if options.mode is GateMode.REGRESSIONS:
        reasons = _regressions(_judged_alone(traces, repeated), options.max_score_drop)
        if repeated is not None:
            reasons = regression_reasons(repeated) + reasons
    elif options.mode is GateMode.FAILURES:
        reasons = _failures(traces)
    else:
        reasons = []
    drop = options.max_score_drop if options.mode is GateMode.REGRESSIONS else None
    alpha = None if repeated is None or options.mode is not GateMode.REGRESSIONS else repeated.alpha
    return Gate(options.mode, drop, tuple(reasons), alpha)


def compare(
    baseline: RunReport, candidate: RunReport, options: GateOptions | None = None
) -> Comparison:
    """Compare two reports; traces are listed by trace_id (code point order).

    Raises ReportError when either report lists a trace_id twice. With repeated runs on
    both sides, tasks are compared statistically too (compare/repeated.py).
    """
    options = options or GateOptions()
    if options.task_ids is not None:
        baseline, candidate = options.task_ids.run(baseline), options.task_ids.run(candidate)
    before = index_reports(baseline, "baseline")
    after = index_reports(candidate, "candidate")
    traces = tuple(
        _trace(trace_id, before.get(trace_id), after.get(trace_id))
        for trace_id in sorted(before.keys() | after.keys())
    )
    repeated = compare_repeated(baseline, candidate, options.alpha, options.repeated)
    return Comparison(
        baseline=RunSide.of(baseline),
        candidate=RunSide.of(candidate),
        traces=traces,
        gate=decide(traces, options, repeated),
        repeated=repeated,
    )
