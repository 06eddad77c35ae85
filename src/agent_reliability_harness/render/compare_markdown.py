"""The comparison as Markdown (`--md-out`), sized and escaped for a pull-request comment.

Trace text is untrusted: it goes through `_escape` exactly as in the run's Markdown
(code spans for ids, `md_text` for prose: no markup, live mention, issue reference,
link or bidi control); long tables are cut off.
"""

from __future__ import annotations

from ..compare.model import Comparison, RunSide, TraceComparison
from ..models.report import Finding
from ._escape import md_code, md_text
from ._policies import markdown_warnings, policy_ids
from .base import RenderOptions
from .compare_console import counts_line, gate_headline, signed, trace_tag, verdict
from .task_changes import by_task_lines, markdown_lines

MAX_ROWS = 50


def md(text: str) -> str:
    """Plain text made safe for a Markdown table cell or list item (one line)."""
    return md_text(text, limit=2_000)


def _code(text: str) -> str:
    """An identifier (trace id, rule id, step id) shown literally in a table cell."""
    return md_code(text, in_table=True) if text else "(empty)"


def _policies(policy_id: str) -> str:
    return ", ".join(_code(p) for p in policy_ids(policy_id))


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _side_row(label: str, side: RunSide) -> str:
    return _row(
        [
            label,
            str(side.total_traces),
            str(side.passed_traces),
            str(side.failed_traces),
            f"{side.average_score:.2f}",
            _policies(side.policy_id) if side.policy_id else "",
        ]
    )


def _verdicts(t: TraceComparison) -> tuple[str, str]:
    before, after = t.baseline, t.candidate
    if before is not None and after is not None:
        return (
            f"{verdict(before)} → {verdict(after)}",
            f"{before.score:.2f} → {after.score:.2f} ({signed(t.score_delta or 0.0)})",
        )
    if after is not None:
        return verdict(after), f"{after.score:.2f}"
    assert before is not None
    return f"was {verdict(before)}", f"was {before.score:.2f}"


def _cut(rows: list[str], total: int, what: str) -> list[str]:
    if total <= MAX_ROWS:
        return rows
    return [*rows[:MAX_ROWS], "", f"… and {total - MAX_ROWS} more {what} (see the JSON report)"]


def _trace_table(traces: list[TraceComparison]) -> list[str]:
    rows = [
        _row(["trace", "change", "verdict", "score", "new", "resolved"]),
        "|---|---|---|---:|---:|---:|",
    ]
    for t in traces:
        status, score = _verdicts(t)
        rows.append(
            _row(
                [
                    _code(t.shown_id),
                    trace_tag(t),
                    status,
                    score,
                    str(len(t.new_findings)),
                    str(len(t.resolved_findings)),
                ]
            )
        )
    return _cut(rows, len(traces), "traces")


def _finding_table(items: list[tuple[str, Finding]], what: str) -> list[str]:
    rows = [
        _row(["trace", "severity", "rule", "category", "step", "message"]),
        "|---|---|---|---|---|---|",
    ]
    for trace_id, f in items:
        rows.append(
            _row(
                [
                    _code(trace_id),
                    f.severity.value,
                    _code(f.rule_id) if f.rule_id else "(none)",
                    md(f.category),
                    (_code(f.step_id) if f.step_id is not None else "trace")
                    + (f" · agent {_code(f.agent)}" if f.agent is not None else ""),
                    md(f.message),
                ]
            )
        )
    return _cut(rows, len(items), what)


def render_compare(comparison: Comparison, options: RenderOptions) -> str:
    gate = comparison.gate
    word = "PASS" if gate.passed else "FAIL"
    headline = gate_headline(comparison).removeprefix(f"GATE: {word} ")
    lines = [f"## ARH regression gate: {word}", "", f"**GATE: {word}** {md(headline)}", ""]
    if gate.reasons:
        lines.extend(f"- {md(reason.message)}" for reason in gate.reasons[:MAX_ROWS])
        if len(gate.reasons) > MAX_ROWS:
            lines.append(f"- … and {len(gate.reasons) - MAX_ROWS} more reasons")
        lines.append("")
    lines += [
        _row(["report", "traces", "passed", "failed", "average score", "policy"]),
        "|---|---:|---:|---:|---:|---|",
        _side_row("baseline", comparison.baseline),
        _side_row("candidate", comparison.candidate),
        "",
        *markdown_warnings(comparison.candidate_sections),
        md(counts_line(comparison)),
        *([] if comparison.coverage is None else ["", md(comparison.coverage.line())]),
        *markdown_lines(comparison.repeated),
    ]
    alone = [t for t in comparison.traces if not comparison.by_task(t)]
    changed = [t for t in alone if t.changed]
    if changed:
        lines += ["", "### Changed traces", "", *_trace_table(changed)]
    lines += by_task_lines(len(comparison.traces) - len(alone))
    shown = {t.trace_id for t in alone}
    new = [(i, f) for i, f in comparison.new_findings() if i in shown]
    if new:
        lines += ["", "### New findings", "", *_finding_table(new, "new findings")]
    resolved = [(i, f) for i, f in comparison.resolved_findings() if i in shown]
    if resolved:
        lines += ["", "### Resolved findings", "", *_finding_table(resolved, "resolved findings")]
    return "\n".join(lines) + "\n"
