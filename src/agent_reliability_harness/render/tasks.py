"""The `tasks` run section (repeated runs, pass^k, flaky rules) as console text, a
Markdown table and JUnit suite data, from the section's JSON value; the run renderers
call these and print nothing of it when the run has no such section."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

from ..models.report import Section
from ._escape import clip, md_code, term

KEY = "tasks"
# Markdown lists this many tasks (worst first) and counts the rest; each row is bounded,
# so the table stays far below the comment budget whatever the run.
MAX_MARKDOWN_TASKS = 50
MAX_FLAKY_SHOWN = 3
_ID_WIDTH = 40


class TasksView(msgspec.Struct, frozen=True):
    """The section's rows and its summary figures, as the JSON report holds them."""

    tasks: tuple[Mapping[str, Any], ...]
    summary: Mapping[str, Any]

    @property
    def k_min(self) -> int | None:
        value = self.summary.get("k_min")
        return value if isinstance(value, int) else None


def tasks_view(sections: Iterable[Section]) -> TasksView | None:
    """The `tasks` section of a run, or None when the run has none."""
    for section in sections:
        if section.key == KEY:
            return TasksView(tuple(section.value), dict(section.summary))
    return None


def worst_first(tasks: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Lowest pass rate first (exact), then more runs first, then task_id."""
    from fractions import Fraction  # noqa: PLC0415 - only for a run with a tasks section

    return sorted(tasks, key=lambda t: (Fraction(t["passed"], t["runs"]), -t["runs"], t["task_id"]))


def _pass_hat(task: Mapping[str, Any], k: int) -> float:
    return float(task["pass_hat_k"][str(k)])


def flaky_rules(task: Mapping[str, Any]) -> list[str]:
    """`RULE fired/runs` for each flaky rule of a task, by rule_id."""
    return [f"{r['rule_id']} {r['fired_runs']}/{task['runs']}" for r in task["rules"] if r["flaky"]]


def headline(view: TasksView) -> str:
    """`3 tasks, k_min 8; mean pass^1 0.458, mean pass^8 0.125`."""
    s = view.summary
    count = s.get("tasks", len(view.tasks))
    text = f"{count} task{'s' if count != 1 else ''}"
    if view.k_min is None:
        return text
    return (
        f"{text}, k_min {view.k_min}; mean pass^1 {s['mean_pass_hat_1']:.3f}, "
        f"mean pass^{view.k_min} {s['mean_pass_hat_k_min']:.3f}"
    )


def console_text(sections: Iterable[Section]) -> str:
    """The compact console table (worst tasks first) and a blank line, or ""."""
    view = tasks_view(sections)
    if view is None:
        return ""
    lines = [f"Repeated runs: {headline(view)}"]
    rows = [
        (
            clip(term(task["task_id"]), _ID_WIDTH),
            str(task["runs"]),
            str(task["passed"]),
            f"{_pass_hat(task, 1):.3f}",
            f"{_pass_hat(task, task['runs']):.3f}",
            ", ".join(flaky_rules(task)) or "-",
        )
        for task in worst_first(view.tasks)
    ]
    if rows:
        width = max(4, *(len(row[0]) for row in rows))
        head = ("task", "runs", "passed", "pass^1", "pass^n", "flaky rules (fired/runs)")
        for row in (head, *rows):
            lines.append(
                f"  {row[0]:<{width}}  {row[1]:>4}  {row[2]:>6}  {row[3]:>6}  {row[4]:>6}  {row[5]}"
            )
    return "\n".join(lines) + "\n\n"


def markdown_text(sections: Iterable[Section]) -> str:
    """A compact Markdown table, worst tasks first, at most MAX_MARKDOWN_TASKS rows, or ""."""
    view = tasks_view(sections)
    if view is None:
        return ""
    lines = [f"### Repeated runs: {headline(view)}", ""]
    ordered = worst_first(view.tasks)
    if ordered:
        lines += [
            "| task | runs | passed | pass^1 | pass^n | flaky rules (fired/runs) |",
            "|---|---:|---:|---:|---:|---|",
        ]
        for task in ordered[:MAX_MARKDOWN_TASKS]:
            flaky = flaky_rules(task)
            shown = ", ".join(flaky[:MAX_FLAKY_SHOWN])
            if len(flaky) > MAX_FLAKY_SHOWN:
                shown += f" and {len(flaky) - MAX_FLAKY_SHOWN} more"
            lines.append(
                f"| {md_code(task['task_id'], 100, in_table=True)} | {task['runs']} "
                f"| {task['passed']} | {_pass_hat(task, 1):.3f} "
                f"| {_pass_hat(task, task['runs']):.3f} | {shown or '-'} |"
            )
        if len(ordered) > MAX_MARKDOWN_TASKS:
            more = len(ordered) - MAX_MARKDOWN_TASKS
            lines += ["", f"_...and {more} more tasks (see the JSON report)._"]
    lines += ["", "pass^n: the chance that all n runs of the task pass (n = its runs).", ""]
    return "\n".join(lines) + "\n"


def suite_properties(task: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(name, value) properties of a task's JUnit testsuite."""
    props = [
        ("arh.task_id", str(task["task_id"])),
        ("arh.runs", str(task["runs"])),
        ("arh.passed", str(task["passed"])),
    ]
    props += [(f"arh.pass_hat_{k}", repr(float(v))) for k, v in task["pass_hat_k"].items()]
    props += [(f"arh.pass_at_{k}", repr(float(v))) for k, v in task["pass_at_k"].items()]
    return props


def suite_out(task: Mapping[str, Any]) -> str:
    """A task suite's system-out: one line per rule that fired in its runs."""
    lines = [
        f"{task['passed']} of {task['runs']} runs passed; "
        f"pass^1 {_pass_hat(task, 1):.6g}, pass^{task['runs']} {_pass_hat(task, task['runs']):.6g}"
    ]
    for rule in task["rules"]:
        low, high = rule["ci95"]
        tag = "flaky" if rule["flaky"] else "every run"
        lines.append(
            f"{rule['rule_id']}: fired in {rule['fired_runs']} of {task['runs']} runs "
            f"({tag}; rate {rule['rate']:.6g}, 95% interval {low:.6g}..{high:.6g})"
        )
    return "\n".join(lines)


def grouped(
    task_ids: Sequence[str | None], view: TasksView | None
) -> tuple[list[int], list[tuple[Mapping[str, Any], list[int]]]]:
    """Indices of the reports outside every task, and per task (by task_id) its row and
    the indices of its runs, in input order."""
    if view is None:
        return list(range(len(task_ids))), []
    rows = {task["task_id"]: task for task in view.tasks}
    runs: dict[str, list[int]] = {}
    loose: list[int] = []
    for index, task_id in enumerate(task_ids):
        if task_id is not None and task_id in rows:
            runs.setdefault(task_id, []).append(index)
        else:
            loose.append(index)
    return loose, [(rows[t], runs[t]) for t in sorted(runs)]
