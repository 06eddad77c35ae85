"""`--html-out` through the pipeline: each trace's part of the HTML report is rendered
in the worker that evaluated it (with its trajectory), handed back in input order and
spooled; the page is written atomically when the run ends. For `compare --policy`, the
candidate traces' embedded bodies are spooled the same way and the compare page is laid
out once the comparison is known.

A trace too big to hold (evaluated a chunk of steps at a time) gets the same bounded
timeline as when it is read whole: its steps are fitted to the embedding limits as they
stream by (render.html_report.StepFitter)."""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Iterator, Sequence
from typing import IO, TextIO

from ..compare import Comparison
from ..models.trace import Step, Trace
from ..render import Renderer, RenderOptions
from ..render.html_report import (
    EmbedLimits,
    HtmlCompareWriter,
    HtmlReportWriter,
    StepFitter,
    TraceFragment,
    compare_tables,
    run_fragment,
    run_tables,
    run_warnings,
    trace_body,
)
from .partial import Partial, RunResult
from .plan import Needs, PieceSpec, TraceView
from .sinks import Messages, OutputContext, write_output

HTML_PIECE = "html"
BODY_PIECE = "html-body"
# What one trace may add to the page (docs/html-report.md, "Large runs").
LIMITS = EmbedLimits()


def html_piece(limits: EmbedLimits, view: TraceView) -> str:
    """A validated trace's packed TraceFragment, with its trajectory."""
    return run_fragment(view.report, view.trace, limits).pack()


class _StreamedFragment:
    """A TraceFragment for a trace streamed a chunk of steps at a time."""

    def __init__(self, limits: EmbedLimits) -> None:
        self.limits = limits
        self.fitter = StepFitter(limits)

    def add(self, steps: Sequence[Step]) -> None:
        self.fitter.add(steps)

    def finish(self, view: TraceView, head: Trace) -> str:
        body = self.fitter.body(head)
        return run_fragment(view.report, head, self.limits, body).pack()


def body_piece(limits: EmbedLimits, view: TraceView) -> str:
    """A candidate trace's embedded body ("" when there is none)."""
    return "" if view.trace is None else trace_body(view.trace, limits)


class _StreamedBody(_StreamedFragment):
    def finish(self, view: TraceView, head: Trace) -> str:
        return self.fitter.body(head)


class HtmlRunSink:
    """`arh validate --html-out FILE`: the page of the run, trace bodies included; holds
    no trace (fragments are spooled to temporary files) and writes FILE atomically."""

    def __init__(
        self, target: str, context: OutputContext, limits: EmbedLimits | None = None
    ) -> None:
        self.target = target
        self.context = context
        limits = limits or LIMITS
        piece = PieceSpec(
            HTML_PIECE,
            functools.partial(html_piece, limits),
            functools.partial(_StreamedFragment, limits),
        )
        self.needs = Needs(pieces=(piece,))
        self.writer = HtmlReportWriter(None, "", context.options, limits)

    def add(self, partial: Partial) -> None:
        for text in partial.pieces[HTML_PIECE]:
            self.writer.add_fragment(TraceFragment.unpack(text))
        for failure in partial.failures:
            self.writer.add_failure(failure)

    def finish(self, result: RunResult) -> bool:
        pieces = self.writer.page(
            result.summary,
            (),
            run_tables(result.sections),
            policy_id=result.policy_id,
            warnings=run_warnings(result.sections),
        )
        return write_output(self.target, pieces, self.context.out, self.context.messages)


def html_sink(renderer: Renderer, target: str, context: OutputContext) -> HtmlRunSink:
    """The output factory of `--html-out` (sinks.register_output)."""
    return HtmlRunSink(target, context)


class TraceBodies:
    """The candidate traces' embedded bodies, spooled to a temporary file as they come,
    looked up by (trace id, policy id) once the comparison is known (memory: one offset
    per trace). The policy is part of the key because compare matches per policy when a
    run was judged by several, and one trace_id may then be two traces."""

    def __init__(self, limits: EmbedLimits | None = None) -> None:
        self.limits = limits or LIMITS
        piece = PieceSpec(
            BODY_PIECE,
            functools.partial(body_piece, self.limits),
            functools.partial(_StreamedBody, self.limits),
        )
        self.needs = Needs(pieces=(piece,), keep_reports=True)
        self.file: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
        self.where: dict[tuple[str, str], tuple[int, int]] = {}

    def add(self, partial: Partial) -> None:
        for report, body in zip(partial.reports, partial.pieces[BODY_PIECE], strict=True):
            if not body:
                continue
            data = body.encode("utf-8")
            self.where[report.trace_id, report.policy_id] = (self.file.tell(), len(data))
            self.file.write(data)

    def finish(self, result: RunResult) -> bool:
        return True

    def get(self, trace_id: str, policy_id: str) -> str | None:
        """The body of the candidate trace `trace_id` judged by `policy_id` (None: not
        embedded)."""
        found = self.where.get((trace_id, policy_id))
        if found is None:
            return None
        self.file.seek(found[0])
        return self.file.read(found[1]).decode("utf-8")

    def close(self) -> None:
        self.file.close()


def compare_pieces(
    comparison: Comparison, bodies: TraceBodies, options: RenderOptions
) -> Iterator[str]:
    """The compare page with the candidate's trajectories, in pieces."""
    writer = HtmlCompareWriter(None, options, bodies.limits)
    for item in comparison.traces:
        candidate = item.candidate
        body = None if candidate is None else bodies.get(item.trace_id, candidate.policy_id)
        writer.add(item, None, body)
    return writer.page(
        comparison.gate,
        comparison.baseline,
        comparison.candidate,
        comparison.summary_dict(),
        compare_tables(comparison),
        warnings=run_warnings(comparison.candidate_sections),
    )


def write_compare_html(
    comparison: Comparison,
    bodies: TraceBodies,
    target: str,
    options: RenderOptions,
    *,
    out: TextIO,
    messages: Messages,
) -> bool:
    """Write the compare page to `target` (atomically; `-`: `out`)."""
    return write_output(target, compare_pieces(comparison, bodies, options), out, messages)
