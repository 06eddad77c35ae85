"""Markdown for a pull-request comment: a summary table, then findings per trace.

The text always fits one GitHub comment: past the budget, whole sections are left
out (failing traces are listed first) and a note says what is missing.
"""

from __future__ import annotations

import msgspec

from ..models.common import Category, Severity
from ..models.report import Finding, InputFailure, RunReport, TraceReport
from ._escape import md_code, md_text
from ._policies import markdown_warnings, policy_ids, several
from ._text import rule_url
from .base import RenderOptions
from .coverage import markdown_text as coverage_markdown
from .tasks import markdown_text as tasks_markdown

# GitHub rejects a comment body over 65,536 characters. We count UTF-8 bytes, which
# is never less than the character count, and keep room for a marker or header the
# posting workflow may add above the report.
COMMENT_LIMIT = 65_536
RESERVED_FOR_WORKFLOW = 1_024
BUDGET = COMMENT_LIMIT - RESERVED_FOR_WORKFLOW
# One trace's findings table stops at this many rows or bytes, whichever comes first;
# the JSON and SARIF reports keep them all.
MAX_FINDINGS_PER_TRACE = 50
MAX_TRACE_BYTES = 16_000
# Unreadable inputs are listed first; past this many, one line counts the rest so
# that they cannot crowd the failed traces out of the comment.
MAX_INPUTS_LISTED = 20
_NOTE_ROOM = 700  # the truncation note is far shorter; checked by the tests


class _Block(msgspec.Struct, frozen=True):
    """One omittable piece of the comment, under a section heading."""

    section: str
    text: str
    kind: str  # "input", "failed", "passed": what the truncation note counts


def _policies(policy_id: str) -> str:
    ids = policy_ids(policy_id)
    label = "policy" if len(ids) == 1 else "policies"
    return f"{label} " + ", ".join(md_code(p) for p in ids)


def _headline(report: RunReport) -> str:
    """The verdict, and why a run failed when no trace did (an unreadable input)."""
    summary = report.summary
    verdict = "passed" if report.ok else "failed"
    unreadable = len(report.input_errors)
    why = ""
    if unreadable:
        why = f"{unreadable} input{' could' if unreadable == 1 else 's could'} not be read; "
    return (
        f"**Run {verdict}:** {why}{summary.passed_traces} of {summary.total_traces} traces "
        f"passed, average score {summary.average_score:.2f}."
    )


def _header(report: RunReport) -> str:
    summary = report.summary
    lines = [
        f"## ARH report: {_policies(report.policy_id)}",
        "",
        _headline(report),
        "",
        *markdown_warnings(report.sections),
        "| traces | passed | failed | unreadable inputs | average score |",
        "|---:|---:|---:|---:|---:|",
        f"| {summary.total_traces} | {summary.passed_traces} | {summary.failed_traces} "
        f"| {len(report.input_errors)} | {summary.average_score:.2f} |",
        "",
        "| findings by severity | " + " | ".join(s.value for s in Severity) + " |",
        "|---|" + "---:|" * len(Severity),
        "| count | "
        + " | ".join(str(summary.findings_by_severity.get(s.value, 0)) for s in Severity)
        + " |",
        "",
        "| findings by category | " + " | ".join(c.value for c in Category) + " |",
        "|---|" + "---:|" * len(Category),
        "| count | "
        + " | ".join(str(summary.findings_by_category.get(c.value, 0)) for c in Category)
        + " |",
        "",
    ]
    return "\n".join(lines) + "\n"


def _where(report: TraceReport) -> str:
    if report.source_path is None:
        return ""
    line = f":{report.source_line}" if report.source_line is not None else ""
    return f" · {md_code(report.source_path + line, 300)}"


def _finding_row(finding: Finding) -> str:
    # A reference link: the URL is written once, at the end, for every rule shown.
    rule_cell = (
        (f"[{finding.rule_id}]" if rule_url(finding.rule_id) else finding.rule_id)
        if finding.rule_id
        else "-"
    )
    step = (
        md_code(finding.step_id, 120, in_table=True) if finding.step_id is not None else "(trace)"
    )
    if finding.agent is not None:  # policy v1.2: found by an agents entry
        step += f" · agent {md_code(finding.agent, 120, in_table=True)}"
    return (
        f"| {finding.severity.value} | {rule_cell} | {finding.category} | {step} "
        f"| {md_text(finding.message)} |"
    )


def _trace_block(report: TraceReport, policy: bool) -> str:
    verdict = "PASS" if report.passed else "FAIL"
    judged = f" · policy {md_code(report.policy_id)}" if policy else ""
    lines = [
        f"#### {verdict} {md_code(report.trace_id)} (score {report.score:.2f})",
        "",
        f"{md_code(report.agent_name)} / {md_code(report.workflow)}{_where(report)}{judged}",
        "",
    ]
    if report.findings:
        lines += ["| severity | rule | category | step | message |", "|---|---|---|---|---|"]
        size = 0
        shown = 0
        for finding in report.findings[:MAX_FINDINGS_PER_TRACE]:
            row = _finding_row(finding)
            size += _size(row) + 1
            if size > MAX_TRACE_BYTES:
                break
            lines.append(row)
            shown += 1
        hidden = len(report.findings) - shown
        if hidden:
            lines += ["", f"_...and {hidden} more findings (see the JSON or SARIF report)._"]
    elif not report.passed:
        lines.append("No error findings; the score is below the passing threshold.")
    lines.append("")
    return "\n".join(lines) + "\n"


