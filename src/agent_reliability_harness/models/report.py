"""Report model: findings, per-trace reports and the run report, with their JSON shape.

The JSON form is the contract of reports-and-compare.md and doubles as the
baseline format. This module is the one place that fixes the key order (`to_dict`,
`run_fields`); render/json_.py lays out whatever these give, whole or streamed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from .common import Category, Severity


# gc=False: a finding holds only strings and the JSON values a rule quoted (never a
# report or another finding), so it cannot be part of a reference cycle; untracked, the
# thousands a long trace makes cost the cycle collector nothing.
class Finding(msgspec.Struct, frozen=True, gc=False):
    """One rule violation (or lint note) anchored at a step or at the whole trace."""

    rule_id: str | None
    severity: Severity
    category: str
    message: str
    step_id: str | None = None
    expected: Any = None
    observed: Any = None
    remediation: str | None = None
    # Position of the anchoring step in the trace; not serialised (step ids may repeat).
    step_index: int | None = None
    # The step a flagged value came from (ARH-FLW-004), as `source_step_id` in the JSON
    # only when set; its position, like step_index, is not serialised.
    source_step_id: str | None = None
    source_step_index: int | None = None
    # Policy v1.2 `agents`: the agent whose entry found it (in the JSON only when set).
    agent: str | None = None

    def sort_key(self) -> tuple[int, str, int, str, str]:
        position = -1 if self.step_index is None else self.step_index
        return (self.severity.rank, self.rule_id or "", position, self.message, self.agent or "")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rule_id": self.rule_id,
            "severity": self.severity.value,
            "category": self.category,
            "message": self.message,
            "step_id": self.step_id,
        }
        if self.agent is not None:
            out["agent"] = self.agent
        if self.source_step_id is not None:
            out["source_step_id"] = self.source_step_id
        if self.expected is not None:
            out["expected"] = self.expected
        if self.observed is not None:
            out["observed"] = self.observed
        if self.remediation is not None:
            out["remediation"] = self.remediation
        return out


# gc=False: a report holds its findings and values copied from its trace, never
# anything that refers back to it (see Finding).
class TraceReport(msgspec.Struct, frozen=True, gc=False):
    """The verdict on one trace."""

    trace_id: str
    agent_name: str
    workflow: str
    policy_id: str
    score: float
    passed: bool
    total_latency_ms: float | int | None
    total_cost_usd: float | int | None
    total_tokens: int | None
    citation_coverage: float | None
    source_path: str | None
    findings: tuple[Finding, ...]
    category_scores: dict[str, float] = msgspec.field(default_factory=dict)
    # Where the trace object starts in its file (1-based), and where each step does;
    # used by location-aware renderers (SARIF). Not part of the JSON report.
    source_line: int | None = None
    step_lines: tuple[int, ...] = ()
    # Trace v1.1 labels, carried from the trace (in the JSON only when set, so v1 traces
    # keep their bytes): the task a run attempts, and an external grader's verdict.
    task_id: str | None = None
    outcome: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "trace_id": self.trace_id,
            "agent_name": self.agent_name,
            "workflow": self.workflow,
            "policy_id": self.policy_id,
            "score": self.score,
            "passed": self.passed,
            "total_latency_ms": self.total_latency_ms,
            "total_cost_usd": self.total_cost_usd,
            "total_tokens": self.total_tokens,
            "citation_coverage": self.citation_coverage,
            "source_path": self.source_path,
        }
        if self.task_id is not None:
            out["task_id"] = self.task_id
        if self.outcome is not None:
            out["outcome"] = self.outcome
        out["category_scores"] = dict(self.category_scores)
        out["findings"] = [f.to_dict() for f in self.findings]
        return out

    def error_count(self) -> int:
        return sum(1 for f in self.findings if f.severity is Severity.ERROR)


class InputFailure(msgspec.Struct, frozen=True):
    """An input (file, JSONL line, array element) that could not be turned into a trace."""

    source_path: str
    message: str
    line: int | None = None
    index: int | None = None

    def location(self) -> str:
        """`path`, `path:line` or `path: [index]`, as printed on stderr."""
        if self.line is not None:
            return f"{self.source_path}:{self.line}"
        if self.index is not None:
            return f"{self.source_path}: [{self.index}]"
        return self.source_path

    def to_dict(self) -> dict[str, Any]:
        return {
            "source_path": self.source_path,
            "line": self.line,
            "index": self.index,
            "message": self.message,
        }


class Summary(msgspec.Struct, frozen=True):
    total_traces: int = 0
    passed_traces: int = 0
    failed_traces: int = 0
    average_score: float = 0.0
    findings_by_severity: dict[str, int] = msgspec.field(default_factory=dict)
    findings_by_category: dict[str, int] = msgspec.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "total_traces": self.total_traces,
            "passed_traces": self.passed_traces,
            "failed_traces": self.failed_traces,
            "average_score": self.average_score,
            "findings_by_severity": dict(self.findings_by_severity),
            "findings_by_category": dict(self.findings_by_category),
        }


class SummaryBuilder:
    """Aggregates trace reports as they arrive, so a run never has to hold them all."""

    def __init__(self) -> None:
        self.total = 0
        self.passed = 0
        # Scores carry 2 decimals; summing whole hundredths keeps the average exact and
        # independent of input order.
        self._hundredths = 0
        self._severity = {s.value: 0 for s in Severity}
        self._category = {c.value: 0 for c in Category}

    def add(self, report: TraceReport) -> None:
        self.total += 1
        self.passed += report.passed
        self._hundredths += round(report.score * 100)
        for finding in report.findings:
            self._severity[finding.severity.value] = (
                self._severity.get(finding.severity.value, 0) + 1
            )
            self._category[finding.category] = self._category.get(finding.category, 0) + 1

    def add_many(
        self,
        passed: int,
        scores: Iterable[float],
        severities: Mapping[str, int],
        categories: Mapping[str, int],
    ) -> None:
        """Like `add` for several reports at once, from their counts and their scores in
        order (what a worker process sends back); the sum is the same as `add`'s."""
        self.passed += passed
        for score in scores:
            self.total += 1
            self._hundredths += round(score * 100)
        for key, count in severities.items():
            self._severity[key] = self._severity.get(key, 0) + count
        for key, count in categories.items():
            self._category[key] = self._category.get(key, 0) + count

    def build(self) -> Summary:
        average = round(self._hundredths / self.total / 100, 2) if self.total else 0.0
        return Summary(
            total_traces=self.total,
            passed_traces=self.passed,
            failed_traces=self.total - self.passed,
            average_score=average,
            findings_by_severity=dict(self._severity),
            findings_by_category=dict(self._category),
        )


