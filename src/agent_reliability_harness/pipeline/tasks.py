"""The `tasks` run section (policy v1.1 section 7): per-task counts gathered trace by
trace in the workers, merged in input order, and turned into the section at the end.

Registered for every run; it says nothing (the report keeps its v1 bytes) unless some
task has two or more runs, or the run asked for it (`--repeated`, FORCED_TASKS).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import msgspec

from ..models.report import Section
from .plan import Accumulator, SectionSpec, TraceView, register_section

if TYPE_CHECKING:
    from ..stats import TaskTally

KEY = "tasks"


class TaskAccumulator:
    """Runs, passed runs and fired rules per task_id; traces without one are not counted.
    Memory: one counter per task and per (task, fired rule). The tally (and stats/) is
    made on the first task_id: a run without any imports none of it."""

    def __init__(self, forced: bool = False) -> None:
        self.forced = forced
        self.tally: TaskTally | None = None

    def _tally(self) -> TaskTally:
        if self.tally is None:
            from ..stats import TaskTally  # noqa: PLC0415

            self.tally = TaskTally()
        return self.tally

    def add(self, view: TraceView) -> None:
        report = view.report
        if report.task_id is None:
            return
        fired = [f.rule_id for f in report.findings if f.rule_id]
        self._tally().add(report.task_id, report.passed, fired)

    def add_summary(self, data: bytes) -> None:
        """A trace as its `summarise` bytes (from a cache entry)."""
        if data:
            task_id, passed, fired = _SUMMARY.decode(data)
            self._tally().add(task_id, passed, fired)

    def merge(self, later: Accumulator) -> None:
        assert isinstance(later, TaskAccumulator)
        if later.tally is not None:
            self._tally().merge(later.tally)

    def finish(self) -> Section | None:
        if self.tally is None and not self.forced:
            return None  # no task_id seen: no task has two runs
        from ..stats import any_repeated, summarize  # noqa: PLC0415

        stats = self._tally().stats()
        if not (self.forced or any_repeated(stats)):
            return None
        summary = summarize(stats).to_json()
        return Section(KEY, [task.to_json() for task in stats], tuple(summary.items()))


_SUMMARY = msgspec.msgpack.Decoder(tuple[str, bool, list[str]])


def summarise(view: TraceView) -> bytes:
    """SectionSpec.summarise: what a trace adds to the section (b"" for a trace without a
    task_id), so that a cached trace is counted without decoding its report."""
    report = view.report
    if report.task_id is None:
        return b""
    fired = [f.rule_id for f in report.findings if f.rule_id]
    return msgspec.msgpack.encode((report.task_id, report.passed, fired))


TASKS = SectionSpec(KEY, TaskAccumulator, report_only=True, summarise=summarise)
# `--repeated`: the section even when every task has one run (or there is no task).
FORCED_TASKS = SectionSpec(
    KEY, functools.partial(TaskAccumulator, True), report_only=True, summarise=summarise
)

register_section(TASKS)
