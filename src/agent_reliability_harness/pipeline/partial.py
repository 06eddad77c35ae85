"""Partials (the results of consecutive input units, as a worker sends them back) and the
one function that merges them, in input order, into the run's result and its sinks."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol, cast

import msgspec

from ..models.report import InputFailure, Section, Summary, SummaryBuilder, TraceReport
from ..models.trace import Trace
from .folding import PartialFolder
from .plan import Accumulator, Needs, Summarised, TraceView, WorkPlan


@dataclass(slots=True)
class Partial:
    """What the sinks need of consecutive input units: summary counts and each trace's
    score in input order (summed in that order, so the average is the same float
    whichever executor ran them), input failures, the pieces and section states the
    plan asked for, and the TraceReports only when a sink keeps them."""

    size: int = 0  # input bytes read (for progress)
    passed: int = 0
    scores: list[float] = field(default_factory=list)
    severities: dict[str, int] = field(default_factory=dict)
    categories: dict[str, int] = field(default_factory=dict)
    failures: list[InputFailure] = field(default_factory=list)
    reports: list[TraceReport] = field(default_factory=list)
    pieces: dict[str, list[str]] = field(default_factory=dict)
    sections: dict[str, Accumulator] = field(default_factory=dict)
    cached: int = 0  # traces whose results came from the cache (--cache)
    stored: int = 0  # bytes of cache entries written

    @property
    def traces(self) -> int:
        return len(self.scores)


class Tally(msgspec.Struct, array_like=True, gc=False):
    """What a run's summary counts of one trace: kept in a cache entry, so that a hit
    counts the trace without decoding its report."""

    passed: bool
    score: float
    severities: dict[str, int]  # findings by severity, in the order they first occur
    categories: dict[str, int]  # and by category

    @classmethod
    def of(cls, report: TraceReport) -> Tally:
        severities: dict[str, int] = {}
        categories: dict[str, int] = {}
        _count(report, severities, categories)
        return cls(report.passed, report.score, severities, categories)


def _count(report: TraceReport, severities: dict[str, int], categories: dict[str, int]) -> None:
    for finding in report.findings:
        severity = finding.severity.value
        severities[severity] = severities.get(severity, 0) + 1
        categories[finding.category] = categories.get(finding.category, 0) + 1


class PartialBuilder:
    """Builds one Partial from reports and failures as they come (in a worker)."""

    def __init__(self, plan: WorkPlan) -> None:
        needs = plan.needs
        self.partial = Partial(
            pieces={spec.name: [] for spec in needs.pieces},
            sections={spec.key: spec.factory() for spec in needs.sections},
        )
        self._pieces = tuple(
            (spec.name, spec.encode, self.partial.pieces[spec.name]) for spec in needs.pieces
        )
        self._states = tuple(self.partial.sections.items())
        self._keys = tuple(self.partial.sections)
        self._keep = needs.keep_reports
        self._views = bool(self._pieces or self._states)

    def add(
        self,
        report: TraceReport,
        trace: Trace | None,
        texts: Mapping[str, str] | None = None,
        summaries: Mapping[str, bytes] | None = None,
    ) -> None:
        """One evaluated trace; `texts` are pieces already made (by StepConsumers, for a
        trace streamed a chunk at a time), by piece name; `summaries` what the trace adds
        to sections that read it (SectionSpec.summarise, from a cache entry), by key."""
        partial = self.partial
        partial.passed += report.passed
        partial.scores.append(report.score)
        _count(report, partial.severities, partial.categories)
        if self._keep:
            partial.reports.append(report)
        if self._views:
            view = TraceView(report, trace)
            for name, encode, pieces in self._pieces:
                made = texts.get(name) if texts else None
                pieces.append(encode(view) if made is None else made)
            for key, state in self._states:
                summary = summaries.get(key) if summaries else None
                if summary is None:
                    state.add(view)
                else:
                    cast(Summarised, state).add_summary(summary)

    def tallied(self, sections: list[str]) -> bool:
        """Whether `add_tallied` can take a cached trace whose entry keeps summaries for
        `sections`: no sink keeps reports, and these are every section, in order."""
        return not self._keep and self._keys == tuple(sections)

    def add_tallied(self, tally: Tally, texts: Sequence[str], summaries: Sequence[bytes]) -> None:
        """A trace from a cache entry: counted from its tally, with its pieces (one per
        piece, in the plan's order) and its sections' summaries (`tallied`), its report
        not decoded."""
        partial = self.partial
        partial.passed += tally.passed
        partial.scores.append(tally.score)
        severities, categories = partial.severities, partial.categories
        for key, count in tally.severities.items():
            severities[key] = severities.get(key, 0) + count
        for key, count in tally.categories.items():
            categories[key] = categories.get(key, 0) + count
        for (_, _, pieces), text in zip(self._pieces, texts, strict=True):
            pieces.append(text)
        for (_, state), summary in zip(self._states, summaries, strict=True):
            cast(Summarised, state).add_summary(summary)

    def fail(self, failure: InputFailure) -> None:
        self.partial.failures.append(failure)


@dataclass(frozen=True, slots=True)
class RunResult:
    """A finished run: its summary, how many inputs could not be read, its sections, and
    whether every sink wrote its output. `passed` is the exit decision."""

    policy_id: str
    summary: Summary
    input_errors: int
    sections: tuple[Section, ...] = ()
    written: bool = True
    # The plugins the run's policies name (their rules join the SARIF rule catalogue).
    plugins: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """No trace at all, and no input error to explain why."""
        return self.summary.total_traces == 0 and self.input_errors == 0

    def passed(self, allow_empty: bool = False) -> bool:
        """Every trace passed, every input was read and every output written; a run with
        no trace at all passes only when that is allowed."""
        if self.empty and not allow_empty:
            return False
        return not self.input_errors and self.summary.failed_traces == 0 and self.written


class Sink(Protocol):
    """Takes each Partial as it arrives (in input order), then the run's result. Streaming
    sinks (console, JSON report, error lines) write as they go, so memory stays flat in
    the number of traces; `needs` says what the workers must produce for it."""

    needs: Needs

    def add(self, partial: Partial) -> None: ...

    def finish(self, result: RunResult) -> bool:
        """Complete the output; False when it could not be written."""
        ...


def merge(
    partials: Iterable[Partial],
    sinks: Sequence[Sink] = (),
    policy_id: str = "",
    sections: Sequence[Section] = (),
    plugins: tuple[str, ...] = (),
) -> RunResult:
    """THE merge: partials in input order -> the run's summary and sections, each partial
    handed to every sink as it comes; then each sink finishes. Reports are byte-identical
    whichever executor produced the partials, because this is the only place they meet.
    `sections` are given ones (known before the run, such as policy warnings); they come
    before those the accumulators build."""
    summary = SummaryBuilder()
    failures = 0
    states: dict[str, Accumulator] = {}
    folder = PartialFolder()
    for partial in _folded(partials, folder):
        failures += len(partial.failures)
        summary.add_many(partial.passed, partial.scores, partial.severities, partial.categories)
        for key, state in partial.sections.items():
            if key in states:
                states[key].merge(state)
            else:
                states[key] = state
        for sink in sinks:
            sink.add(partial)
    built = (state.finish() for state in states.values())
    result = RunResult(
        policy_id,
        summary.build(),
        failures,
        (*sections, *(section for section in built if section is not None)),
        plugins=plugins,
    )
    written = True
    for sink in sinks:
        written &= sink.finish(result)
    return replace(result, written=written)


def _folded(partials: Iterable[Partial], folder: PartialFolder) -> Iterator[Partial]:
    """The partials, each JSONL file's identical line failures folded into one."""
    for partial in partials:
        yield from folder.add(partial)
    yield from folder.finish()
