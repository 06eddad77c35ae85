"""The statistical part of a comparison of repeated runs (`task_changes`, `rule_changes`)
as console lines and Markdown: regressions, then the non-significant worsenings (which
say "inconclusive: too few runs to tell"), then improvements; unchanged ones counted."""

from __future__ import annotations

from ..compare.repeated import INCONCLUSIVE_NOTE, RepeatedComparison, alpha_text, p_text, rates
from ..stats import Change, Verdict
from ._text import md_code, md_text
from .tasks import clean

MAX_MARKDOWN_ROWS = 50
_SHOWN = (Verdict.REGRESSED, Verdict.INCONCLUSIVE, Verdict.IMPROVED)


def _counts(repeated: RepeatedComparison, rules: bool) -> str:
    return ", ".join(
        f"{len(repeated.with_verdict(verdict, rules))} {verdict.value}" for verdict in Verdict
    )


def summary_line(repeated: RepeatedComparison) -> str:
    """`repeated runs (...): 3 tasks in both: 1 regressed, ...; rules: ...`."""
    count = len(repeated.task_changes)
    return (
        f"repeated runs (one-sided Fisher exact test, alpha {alpha_text(repeated.alpha)}): "
        f"{count} task{'s' if count != 1 else ''} in both: {_counts(repeated, False)}; "
        f"rules per task: {_counts(repeated, True)}"
    )


def listed(repeated: RepeatedComparison) -> list[Change]:
    """The changes worth a line, in the order they are shown: by verdict (regressed,
    inconclusive, improved), tasks before rules, then by task_id and rule_id."""
    return [
        change
        for verdict in _SHOWN
        for rules in (False, True)
        for change in repeated.with_verdict(verdict, rules)
    ]


def _what(change: Change) -> str:
    if change.rule_id is None:
        return f"task {change.task_id!r}"
    return f"rule {change.rule_id} in task {change.task_id!r}"


def console_lines(repeated: RepeatedComparison | None) -> list[str]:
    """The lines to print after the comparison's counts (none without repeated runs)."""
    if repeated is None:
        return []
    lines = ["", summary_line(repeated)]
    for change in listed(repeated):
        tag = f"[{change.verdict.value.upper()}]"
        count = "passed" if change.rule_id is None else "fired"
        p_value = p_text(change.p_value)
        line = f"  {tag:<14}  {clean(_what(change))}  {count} {rates(change)}  p = {p_value}"
        if change.verdict is Verdict.INCONCLUSIVE:
            line += f"  ({INCONCLUSIVE_NOTE})"
        lines.append(line)
    return lines


def markdown_lines(repeated: RepeatedComparison | None) -> list[str]:
    """A `### Repeated runs` section: the counts and a table of the listed changes."""
    if repeated is None:
        return []
    lines = ["", "### Repeated runs", "", md_text(summary_line(repeated), 1000)]
    changes = listed(repeated)
    if not changes:
        return lines
    lines += [
        "",
        "| verdict | task | rule | baseline | candidate | p | note |",
        "|---|---|---|---:|---:|---:|---|",
    ]
    for change in changes[:MAX_MARKDOWN_ROWS]:
        (b_runs, b_count), (c_runs, c_count) = change.baseline, change.candidate
        note = INCONCLUSIVE_NOTE if change.verdict is Verdict.INCONCLUSIVE else ""
        rule = "(pass rate)" if change.rule_id is None else md_code(change.rule_id, 60, True)
        lines.append(
            f"| {change.verdict.value} | {md_code(change.task_id, 100, True)} | {rule} "
            f"| {b_count}/{b_runs} | {c_count}/{c_runs} | {p_text(change.p_value)} | {note} |"
        )
    if len(changes) > MAX_MARKDOWN_ROWS:
        more = len(changes) - MAX_MARKDOWN_ROWS
        lines += ["", f"… and {more} more changes (see the JSON report)"]
    return lines


def by_task_lines(count: int) -> list[str]:
    """The note that stands for the runs of the compared tasks in the trace listing."""
    if not count:
        return []
    runs = f"{count} trace{'s' if count != 1 else ''}"
    return [
        "",
        f"{runs} of the compared tasks are judged by task (above), not one by one: runs of "
        "a task are independent tries, so a trace_id on both sides pairs nothing",
    ]
