"""Which task a run attempts (policy v1.1 section 7): the trace's own `task_id` (a field
or an adapter's label), or the one group of `--task-id-from REGEX` searched in its
trace_id, which wins wherever it matches (the user asked for it by name)."""

from __future__ import annotations

from typing import Any

import msgspec

from ..patterns import check_pattern
from .report import RunReport, TraceReport
from .trace import Trace


class Capture:
    """A case-sensitive RE2 search whose one capturing group is the answer; ValueError
    when the pattern does not compile or has another number of groups."""

    __slots__ = ("_regex", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._regex: Any = check_pattern(pattern, case_sensitive=True)
        if self._regex.groups != 1:
            groups = self._regex.groups
            raise ValueError(f"must have exactly one capturing group (it has {groups})")

    def capture(self, text: str) -> str | None:
        """The group's text at the first match; None without a match or when it is empty."""
        match = self._regex.search(text)
        return (match.group(1) or None) if match is not None else None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Capture) and other.pattern == self.pattern

    def __hash__(self) -> int:
        return hash(self.pattern)

    def __reduce__(self) -> tuple[type[Capture], tuple[str]]:
        # Compiled RE2 objects cannot be pickled: workers compile the pattern again.
        return (Capture, (self.pattern,))


class TaskIds(msgspec.Struct, frozen=True):
    """`--task-id-from REGEX`: RE2, case-sensitive search in the trace_id; the text of
    its one capturing group (non-empty) is the task id. Picklable (workers apply it)."""

    capture: Capture

    @classmethod
    def parse(cls, pattern: str) -> TaskIds:
        """ValueError (RE2's reason, or the group count) when the pattern is unusable."""
        return cls(Capture(pattern))

    @property
    def pattern(self) -> str:
        return self.capture.pattern

    def task_of(self, trace_id: str, own: str | None) -> str | None:
        """The task of a run with this trace_id whose own task id is `own`."""
        found = self.capture.capture(trace_id)
        return own if found is None else found

    def trace(self, trace: Trace) -> Trace:
        """The trace with its task id set (the same object when nothing changes)."""
        task = self.task_of(trace.trace_id, trace.task_id)
        return trace if task == trace.task_id else msgspec.structs.replace(trace, task_id=task)

    def report(self, report: TraceReport) -> TraceReport:
        task = self.task_of(report.trace_id, report.task_id)
        return report if task == report.task_id else msgspec.structs.replace(report, task_id=task)

    def run(self, run: RunReport) -> RunReport:
        """A report read back (a baseline) with the task ids of its traces set."""
        reports = tuple(self.report(r) for r in run.reports)
        return msgspec.structs.replace(run, reports=reports)


def task_ids(pattern: str | None) -> TaskIds | None:
    """`--task-id-from` as given (None: not given)."""
    return None if pattern is None else TaskIds.parse(pattern)