def _input_block(failure: InputFailure) -> str:
    return f"- {md_code(failure.location(), 300)}: {md_text(failure.message)}\n"


def _blocks(report: RunReport) -> list[_Block]:
    listed = report.input_errors[:MAX_INPUTS_LISTED]
    texts = [_input_block(f) for f in listed]
    if len(report.input_errors) > len(listed):
        more = len(report.input_errors) - len(listed)
        texts[-1] += f"- ...and {more} more unreadable inputs (see the JSON report).\n"
    blocks = [_Block("### Unreadable inputs\n\n", text, "input") for text in texts]
    failed = [r for r in report.reports if not r.passed]
    noted = [r for r in report.reports if r.passed and r.findings]
    clean = [r for r in report.reports if r.passed and not r.findings]
    # With one policy the heading names it; with several each trace names its own.
    policy = several(report.policy_id)
    blocks += [_Block("### Failed traces\n\n", _trace_block(r, policy), "failed") for r in failed]
    blocks += [
        _Block("### Passed traces with findings\n\n", _trace_block(r, policy), "passed")
        for r in noted
    ]
    blocks += [_Block(_table_head(policy), _passed_row(r, policy), "passed") for r in clean]
    return blocks


def _table_head(policy: bool) -> str:
    if policy:
        return (
            "### Passed traces\n\n| trace | agent / workflow | policy | score |\n"
            "|---|---|---|---:|\n"
        )
    return "### Passed traces\n\n| trace | agent / workflow | score |\n|---|---|---:|\n"


def _passed_row(report: TraceReport, policy: bool) -> str:
    judged = f" {md_code(report.policy_id, 100, True)} |" if policy else ""
    return (
        f"| {md_code(report.trace_id, in_table=True)} | {md_code(report.agent_name, 100, True)} / "
        f"{md_code(report.workflow, 100, True)} |{judged} {report.score:.2f} |\n"
    )


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _link_definitions(rule_ids: set[str]) -> str:
    if not rule_ids:
        return ""
    urls = [(r, rule_url(r)) for r in sorted(rule_ids)]
    return "\n" + "".join(f"[{r}]: {url}\n" for r, url in urls if url)


def _rules_in(block: _Block, report_rules: set[str]) -> set[str]:
    return {r for r in report_rules if f"[{r}]" in block.text}


def _truncation_note(left_out: list[_Block], total: int) -> str:
    counts = {kind: sum(1 for b in left_out if b.kind == kind) for kind in ("failed", "passed")}
    inputs = sum(1 for b in left_out if b.kind == "input")
    parts = [f"{counts['failed']} failed traces", f"{counts['passed']} passed traces"]
    if inputs:
        parts.append(f"{inputs} unreadable inputs")
    return (
        f"\n> **Truncated:** {len(left_out)} of {total} entries are not listed here "
        f"({', '.join(parts)}) to keep this comment under GitHub's limit of "
        f"{COMMENT_LIMIT:,} characters. The JSON, JUnit and SARIF reports list everything.\n"
    )


def render_run(report: RunReport, options: RenderOptions) -> str:
    """The whole comment; never more than BUDGET bytes of UTF-8."""
    # The repeated-runs table is bounded (tasks.MAX_MARKDOWN_TASKS rows) and always shown.
    # So is the coverage table (coverage.MAX_MARKDOWN_TOOLS rows).
    out = [_header(report) + tasks_markdown(report.sections) + coverage_markdown(report.sections)]
    blocks = _blocks(report)
    if not blocks:
        return out[0]
    report_rules = {f.rule_id for r in report.reports for f in r.findings if f.rule_id}
    links = _size(_link_definitions(report_rules))
    used = _size(out[0]) + links
    full = sum(_size(b.text) for b in blocks) + sum(
        _size(s) + 1 for s in {b.section for b in blocks}
    )
    room = BUDGET - used if used + full <= BUDGET else BUDGET - used - _NOTE_ROOM
    shown_rules: set[str] = set()
    section = ""
    shown = 0
    for block in blocks:
        cost = _size(block.text)
        opening = block.section != section
        if opening:
            cost += _size(block.section) + 1
        if cost > room:
            break
        if opening:
            if not out[-1].endswith("\n\n"):
                out.append("\n")
            out.append(block.section)
            section = block.section
        out.append(block.text)
        shown_rules |= _rules_in(block, report_rules)
        room -= cost
        shown += 1
    if shown < len(blocks):
        out.append(_truncation_note(blocks[shown:], len(blocks)))
    out.append(_link_definitions(shown_rules))
    return "".join(out)
