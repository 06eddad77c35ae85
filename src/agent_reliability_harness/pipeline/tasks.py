"""The `tasks` run section (policy v1.1 section 7): per-task counts gathered trace by
trace in the workers, merged in input order, and turned into the section at the end.

Registered for every run; it says nothing (the report keeps its v1 bytes) unless some
task has two or more runs, or the run asked for it (`--repeated`, FORCED_TASKS).
"""

from __future__ import annotations

import functools

from ..models.report import Section
from ..stats import TaskTally, any_repeated, summarize
from .plan import Accumulator, SectionSpec, TraceView, register_section

KEY = "tasks"


class TaskAccumulator:
    """Runs, passed runs and fired rules per task_id; traces without one are not counted.
    Memory: one counter per task and per (task, fired rule)."""

    def __init__(self, forced: bool = False) -> None:
        self.forced = forced
        self.tally = TaskTally()

    def add(self, view: TraceView) -> None:
        report = view.report
        if report.task_id is None:
            return
        fired = [f.rule_id for f in report.findings if f.rule_id]
        self.tally.add(report.task_id, report.passed, fired)

    def merge(self, later: Accumulator) -> None:
        assert isinstance(later, TaskAccumulator)
        self.tally.merge(later.tally)

    def finish(self) -> Section | None:
        stats = self.tally.stats()
        if not (self.forced or any_repeated(stats)):
            return None
        summary = summarize(stats).to_json()
        return Section(KEY, [task.to_json() for task in stats], tuple(summary.items()))


TASKS = SectionSpec(KEY, TaskAccumulator)
# `--repeated`: the section even when every task has one run (or there is no task).
FORCED_TASKS = SectionSpec(KEY, functools.partial(TaskAccumulator, True))

register_section(TASKS)
