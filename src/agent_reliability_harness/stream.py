"""Streaming evaluation: raw input units in, compact per-trace Outcomes out, in input order.

An Outcome holds what the streaming outputs need (JSON and console text, summary
counts) and, only when a whole-run renderer asked for it, the TraceReport itself.
The same code runs in-process and in worker processes, so `--jobs` cannot change
a byte of output.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

# The api's own per-document steps, so any hook added there (e.g. step positions)
# applies to streamed and parallel runs too.
from .api import _document_traces, evaluate_stream
from .engine import Evaluator
from .io import Failure, RawUnit, decode_unit
from .models.report import InputFailure, SummaryBuilder, TraceReport
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


@dataclass(frozen=True, slots=True)
class Outcome:
    """One trace's result (or one input failure), reduced to what the sinks need."""

    size: int  # input bytes this outcome accounts for (progress); 0 after the first of a unit
    failure: InputFailure | None = None
    passed: bool = False
    score: float = 0.0
    severities: dict[str, int] | None = None
    categories: dict[str, int] | None = None
    json_text: str | None = None
    console_text: str | None = None
    report: TraceReport | None = None


def encode(report: TraceReport, options: EncodeOptions, size: int = 0) -> Outcome:
    """The Outcome of one evaluated trace."""
    severities: dict[str, int] = {}
    categories: dict[str, int] = {}
    for finding in report.findings:
        severity = finding.severity.value
        severities[severity] = severities.get(severity, 0) + 1
        categories[finding.category] = categories.get(finding.category, 0) + 1
    return Outcome(
        size=size,
        passed=report.passed,
        score=report.score,
        severities=severities,
        categories=categories,
        json_text=json_stream.report_fragment(report) if options.json else None,
        console_text=trace_text(report, options.render) if options.console else None,
        report=report if options.keep_reports else None,
    )


class UnitProcessor:
    """Decode, adapt, parse, evaluate and encode input units; one per process."""

    def __init__(self, evaluator: Evaluator, fmt: str, options: EncodeOptions) -> None:
        self.evaluator = evaluator
        self.fmt = fmt
        self.options = options

    def process(self, unit: RawUnit | Failure) -> list[Outcome]:
        if isinstance(unit, Failure):
            return [Outcome(0, InputFailure(unit.source_path, unit.message, line=unit.line))]
        size = unit.size
        document = decode_unit(unit)
        if isinstance(document, Failure):
            failure = InputFailure(document.source_path, document.message, line=document.line)
            return [Outcome(size, failure)]
        outcomes: list[Outcome] = []
        traces = _document_traces(document, self.fmt)
        for item in evaluate_stream(traces, self.evaluator):
            if isinstance(item, InputFailure):
                outcomes.append(Outcome(size, item))
            else:
                outcomes.append(encode(item, self.options, size))
            size = 0
        if not outcomes and size:
            outcomes.append(Outcome(size, None))  # an empty array: nothing but progress
        return outcomes

    def process_all(self, units: Iterable[RawUnit | Failure]) -> list[Outcome]:
        out: list[Outcome] = []
        for unit in units:
            out.extend(self.process(unit))
        return out


class Totals:
    """The run's summary, built as outcomes arrive (input order, so scores sum identically)."""

    def __init__(self) -> None:
        self.builder = SummaryBuilder()
        self.failures = 0

    def add(self, outcome: Outcome) -> None:
        if outcome.failure is not None:
            self.failures += 1
        elif outcome.severities is not None and outcome.categories is not None:
            self.builder.add_totals(
                outcome.passed, outcome.score, outcome.severities, outcome.categories
            )


def in_process(units: Iterable[RawUnit | Failure], processor: UnitProcessor) -> Iterator[Outcome]:
    """Outcomes of every unit, evaluated in this process."""
    for unit in units:
        yield from processor.process(unit)


__all__ = ["EncodeOptions", "Outcome", "Totals", "UnitProcessor", "encode", "in_process"]
