"""Human-readable console output for a run: one block per trace (all of them, the failing
ones, or none: RenderOptions.show), then the run's policy warnings and a summary line.

Every text taken from a trace or a policy goes through `_escape.term`: one line each,
no control sequence, so a trace cannot drive the terminal or a CI runner."""

from __future__ import annotations

from collections.abc import Iterable

from ..models.common import Severity
from ..models.report import RunReport, Section, Summary, TraceReport
from ._escape import term
from ._policies import policy_warnings, warning_text
from .base import SHOW_ALL, SHOW_FAILURES, RenderOptions
from .tasks import console_text as tasks_text

_COLORS = {"error": "31", "warning": "33", "info": "36", "PASS": "32", "FAIL": "31"}
# The rule that turns adapter notes (transcript content that could not be mapped) into
# findings; the summary counts the items it reports.
UNMAPPED_RULE = "ARH-SCH-013"
_MORE = "... and "  # the message of the engine's "and N more" finding (the findings cap)


def _paint(text: str, key: str, options: RenderOptions) -> str:
    if not options.color:
        return text
    return f"\033[{_COLORS[key]}m{text}\033[0m"


def _number(value: float | int | None, unit: str) -> str | None:
    return None if value is None else f"{value}{unit}"


def _trace_block(report: TraceReport, options: RenderOptions) -> list[str]:
    verdict = "PASS" if report.passed else "FAIL"
    head = (
        f"{_paint(f'[{verdict}]', verdict, options)} {term(report.trace_id)}  "
        f"score {report.score:.2f}  policy {term(report.policy_id)}"
    )
    totals = [
        f"{term(report.agent_name)}/{term(report.workflow)}",
        _number(report.total_latency_ms, " ms"),
        _number(report.total_cost_usd, " USD"),
        _number(report.total_tokens, " tokens"),
        None if report.citation_coverage is None else f"citations {report.citation_coverage:.0%}",
        None if report.source_path is None else term(report.source_path),
    ]
    lines = [head, "    " + "  |  ".join(t for t in totals if t)]
    for finding in report.findings:
        where = f"step {term(finding.step_id)}" if finding.step_id is not None else "trace"
        if finding.agent is not None:  # policy v1.2: found by an agents entry
            where += f", agent {term(finding.agent)}"
        severity = _paint(f"{finding.severity.value:<7}", finding.severity.value, options)
        lines.append(
            f"    {severity}  {term(finding.category):<10}  {term(finding.rule_id or '-'):<11}  "
            f"{term(finding.message)}  ({where})"
        )
    return lines


def shown(report: TraceReport, options: RenderOptions) -> bool:
    """Whether the trace gets a block under `options.show`."""
    return options.show == SHOW_ALL or (options.show == SHOW_FAILURES and not report.passed)


def trace_text(report: TraceReport, options: RenderOptions) -> str:
    """One trace's block and the blank line after it (streamed as results arrive); empty
    when `options.show` leaves the trace out."""
    if not shown(report, options):
        return ""
    return "\n".join(_trace_block(report, options)) + "\n\n"


def unmapped_items(report: TraceReport) -> int:
    """How many transcript items the trace's adapter could not map (its ARH-SCH-013
    findings, with the ones the findings cap folded into "and N more" counted too)."""
    count = 0
    for finding in report.findings:
        if finding.rule_id != UNMAPPED_RULE:
            continue
        folded = finding.observed
        capped = finding.step_id is None and finding.message.startswith(_MORE)
        count += folded if capped and isinstance(folded, int) else 1
    return count


def summary_text(
    summary: Summary,
    input_errors: int,
    sections: Iterable[Section] = (),
    unmapped: int = 0,
    list_warnings: bool = True,
) -> str:
    """The run's policy warnings (one line each, unless `list_warnings` is False: then
    they are only counted), then the closing summary line."""
    warnings = policy_warnings(sections)
    listed = warnings if list_warnings else ()
    lines = "".join(f"warning: {term(warning_text(w))}\n" for w in listed)
    counts = summary.findings_by_severity
    line = (
        f"{summary.total_traces} traces: {summary.passed_traces} passed, "
        f"{summary.failed_traces} failed, average score {summary.average_score:.2f}; findings: "
        + ", ".join(f"{counts.get(s.value, 0)} {s.value}" for s in Severity)
    )
    if input_errors:
        line += f"; {input_errors} unreadable input(s)"
    if unmapped:
        item = "item" if unmapped == 1 else "items"
        line += f"; {unmapped} transcript {item} not mapped ({UNMAPPED_RULE})"
    if warnings:
        line += f"; {len(warnings)} policy warning{'s' if len(warnings) != 1 else ''}"
    return lines + line + "\n"


def render_run(report: RunReport, options: RenderOptions) -> str:
    blocks = "".join(trace_text(r, options) for r in report.reports)
    unmapped = sum(unmapped_items(r) for r in report.reports)
    tasks = tasks_text(report.sections)
    return (
        blocks
        + tasks
        + summary_text(report.summary, len(report.input_errors), report.sections, unmapped)
    )
