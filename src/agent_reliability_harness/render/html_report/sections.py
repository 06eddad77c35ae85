"""Extra tables of the HTML report (repeated runs, task changes), as plain data.

The page renders any HtmlTable the same way; builders here turn the JSON report's
`tasks` and the comparison's `task_changes` (policy-v1.1.md section 7) into tables.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...compare.model import Comparison
from ...models.report import Section

Cell = str | int | float | bool | None


@dataclass(frozen=True, slots=True)
class HtmlTable:
    """A titled table. `filter_column`, when set, makes that column's cells set the
    trace list's `filter_key` filter (e.g. a task id that shows the task's runs)."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    note: str | None = None
    filter_column: int | None = None
    filter_key: str | None = None

    def to_value(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "title": self.title,
            "columns": list(self.columns),
            "rows": [list(row) for row in self.rows],
        }
        if self.note is not None:
            out["note"] = self.note
        if self.filter_column is not None and self.filter_key is not None:
            out["filter"] = [self.filter_column, self.filter_key]
        return out


def _keys(values: Sequence[Mapping[str, Any]], field: str) -> list[str]:
    """The k's of pass@k / pass^k present in any task, in numeric order."""
    found: set[str] = set()
    for value in values:
        found.update(str(k) for k in (value.get(field) or {}))
    return sorted(found, key=lambda k: (len(k), k))


def task_sections(tasks: Sequence[Mapping[str, Any]]) -> tuple[HtmlTable, ...]:
    """The repeated-run tables from the JSON report's `tasks` list: pass^k per task,
    then the rules that fired in some but not all runs of a task (flaky)."""
    if not tasks:
        return ()
    ks = _keys(tasks, "pass_hat_k")
    at_ks = _keys(tasks, "pass_at_k")
    rows: list[tuple[Cell, ...]] = []
    flaky: list[tuple[Cell, ...]] = []
    for task in tasks:
        hat = task.get("pass_hat_k") or {}
        at = task.get("pass_at_k") or {}
        rows.append(
            (
                task.get("task_id"),
                task.get("runs"),
                task.get("passed"),
                *(hat.get(k) for k in ks),
                *(at.get(k) for k in at_ks),
            )
        )
        for rule in task.get("rules") or ():
            if rule.get("flaky"):
                low, high = [*(rule.get("ci95") or ()), None, None][:2]
                flaky.append(
                    (
                        task.get("task_id"),
                        rule.get("rule_id"),
                        rule.get("fired_runs"),
                        task.get("runs"),
                        rule.get("rate"),
                        low,
                        high,
                    )
                )
    tables = [
        HtmlTable(
            "Repeated runs: pass^k per task",
            ("task", "runs", "passed", *(f"pass^{k}" for k in ks), *(f"pass@{k}" for k in at_ks)),
            tuple(rows),
            note="pass^k: the chance that k runs drawn from the task's runs all pass.",
            filter_column=0,
            filter_key="task",
        )
    ]
    if flaky:
        tables.append(
            HtmlTable(
                "Flaky rules (fired in some but not all runs of a task)",
                ("task", "rule", "fired runs", "runs", "rate", "95% low", "95% high"),
                tuple(flaky),
                filter_column=0,
                filter_key="task",
            )
        )
    return tuple(tables)


def _change_row(change: Mapping[str, Any], count: str) -> tuple[Cell, ...]:
    before = change.get("baseline") or {}
    after = change.get("candidate") or {}
    return (
        change.get("task_id"),
        change.get("rule_id"),
        f"{before.get(count)}/{before.get('runs')}",
        f"{after.get(count)}/{after.get('runs')}",
        change.get("p_value"),
        change.get("verdict"),
    )


def task_change_sections(
    changes: Sequence[Mapping[str, Any]], rule_changes: Sequence[Mapping[str, Any]] = ()
) -> tuple[HtmlTable, ...]:
    """The comparison's `task_changes` (passed runs per side) and `rule_changes` (fired
    runs per side) as tables; a change listed in `changes` with a `rule_id` is a rule's."""
    tasks = [c for c in changes if c.get("rule_id") is None]
    rules = [*(c for c in changes if c.get("rule_id") is not None), *rule_changes]
    note = (
        "p: one-sided Fisher exact test of a worsening; regressed: p below alpha; "
        "inconclusive: worse, but too few runs to tell."
    )
    tables = []
    if tasks:
        tables.append(
            HtmlTable(
                "Repeated runs: task changes",
                ("task", "rule", "baseline passed/runs", "candidate passed/runs", "p", "verdict"),
                tuple(_change_row(c, "passed") for c in tasks),
                note=note,
                filter_column=0,
                filter_key="task",
            )
        )
    if rules:
        tables.append(
            HtmlTable(
                "Repeated runs: rule changes per task",
                ("task", "rule", "baseline fired/runs", "candidate fired/runs", "p", "verdict"),
                tuple(_change_row(c, "fired_runs") for c in rules),
                filter_column=0,
                filter_key="task",
            )
        )
    return tuple(tables)


def coverage_sections(value: Mapping[str, Any]) -> tuple[HtmlTable, ...]:
    """The `coverage` section as a table per allowed tool (and one of the tools called
    without being allowed, when there are any)."""
    from ..coverage import headline, never_text, rules_text  # noqa: PLC0415

    rows = tuple(
        (
            row["tool"],
            row["calls"],
            row["traces"],
            row["arguments_passed"],
            row["arguments_declared"],
            never_text(list(row["arguments_never_passed"])),
            rules_text(row["rules"]),
        )
        for row in value.get("tools") or ()
    )
    note = f"{headline(value)}."
    if value.get("traces_not_counted"):
        note += f" {value['traces_not_counted']} traces too big to hold were not counted."
    tables = [
        HtmlTable(
            "Tool coverage",
            (
                "tool",
                "calls",
                "traces",
                "arguments passed",
                "declared",
                "never passed",
                "rules fired",
            ),
            rows,
            note=note,
        )
    ]
    unlisted = value.get("unlisted_tools") or ()
    if unlisted:
        tables.append(
            HtmlTable(
                "Tools called but not allowed",
                ("tool", "calls", "traces"),
                tuple((u["tool"], u["calls"], u["traces"]) for u in unlisted),
            )
        )
    return tuple(tables)


def run_tables(sections: Iterable[Section]) -> tuple[HtmlTable, ...]:
    """The tables a run's sections give (its `tasks` and `coverage` sections, when it has
    them)."""
    tables: list[HtmlTable] = []
    for section in sections:
        if section.key == "tasks":
            tables.extend(task_sections(section.value))
        elif section.key == "coverage" and isinstance(section.value, Mapping):
            tables.extend(coverage_sections(section.value))
    return tuple(tables)


def compare_tables(comparison: Comparison) -> tuple[HtmlTable, ...]:
    """The tables of a comparison: the coverage change (both reports with --coverage) and
    the repeated runs' changes (none without them)."""
    tables: list[HtmlTable] = []
    change = comparison.coverage
    if change is not None:
        value = change.to_dict()
        tables.append(
            HtmlTable(
                "Tool coverage",
                ("measure", "baseline", "candidate"),
                (
                    (
                        "tool coverage %",
                        value["baseline_tool_coverage"],
                        value["candidate_tool_coverage"],
                    ),
                    (
                        "argument coverage %",
                        value["baseline_argument_coverage"],
                        value["candidate_argument_coverage"],
                    ),
                ),
                note=change.line(),
            )
        )
    if comparison.repeated is not None:
        value = comparison.repeated.to_dict()
        tables.extend(task_change_sections(value["task_changes"], value["rule_changes"]))
    return tuple(tables)
