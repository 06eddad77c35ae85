"""Streaming evaluation: raw input units in, Batches of rendered results out, in input order.

The same code runs in-process and in `--jobs` workers (one Batch per chunk), so output
cannot depend on --jobs."""

from __future__ import annotations

import contextlib
import gc
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import re2

# The api's own per-document steps, so any hook added there (e.g. step positions)
# applies to streamed and parallel runs too.
from . import adapters
from .api import _document_traces, coalesce_exports, evaluate_stream
from .engine import Evaluator
from .io import Failure, LineRange, RawUnit, decode_unit, read_line_range, start_line
from .models.report import InputFailure, SummaryBuilder, TraceReport
from .models.trace import decode_trace_json
from .models.trace_stream import StreamDeclined, TraceStream
from .render import json_stream
from .render.base import RenderOptions
from .render.console import trace_text


@dataclass(frozen=True, slots=True)
class EncodeOptions:
    """Which per-trace pieces to produce."""

    json: bool = False
    console: bool = False
    keep_reports: bool = False
    render: RenderOptions = field(default_factory=RenderOptions)


@dataclass(slots=True)
class Batch:
    """The results of consecutive input units, reduced to what the sinks need: JSON and
    console text already rendered, input failures, summary counts and the scores in
    input order (summed in that order, so the average is the same float); the
    TraceReports only when a whole-run renderer asked for them."""

    size: int = 0  # input bytes covered (for progress)
    passed: int = 0
    scores: list[float] = field(default_factory=list)  # one per trace, in input order
    severities: dict[str, int] = field(default_factory=dict)
    categories: dict[str, int] = field(default_factory=dict)
    json_text: str = ""  # report fragments joined by ",\n"
    console_text: str = ""
    failures: list[InputFailure] = field(default_factory=list)
    reports: list[TraceReport] = field(default_factory=list)

    @property
    def traces(self) -> int:
        return len(self.scores)


class _BatchBuilder:
    def __init__(self, options: EncodeOptions) -> None:
        self.options = options
        self.batch = Batch()
        self.json_parts: list[str] = []
        self.console_parts: list[str] = []

    def add(self, report: TraceReport) -> None:
        batch, options = self.batch, self.options
        batch.passed += report.passed
        batch.scores.append(report.score)
        severities, categories = batch.severities, batch.categories
        for finding in report.findings:
            severity = finding.severity.value
            severities[severity] = severities.get(severity, 0) + 1
            categories[finding.category] = categories.get(finding.category, 0) + 1
        if options.json:
            self.json_parts.append(json_stream.report_fragment(report))
        if options.console:
            self.console_parts.append(trace_text(report, options.render))
        if options.keep_reports:
            batch.reports.append(report)

    def build(self) -> Batch:
        self.batch.json_text = ",\n".join(self.json_parts)
        self.batch.console_text = "".join(self.console_parts)
        return self.batch


class UnitProcessor:
    """Decode, adapt, parse, evaluate and render input units; one per process."""

    def __init__(
        self,
        evaluator: Evaluator,
        fmt: str,
        options: EncodeOptions,
        identity: adapters.Identity | None = None,
        with_positions: bool = False,
    ) -> None:
        self.evaluator = evaluator
        self.fmt = fmt
        self.options = options
        self.identity = identity
        self.with_positions = with_positions
        # Canonical JSONL lines may skip the dict stage (models.trace.decode_trace_json)
        # when nothing about the run needs the decoded document itself.
        self.direct = fmt in (adapters.AUTO, "arh") and identity is None and not with_positions

    def process_all(self, units: Iterable[RawUnit | LineRange | Failure]) -> Batch:
        """One Batch for a run of consecutive units."""
        builder = _BatchBuilder(self.options)
        with _no_cyclic_gc():
            for unit in units:
                self._process(unit, builder)
        return builder.build()

    def _process(self, unit: RawUnit | LineRange | Failure, builder: _BatchBuilder) -> None:
        batch = builder.batch
        if isinstance(unit, LineRange):
            # Cut where group_export_lines would not join lines, so grouping here is the same.
            for part in group_export_lines(read_line_range(unit)):
                self._process(part, builder)
            return
        if isinstance(unit, Failure):
            batch.failures.append(InputFailure(unit.source_path, unit.message, line=unit.line))
            return
        batch.size += unit.size
        if self.direct and not unit.lines:
            left = self._direct(unit, builder)
            if left is None:
                return
            unit = left
        documents = decode_unit(unit, self.with_positions, adapters.FILE_READERS)
        for document in coalesce_exports(documents):
            if isinstance(document, Failure):
                failure = InputFailure(document.source_path, document.message, line=document.line)
                batch.failures.append(failure)
                continue
            traces = _document_traces(document, self.fmt, self.identity)
            for item in evaluate_stream(traces, self.evaluator):
                if isinstance(item, InputFailure):
                    batch.failures.append(item)
                else:
                    builder.add(item)

    def _direct(self, unit: RawUnit, builder: _BatchBuilder) -> RawUnit | None:
        """Evaluate a unit that holds one canonical trace without building its dicts (None:
        done), or give the unit back (its bytes read, if it was a file) for the general path.

        Only the canonical top-level keys are accepted (`decode_trace_json`), so no span
        export or Agents SDK payload can take this path: detection could only pick "arh".
        """
        data = unit.data
        if data is None:
            if unit.path is None or unit.path.suffix in adapters.FILE_READERS:
                return unit
            report = self._streamed(unit)
            if report is not None:
                builder.add(report)
                return None
            try:
                data = unit.path.read_bytes()
            except OSError:
                return unit  # the general path reports it
            unit = RawUnit(unit.source_path, data, unit.line, unit.path)
        trace = decode_trace_json(data)
        if trace is None:
            return unit
        source, line = unit.source_path, unit.line
        if line is None:
            line = start_line(data)
        del data, unit  # a big file's bytes are not needed while its trace is evaluated
        builder.add(self.evaluator.evaluate(trace, source, line))
        return None

    def _streamed(self, unit: RawUnit) -> TraceReport | None:
        """The report of a big file holding one canonical trace, read and evaluated a
        chunk of steps at a time (memory stays bounded by the chunk, not the file), or
        None to read it whole: it is small, or the stream declined (the whole-file path
        then gives the same report or the exact error)."""
        assert unit.path is not None
        try:
            if unit.path.stat().st_size < STREAM_MIN_BYTES:
                return None
            with unit.path.open("rb") as handle:
                stream = TraceStream(handle)
                run = self.evaluator.start()
                for steps in stream.chunks():
                    run.add(steps)
                head, line = stream.head, stream.start_line
        except (StreamDeclined, OSError):
            return None
        return run.finish(head, unit.source_path, line)