class Section(msgspec.Struct, frozen=True):
    """A run-level part of the report, built over the whole run (per-task statistics,
    policy warnings, ...): `value` under `key` after the run's arrays, and `summary`
    keys appended to the summary. Values are JSON-ready (dicts, lists, scalars)."""

    key: str
    value: Any
    summary: tuple[tuple[str, Any], ...] = ()


# A run judged by several policies names them all in its policy_id, joined by this.
POLICY_SEPARATOR = ", "

# The top-level arrays of a run report; `run_fields` marks where they go.
REPORTS = "reports"
INPUT_ERRORS = "input_errors"


def run_fields(
    policy_id: str, summary: Summary, sections: Iterable[Section] = ()
) -> dict[str, Any]:
    """The run report's top-level keys in order, with None standing for the two arrays
    (REPORTS, INPUT_ERRORS), which a writer fills from the reports and input errors."""
    sections = tuple(sections)
    summary_dict = summary.to_dict()
    for section in sections:
        summary_dict.update(section.summary)
    fields: dict[str, Any] = {
        "schema_version": "1",
        "policy_id": policy_id,
        "summary": summary_dict,
        REPORTS: None,
        INPUT_ERRORS: None,
    }
    for section in sections:
        fields[section.key] = section.value
    return fields


class RunReport(msgspec.Struct, frozen=True):
    """Everything one `arh validate` run produced."""

    policy_id: str
    reports: tuple[TraceReport, ...]
    input_errors: tuple[InputFailure, ...] = ()
    summary: Summary = msgspec.field(default_factory=Summary)
    sections: tuple[Section, ...] = ()
    # The plugins the run's policies name (policy v1.2 section 5): their rules are in
    # the SARIF rule catalogue. Not part of the JSON report.
    plugins: tuple[str, ...] = ()

    @classmethod
    def build(
        cls,
        policy_id: str,
        reports: tuple[TraceReport, ...],
        input_errors: tuple[InputFailure, ...] = (),
    ) -> RunReport:
        builder = SummaryBuilder()
        for report in reports:
            builder.add(report)
        return cls(policy_id, reports, input_errors, builder.build())

    @property
    def ok(self) -> bool:
        """True when every trace passed and every input was readable."""
        return not self.input_errors and self.summary.failed_traces == 0

    def to_dict(self) -> dict[str, Any]:
        fields = run_fields(self.policy_id, self.summary, self.sections)
        fields[REPORTS] = [r.to_dict() for r in self.reports]
        fields[INPUT_ERRORS] = [e.to_dict() for e in self.input_errors]
        return fields
