"""Human-readable console output for a comparison: the GATE headline first, then what changed.

Traces with no change at all are counted, not listed, so a large run stays readable;
`RenderOptions.show` lists every changed trace, only those the candidate fails, or none.
Trace text goes through `_escape.term` (one line, no control sequences).
"""

from __future__ import annotations

from decimal import Decimal

from ..compare.model import Comparison, GateMode, RunSide, TraceComparison, TraceStatus, Transition
from ..models.common import Severity
from ..models.report import Finding, TraceReport
from ._escape import term
from ._policies import policies_label, policy_warnings
from .base import SHOW_ALL, SHOW_FAILURES, RenderOptions
from .task_changes import by_task_lines
from .task_changes import console_lines as task_change_lines

_COLORS = {"PASS": "32", "FAIL": "31", "new": "31", "resolved": "32"}


def _paint(text: str, key: str, options: RenderOptions) -> str:
    if not options.color or key not in _COLORS:
        return text
    return f"\033[{_COLORS[key]}m{text}\033[0m"


def plain_number(value: float | int | Decimal) -> str:
    """A number as written in a report, never in exponent form (0.00001, not 1e-05)."""
    text = format(Decimal(str(value)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def signed(value: float | int | Decimal) -> str:
    text = plain_number(value)
    return text if text.startswith("-") else f"+{text}"


def verdict(report: TraceReport) -> str:
    return "PASS" if report.passed else "FAIL"


def trace_tag(t: TraceComparison) -> str:
    """PASS->FAIL, FAIL->PASS, ADDED, REMOVED or CHANGED."""
    if t.transition is Transition.PASS_TO_FAIL:
        return "PASS->FAIL"
    if t.transition is Transition.FAIL_TO_PASS:
        return "FAIL->PASS"
    if t.status is TraceStatus.ADDED:
        return "ADDED"
    if t.status is TraceStatus.REMOVED:
        return "REMOVED"
    return "CHANGED"


def gate_headline(comparison: Comparison) -> str:
    """`GATE: PASS (...)` or `GATE: FAIL (...)`, shared by the text renderers."""
    gate = comparison.gate
    if gate.mode is GateMode.NEVER:
        return "GATE: PASS (--fail-on never: report only)"
    mode = f"--fail-on {gate.mode.value}"
    if gate.max_score_drop is not None:
        mode += f", --max-score-drop {gate.max_score_drop:g}"
    if gate.alpha is not None:
        mode += f", --alpha {float(gate.alpha):g}"
    if gate.passed:
        return f"GATE: PASS ({mode})"
    count = len(gate.reasons)
    return f"GATE: FAIL ({mode}; {count} reason{'s' if count != 1 else ''})"


def _side_line(label: str, side: RunSide) -> str:
    policy = f"  ({term(policies_label(side.policy_id))})" if side.policy_id else ""
    return (
        f"{label} {side.total_traces} traces, {side.passed_traces} passed, "
        f"{side.failed_traces} failed, average score {side.average_score:.2f}{policy}"
    )


def counts_line(comparison: Comparison) -> str:
    s = comparison.summary_dict()

    def counted(label: str, counts: dict[str, int], elsewhere: int, where: str) -> str:
        total = sum(counts.values())
        parts = ", ".join(f"{counts[v.value]} {v.value}" for v in Severity if counts[v.value])
        if elsewhere:
            parts += f"; {elsewhere} in {where} traces"
        return f"{total} {label} ({parts})" if parts else f"{total} {label}"

    return (
        f"traces: {s['common_traces']} in both, {s['added_traces']} added, "
        f"{s['removed_traces']} removed; {s['pass_to_fail']} pass->fail, "
        f"{s['fail_to_pass']} fail->pass; findings: "
        f"{counted('new', s['new_findings'], s['new_in_added_traces'], 'added')}, "
        f"{counted('resolved', s['resolved_findings'], s['resolved_in_removed_traces'], 'removed')}"
        f", {s['unchanged_findings']} unchanged"
    )


def _measure(label: str, before: float | int | None, after: float | int | None, unit: str) -> str:
    if before is None and after is None:
        return ""
    if before is None or after is None:
        return f"{label} {'?' if before is None else plain_number(before)} -> " + (
            f"{'?' if after is None else plain_number(after)}{unit}"
        )
    return (
        f"{label} {plain_number(before)} -> {plain_number(after)}{unit} "
        f"({signed(Decimal(str(after)) - Decimal(str(before)))})"
    )


def _head(t: TraceComparison, options: RenderOptions) -> str:
    tag = f"[{trace_tag(t)}]"
    key = {Transition.PASS_TO_FAIL: "FAIL", Transition.FAIL_TO_PASS: "PASS", None: ""}[t.transition]
    head = f"{_paint(tag, key, options)} {term(t.shown_id)}"
    before, after = t.baseline, t.candidate
    if before is not None and after is not None:
        parts = [
            verdict(after) if t.transition is None else "",
            f"score {before.score:.2f} -> {after.score:.2f} ({signed(t.score_delta or 0.0)})",
            _measure("latency", before.total_latency_ms, after.total_latency_ms, " ms"),
            _measure("cost", before.total_cost_usd, after.total_cost_usd, " USD"),
        ]
    elif after is not None:
        parts = [verdict(after), f"score {after.score:.2f}"]
    else:
        assert before is not None
        count = len(before.findings)
        parts = [
            f"was {verdict(before)}",
            f"score {before.score:.2f}",
            f"{count} finding{'s' if count != 1 else ''}",
            "not in the candidate",
        ]
    return "  ".join([head, *(p for p in parts if p)])


def finding_line(label: str, finding: Finding, options: RenderOptions) -> str:
    where = f"step {term(finding.step_id)}" if finding.step_id is not None else "trace"
    if finding.agent is not None:  # policy v1.2: found by an agents entry
        where += f", agent {term(finding.agent)}"
    return (
        f"    {_paint(f'{label:<8}', label, options)}  {finding.severity.value:<7}  "
        f"{term(finding.category):<10}  {term(finding.rule_id or '-'):<11}  "
        f"{term(finding.message)}  ({where})"
    )


def _warnings_note(comparison: Comparison) -> list[str]:
    """One line counting the candidate's policy warnings: the CLI printed each on stderr
    when it loaded the policies, and a given candidate report lists them itself."""
    count = len(policy_warnings(comparison.candidate_sections))
    if not count:
        return []
    plural = "s" if count != 1 else ""
    return [f"note: the candidate run has {count} policy warning{plural} (policy_warnings)"]


def _listed(t: TraceComparison, options: RenderOptions) -> bool:
    if options.show == SHOW_ALL:
        return True
    return options.show == SHOW_FAILURES and t.candidate is not None and not t.candidate.passed


def render_compare(comparison: Comparison, options: RenderOptions) -> str:
    gate = comparison.gate
    headline = gate_headline(comparison)
    lines = [_paint(headline, "PASS" if gate.passed else "FAIL", options)]
    lines.extend(f"  - {term(reason.message)}" for reason in gate.reasons)
    lines.append("")
    lines.append(_side_line("baseline: ", comparison.baseline))
    lines.append(_side_line("candidate:", comparison.candidate))
    if comparison.baseline.policy_id != comparison.candidate.policy_id:
        lines.append("note: the two reports were made with different policies")
    lines.append(counts_line(comparison))
    if comparison.coverage is not None:
        lines.append(comparison.coverage.line())
    lines.extend(_warnings_note(comparison))
    lines.extend(task_change_lines(comparison.repeated))
    alone = [t for t in comparison.traces if not comparison.by_task(t)]
    changed = [t for t in alone if t.changed]
    for t in changed:
        if not _listed(t, options):
            continue
        lines.append("")
        lines.append(_head(t, options))
        lines.extend(finding_line("new", f, options) for f in t.new_findings)
        lines.extend(finding_line("resolved", f, options) for f in t.resolved_findings)
    lines.extend(by_task_lines(len(comparison.traces) - len(alone)))
    quiet = len(alone) - len(changed)
    if quiet:
        lines.append("")
        lines.append(
            f"{quiet} trace{'s' if quiet != 1 else ''} with no change in verdict, score or findings"
        )
    return "\n".join(lines) + "\n"
