"""The two passes of `arh infer` as pipeline accumulators: `Learner` gathers RunStats from
the good runs (every executor gives the same result: states merge in input order), and
`Checker` counts how the inferred policy judges the good runs and the others."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from ..models.common import Severity
from ..models.report import Section
from ..pipeline import Accumulator, Needs, Partial, RunResult, SectionSpec, TraceView
from .good import Selection
from .learn import RunStats

LEARN_KEY = "arh-infer-learn"
CHECK_KEY = "arh-infer-check"
MAX_LISTED = 20  # good runs the policy fails, listed by id (the rest are counted)


class Learner:
    """Per bucket (good, or "maybe": no outcome, good only if no run has one) what the
    runs showed; plus how many runs there were and why some were not learned from."""

    def __init__(self, selection: Selection, trajectories: bool = False) -> None:
        self.selection = selection
        self.good = RunStats(tasks={} if trajectories else None)
        self.maybe = RunStats(tasks={} if trajectories else None)
        self.runs = 0
        self.with_outcome = 0
        self.too_big = {"good": 0, "maybe": 0}

    def add(self, view: TraceView) -> None:
        self.runs += 1
        outcome = view.report.outcome
        self.with_outcome += outcome is not None
        bucket = self.selection.bucket(outcome)
        if bucket is None:
            return
        if view.trace is None:  # read a chunk of steps at a time: no steps to learn from
            self.too_big[bucket] += 1
            return
        (self.good if bucket == "good" else self.maybe).add(view.trace, view.report)

    def merge(self, later: Accumulator) -> None:
        assert isinstance(later, Learner)
        self.good.merge(later.good)
        self.maybe.merge(later.maybe)
        self.runs += later.runs
        self.with_outcome += later.with_outcome
        for bucket, count in later.too_big.items():
            self.too_big[bucket] += count

    def finish(self) -> Section | None:
        return Section(LEARN_KEY, self)

    @property
    def any_outcome(self) -> bool:
        return self.with_outcome > 0

    @property
    def learned(self) -> RunStats:
        """The runs learned from: the "maybe" ones only when no run has an outcome."""
        return self.good if self.any_outcome or self.good.runs else self.maybe

    @property
    def skipped(self) -> int:
        """Good runs too big to learn from."""
        return self.too_big["good"] + (0 if self.any_outcome else self.too_big["maybe"])


@dataclass(slots=True)
class Checker:
    """How the inferred policy judged the runs: good ones that fail it (it should be
    none), and the others it flags, with the rules that fired in them."""

    selection: Selection
    any_outcome: bool
    good: int = 0
    good_failed: int = 0
    failed_ids: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    others: int = 0
    flagged: int = 0
    rules: dict[str, int] = field(default_factory=dict)  # rule -> flagged runs it fired in

    def add(self, view: TraceView) -> None:
        report = view.report
        errors = tuple(
            sorted(
                {f.rule_id or f.category for f in report.findings if f.severity is Severity.ERROR}
            )
        )
        if self.selection.good(report.outcome, self.any_outcome):
            self.good += 1
            if not report.passed:
                self.good_failed += 1
                if len(self.failed_ids) < MAX_LISTED:
                    self.failed_ids.append((report.trace_id, errors))
            return
        self.others += 1
        if not report.passed:
            self.flagged += 1
            for rule in errors:
                self.rules[rule] = self.rules.get(rule, 0) + 1

    def merge(self, later: Accumulator) -> None:
        assert isinstance(later, Checker)
        self.good += later.good
        self.good_failed += later.good_failed
        room = MAX_LISTED - len(self.failed_ids)
        self.failed_ids.extend(later.failed_ids[: max(room, 0)])
        self.others += later.others
        self.flagged += later.flagged
        for rule, count in later.rules.items():
            self.rules[rule] = self.rules.get(rule, 0) + count

    def finish(self) -> Section | None:
        return Section(CHECK_KEY, self)


class SectionSink:
    """A sink that only asks the workers for one accumulator and keeps what it built."""

    def __init__(self, spec: SectionSpec) -> None:
        self.needs = Needs(sections=(spec,))
        self.key = spec.key
        self.value: object = None

    def add(self, partial: Partial) -> None:
        return None

    def finish(self, result: RunResult) -> bool:
        self.value = next((s.value for s in result.sections if s.key == self.key), None)
        return True


def learn_sink(selection: Selection, trajectories: bool) -> SectionSink:
    return SectionSink(SectionSpec(LEARN_KEY, functools.partial(Learner, selection, trajectories)))


def check_sink(selection: Selection, any_outcome: bool) -> SectionSink:
    return SectionSink(SectionSpec(CHECK_KEY, functools.partial(Checker, selection, any_outcome)))
