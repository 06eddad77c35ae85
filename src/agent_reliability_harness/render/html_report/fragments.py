"""One trace's share of the HTML report, rendered on its own: its JSON block and index row.

Pure strings, so a worker process can render them (as it does the JSON report's
fragments) and the writer places them in order; the page depends only on the inputs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...compare.model import TraceComparison
from ...models.report import TraceReport
from ...models.trace import Trace
from .encode import (
    EmbedLimits,
    finding_value,
    report_detail,
    report_index,
    script_json,
    task_of,
    trace_body,
)

TraceInput = Trace | Mapping[str, Any] | None
_DEFAULT_LIMITS = EmbedLimits()


# Between the parts of a packed fragment: script_json text never holds a raw NUL (JSON
# spells control characters \u0000), and neither do the registry's rule ids.
_PACK = "\x00"


@dataclass(frozen=True, slots=True)
class TraceFragment:
    """`block`: the trace's JSON block (inert in <script>); `row`: its index row (JSON);
    `rules`: the rule ids it mentions (the page lists their titles)."""

    block: str
    row: str
    rules: tuple[str, ...]

    def pack(self) -> str:
        """One string (what a pipeline worker hands back per trace); see `unpack`."""
        return _PACK.join((self.block, self.row, *self.rules))

    @classmethod
    def unpack(cls, text: str) -> TraceFragment:
        block, row, *rules = text.split(_PACK)
        return cls(block, row, tuple(rules))


def _block(
    head: Mapping[str, Any], trace: TraceInput, limits: EmbedLimits, body: str | None
) -> str:
    if body is None:
        body = "null" if trace is None else trace_body(trace, limits)
    return f'{script_json(head)[:-1]},"trace":{body}}}'


def run_fragment(
    report: TraceReport,
    trace: TraceInput = None,
    limits: EmbedLimits | None = None,
    body: str | None = None,
) -> TraceFragment:
    """A validated trace: its verdict and findings, and the trace (None: findings only).
    `body`, when given, is the trace as embedded already (`trace_body`, or a StepFitter's
    for a trace streamed a chunk at a time); `trace` then gives only its labels."""
    head = {"report": report_detail(report)}
    return TraceFragment(
        block=_block(head, trace, limits or _DEFAULT_LIMITS, body),
        row=script_json(report_index(report, task_of(report, trace))),
        rules=tuple(sorted({f.rule_id for f in report.findings if f.rule_id})),
    )


def _side(report: TraceReport | None) -> dict[str, Any] | None:
    if report is None:
        return None
    return {"passed": report.passed, "score": report.score, "findings": len(report.findings)}


def compare_fragment(
    item: TraceComparison,
    trace: TraceInput = None,
    limits: EmbedLimits | None = None,
    body: str | None = None,
) -> TraceFragment:
    """A compared trace: the candidate's findings marked new or unchanged, the baseline's
    resolved ones as fixed; `trace` (or its embedded `body`) is the candidate's (ignored
    for a removed trace)."""
    report = item.candidate or item.baseline
    assert report is not None  # a compared trace is in at least one report
    detail = report_detail(report)
    if item.candidate is not None:
        new = {id(f) for f in item.new_findings}
        for finding, value in zip(item.candidate.findings, detail["findings"], strict=True):
            value["change"] = "new" if id(finding) in new else "unchanged"
    else:
        detail["findings"] = []  # a removed trace: its findings are listed as fixed
        trace = body = None
    head = {
        "report": detail,
        "compare": {
            "baseline": _side(item.baseline),
            "candidate": _side(item.candidate),
            "fixed": [finding_value(f) for f in item.resolved_findings],
        },
    }
    row = report_index(report, task_of(report, trace))
    unchanged = len(item.candidate.findings) - len(item.new_findings) if item.candidate else 0
    row["status"] = item.status.value
    row["transition"] = None if item.transition is None else item.transition.value
    row["delta"] = item.score_delta
    row["changes"] = [len(item.new_findings), len(item.resolved_findings), unchanged]
    seen = (*(item.candidate.findings if item.candidate else ()), *item.resolved_findings)
    return TraceFragment(
        block=_block(head, trace, limits or _DEFAULT_LIMITS, body),
        row=script_json(row),
        rules=tuple(sorted({f.rule_id for f in seen if f.rule_id})),
    )
