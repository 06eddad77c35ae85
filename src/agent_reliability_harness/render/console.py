"""Human-readable console output for a run: one block per trace, then a summary."""

from __future__ import annotations

from ..models.common import Severity
from ..models.report import RunReport, Summary, TraceReport
from .base import RenderOptions
from .tasks import console_text as tasks_text

_COLORS = {"error": "31", "warning": "33", "info": "36", "PASS": "32", "FAIL": "31"}


def _paint(text: str, key: str, options: RenderOptions) -> str:
    if not options.color:
        return text
    return f"\033[{_COLORS[key]}m{text}\033[0m"


def _number(value: float | int | None, unit: str) -> str | None:
    return None if value is None else f"{value}{unit}"


def _trace_block(report: TraceReport, options: RenderOptions) -> list[str]:
    verdict = "PASS" if report.passed else "FAIL"
    head = (
        f"{_paint(f'[{verdict}]', verdict, options)} {report.trace_id}  "
        f"score {report.score:.2f}  policy {report.policy_id}"
    )
    totals = [
        f"{report.agent_name}/{report.workflow}",
        _number(report.total_latency_ms, " ms"),
        _number(report.total_cost_usd, " USD"),
        _number(report.total_tokens, " tokens"),
        None if report.citation_coverage is None else f"citations {report.citation_coverage:.0%}",
        report.source_path,
    ]
    lines = [head, "    " + "  |  ".join(t for t in totals if t)]
    for finding in report.findings:
        where = f"step {finding.step_id}" if finding.step_id is not None else "trace"
        severity = _paint(f"{finding.severity.value:<7}", finding.severity.value, options)
        lines.append(
            f"    {severity}  {finding.category:<10}  {finding.rule_id or '-':<11}  "
            f"{finding.message}  ({where})"
        )
    return lines


def trace_text(report: TraceReport, options: RenderOptions) -> str:
    """One trace's block and the blank line after it (streamed as results arrive)."""
    return "\n".join(_trace_block(report, options)) + "\n\n"


def summary_text(summary: Summary, input_errors: int) -> str:
    """The closing summary line."""
    counts = summary.findings_by_severity
    line = (
        f"{summary.total_traces} traces: {summary.passed_traces} passed, "
        f"{summary.failed_traces} failed, average score {summary.average_score:.2f}; findings: "
        + ", ".join(f"{counts.get(s.value, 0)} {s.value}" for s in Severity)
    )
    if input_errors:
        line += f"; {input_errors} unreadable input(s)"
    return line + "\n"


def render_run(report: RunReport, options: RenderOptions) -> str:
    blocks = "".join(trace_text(r, options) for r in report.reports)
    tasks = tasks_text(report.sections)
    return blocks + tasks + summary_text(report.summary, len(report.input_errors))