# Canonical trace files from this size up are read a chunk of steps at a time. Below it,
# reading the file whole is as fast and the trace is small enough to hold.
STREAM_MIN_BYTES = 8 << 20


@contextlib.contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Pause the cycle collector while a chunk of units is processed.

    Everything built here is acyclic (decoded JSON, frozen dataclasses) and freed by
    reference counting; the collector would only rescan the live objects of a big
    trace again and again (a 1M-step trace: 22 s of CPU instead of 12). It runs as
    usual between chunks, so cyclic garbage cannot pile up over a long run.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class Totals:
    """The run's summary, built as batches arrive (input order, so scores sum identically)."""

    def __init__(self) -> None:
        self.builder = SummaryBuilder()
        self.failures = 0

    def add(self, batch: Batch) -> None:
        self.failures += len(batch.failures)
        self.builder.add_many(batch.passed, batch.scores, batch.severities, batch.categories)


# Any of adapters.EXPORT_MARKERS, found in one RE2 scan (~2x faster than three substring
# searches for needles that start with a quote, the commonest byte of JSON).
_MARKERS = re2.compile(b"|".join(re.escape(marker) for marker in adapters.EXPORT_MARKERS))


def _exportish(data: bytes) -> bool:
    return _MARKERS.search(data) is not None


def export_lines_joined(before: bytes, after: bytes) -> bool:
    """Whether group_export_lines keeps these two consecutive JSONL lines in one unit."""
    return _exportish(before) and _exportish(after)


def group_export_lines(
    units: Iterable[RawUnit | LineRange | Failure],
) -> Iterator[RawUnit | LineRange | Failure]:
    """Keep consecutive JSONL lines of one file that may be span-export batches in one unit,
    so `coalesce_exports` can join a trace split across batches, whatever --jobs is.

    The byte test may over-include (coalescing passes other documents through unchanged);
    it only decides how units are cut, so output never depends on it."""
    group: list[RawUnit] = []

    def flush() -> Iterator[RawUnit]:
        if len(group) == 1:
            yield group[0]
        elif group:
            first = group[0]
            lines = tuple((u.line or 0, u.data or b"") for u in group)
            yield RawUnit(first.source_path, None, path=first.path, lines=lines)
        group.clear()

    for unit in units:
        exportish = (
            isinstance(unit, RawUnit)
            and unit.line is not None
            and unit.data is not None
            and _exportish(unit.data)
        )
        if group and (not exportish or unit.source_path != group[0].source_path):
            yield from flush()
        if exportish:
            assert isinstance(unit, RawUnit)
            group.append(unit)
        else:
            yield unit
    yield from flush()


def in_process(units: Iterable[RawUnit | Failure], processor: UnitProcessor) -> Iterator[Batch]:
    """Batches of every unit, evaluated in this process, one unit at a time."""
    for unit in units:
        yield processor.process_all((unit,))


__all__ = [
    "Batch",
    "EncodeOptions",
    "Totals",
    "UnitProcessor",
    "export_lines_joined",
    "group_export_lines",
    "in_process",
]
