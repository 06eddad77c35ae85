"""The Comparison model: per-trace differences, the gate decision, and their JSON shape.

`to_dict` fixes the key order, so the `--json-out` document is byte-stable;
schemas/compare.schema.json describes it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..models.common import Severity
from ..models.report import Finding, RunReport, Section, TraceReport

if TYPE_CHECKING:
    from .repeated import RepeatedComparison

COMPARE_SCHEMA_VERSION = "1"


class GateMode(StrEnum):
    """What makes the gate fail (`--fail-on`)."""

    REGRESSIONS = "regressions"
    FAILURES = "failures"
    NEVER = "never"


class ReasonKind(StrEnum):
    """Why a gate failed, in the order reasons are listed."""

    # Repeated runs (compare/repeated.py): a significant drop of a task's pass rate, or
    # rise of a rule's firing rate in a task.
    TASK_REGRESSED = "task_regressed"
    RULE_REGRESSED = "rule_regressed"
    PASS_TO_FAIL = "pass_to_fail"
    NEW_ERROR_FINDING = "new_error_finding"
    ADDED_FAILING_TRACE = "added_failing_trace"
    SCORE_DROP = "score_drop"
    FAILING_TRACE = "failing_trace"
    # --max-coverage-drop: the share of allowed tools called fell by more (policy v1.2 s. 6).
    COVERAGE_DROP = "coverage_drop"


class TraceStatus(StrEnum):
    COMMON = "common"
    ADDED = "added"
    REMOVED = "removed"


class Transition(StrEnum):
    PASS_TO_FAIL = "pass_to_fail"
    FAIL_TO_PASS = "fail_to_pass"


@dataclass(frozen=True, slots=True)
class GateReason:
    """One thing that failed the gate: about a trace, or (repeated runs) about a task,
    when `trace_id` is None and `task_id` names it."""

    kind: ReasonKind
    trace_id: str | None
    message: str
    rule_id: str | None = None
    step_id: str | None = None
    task_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind.value, "trace_id": self.trace_id}
        if self.task_id is not None:
            out["task_id"] = self.task_id
        out.update(rule_id=self.rule_id, step_id=self.step_id, message=self.message)
        return out


@dataclass(frozen=True, slots=True)
class Gate:
    """The gate decision: passed unless `reasons` is non-empty."""

    mode: GateMode
    max_score_drop: float | None
    reasons: tuple[GateReason, ...]
    # The significance level of the statistical compare; None when it did not apply.
    alpha: Fraction | None = None

    @property
    def passed(self) -> bool:
        return not self.reasons

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mode": self.mode.value, "max_score_drop": self.max_score_drop}
        if self.alpha is not None:
            out["alpha"] = float(self.alpha)
        out["passed"] = self.passed
        out["reasons"] = [r.to_dict() for r in self.reasons]
        return out


def finding_dict(finding: Finding) -> dict[str, Any]:
    """A finding as compare outputs list it: fingerprint fields, severity and message
    (and, policy v1.2, the agent whose `agents` entry found it)."""
    out: dict[str, Any] = {
        "rule_id": finding.rule_id,
        "severity": finding.severity.value,
        "category": finding.category,
        "step_id": finding.step_id,
    }
    if finding.agent is not None:
        out["agent"] = finding.agent
    out["message"] = finding.message
    return out


def _side_dict(report: TraceReport | None) -> dict[str, Any] | None:
    if report is None:
        return None
    return {
        "passed": report.passed,
        "score": report.score,
        "total_latency_ms": report.total_latency_ms,
        "total_cost_usd": report.total_cost_usd,
        "findings": len(report.findings),
    }


@dataclass(frozen=True, slots=True)
class TraceComparison:
    """One trace_id seen in either report (or both)."""

    trace_id: str
    status: TraceStatus
    baseline: TraceReport | None
    candidate: TraceReport | None
    transition: Transition | None
    score_delta: float | None
    latency_delta_ms: float | int | None
    cost_delta_usd: float | int | None
    new_findings: tuple[Finding, ...]
    resolved_findings: tuple[Finding, ...]
    unchanged_findings: int
    # The policy that judged the trace on both sides, when traces are matched per
    # (trace_id, policy_id) (reports judged by several policies); None: by trace_id alone.
    policy_id: str | None = None

    @property
    def named(self) -> str:
        """How messages name the trace: `'t-1'`, or `'t-1' (policy 'refunds')`."""
        if self.policy_id is None:
            return repr(self.trace_id)
        return f"{self.trace_id!r} (policy {self.policy_id!r})"

    @property
    def shown_id(self) -> str:
        """How tables show the trace: `t-1`, or `t-1 [refunds]`."""
        return self.trace_id if self.policy_id is None else f"{self.trace_id} [{self.policy_id}]"

    @property
    def changed(self) -> bool:
        """Worth showing to a human: anything but equal verdict, score and findings."""
        return bool(
            self.status is not TraceStatus.COMMON
            or self.transition is not None
            or self.new_findings
            or self.resolved_findings
            or self.score_delta
        )

    def to_dict(self) -> dict[str, Any]:
        # `policy_id` only when traces are matched per policy, so v1 compares keep their bytes.
        policy = {} if self.policy_id is None else {"policy_id": self.policy_id}
        return {
            "trace_id": self.trace_id,
            **policy,
            "status": self.status.value,
            "transition": None if self.transition is None else self.transition.value,
            "baseline": _side_dict(self.baseline),
            "candidate": _side_dict(self.candidate),
            "score_delta": self.score_delta,
            "latency_delta_ms": self.latency_delta_ms,
            "cost_delta_usd": self.cost_delta_usd,
            "new_findings": [finding_dict(f) for f in self.new_findings],
            "resolved_findings": [finding_dict(f) for f in self.resolved_findings],
            "unchanged_findings": self.unchanged_findings,
        }


@dataclass(frozen=True, slots=True)
class RunSide:
    """Headline numbers of one of the two reports."""

    policy_id: str
    total_traces: int
    passed_traces: int
    failed_traces: int
    average_score: float

    @classmethod
    def of(cls, run: RunReport) -> RunSide:
        """Counted from the per-trace reports; fsum keeps the average independent of order."""
        total = len(run.reports)
        passed = sum(1 for r in run.reports if r.passed)
        average = round(math.fsum(r.score for r in run.reports) / total, 2) if total else 0.0
        return cls(run.policy_id, total, passed, total - passed, average)

    def to_dict(self) -> dict[str, Any]:
        return {
            "policy_id": self.policy_id,
            "total_traces": self.total_traces,
            "passed_traces": self.passed_traces,
            "failed_traces": self.failed_traces,
            "average_score": self.average_score,
        }


def _by_severity(findings: list[Finding]) -> dict[str, int]:
    counts = {s.value: 0 for s in Severity}
    for finding in findings:
        counts[finding.severity.value] += 1
    return counts


@dataclass(frozen=True, slots=True)
class Comparison:
    """Baseline vs candidate: every trace_id of either report (sorted) and the gate."""

    baseline: RunSide
    candidate: RunSide
    traces: tuple[TraceComparison, ...]
    gate: Gate
    # Both sides hold repeated runs: the per-task verdicts (None: v1 compare alone).
    repeated: RepeatedComparison | None = None
    # The candidate run's report sections (its policy warnings are shown by every
    # compare renderer); not part of the comparison's JSON.
    candidate_sections: tuple[Section, ...] = ()
    # Both reports have a coverage section (--coverage): its change (compare/coverage.py).
    coverage: Any = None

    def by_task(self, trace: TraceComparison) -> bool:
        """Whether a trace is judged with its task's runs (repeated runs), not alone."""
        return self.repeated is not None and self.repeated.judges(trace.baseline, trace.candidate)

    def with_status(self, status: TraceStatus) -> tuple[TraceComparison, ...]:
        return tuple(t for t in self.traces if t.status is status)

    def with_transition(self, transition: Transition) -> tuple[TraceComparison, ...]:
        return tuple(t for t in self.traces if t.transition is transition)

    def new_findings(self) -> list[tuple[str, Finding]]:
        """(trace shown_id, finding) for every new finding, in trace order then report order."""
        return [(t.shown_id, f) for t in self.traces for f in t.new_findings]

    def resolved_findings(self) -> list[tuple[str, Finding]]:
        return [(t.shown_id, f) for t in self.traces for f in t.resolved_findings]

    def summary_dict(self) -> dict[str, Any]:
        return {
            "common_traces": len(self.with_status(TraceStatus.COMMON)),
            "added_traces": len(self.with_status(TraceStatus.ADDED)),
            "removed_traces": len(self.with_status(TraceStatus.REMOVED)),
            "pass_to_fail": len(self.with_transition(Transition.PASS_TO_FAIL)),
            "fail_to_pass": len(self.with_transition(Transition.FAIL_TO_PASS)),
            "new_findings": _by_severity([f for _, f in self.new_findings()]),
            "resolved_findings": _by_severity([f for _, f in self.resolved_findings()]),
            "unchanged_findings": sum(t.unchanged_findings for t in self.traces),
            "new_in_added_traces": sum(
                len(t.new_findings) for t in self.with_status(TraceStatus.ADDED)
            ),
            "resolved_in_removed_traces": sum(
                len(t.resolved_findings) for t in self.with_status(TraceStatus.REMOVED)
            ),
        }

    def to_dict(self) -> dict[str, Any]:
        out = {
            "schema_version": COMPARE_SCHEMA_VERSION,
            "gate": self.gate.to_dict(),
            "baseline": self.baseline.to_dict(),
            "candidate": self.candidate.to_dict(),
            "summary": self.summary_dict(),
            "traces": [t.to_dict() for t in self.traces],
        }
        if self.repeated is not None:
            out.update(self.repeated.to_dict())
        if self.coverage is not None:
            out["coverage"] = self.coverage.to_dict()
        return out
