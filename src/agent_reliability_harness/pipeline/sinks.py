"""Where a run's results go: streaming sinks (error lines, console, JSON report) and
whole-run renderers side by side, each fed Partials in input order by `merge`.

A file output is a sink made by the factory registered for its format (`register_output`);
formats without one are rendered whole from the collected run (RenderSink)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, TextIO

from ..atomic import STDOUT, Spool, write_atomic
from ..models.report import InputFailure, RunReport, TraceReport
from ..render import Renderer, RenderOptions
from ..render.console import summary_text, trace_text, unmapped_items
from ..render.json_ import array_text, failure_element, report_element, run_pieces
from ..render.tasks import console_text as tasks_text
from .partial import Partial, RunResult, Sink
from .plan import Needs, PieceSpec, TraceView


class Messages(Protocol):
    """Where `error: ...` and `warning: ...` lines go (the CLI's stderr)."""

    def error(self, message: str) -> None: ...

    def warn(self, message: str) -> None: ...


def _nothing() -> None:
    return None


def json_piece(view: TraceView) -> str:
    """A trace's element of the JSON report's "reports" array."""
    return report_element(view.report)


def console_piece(options: RenderOptions, view: TraceView) -> str:
    """A trace's block of console text."""
    return trace_text(view.report, options)


JSON_PIECE = PieceSpec("json", json_piece, report_only=True)


def console_spec(options: RenderOptions) -> PieceSpec:
    name = f"console:{options.show}" + ("+color" if options.color else "")
    return PieceSpec(name, functools.partial(console_piece, options), report_only=True)


def unmapped_piece(view: TraceView) -> str:
    """How many of the trace's transcript items were not mapped ("" for none)."""
    count = unmapped_items(view.report)
    return str(count) if count else ""


UNMAPPED_PIECE = PieceSpec("unmapped", unmapped_piece, report_only=True)


class ErrorSink:
    """`error: <where>: <what>` for each unreadable input, in input order; at the end, what
    an empty run means (an error unless an empty run is allowed)."""

    needs = Needs()

    def __init__(
        self,
        messages: Messages,
        allow_empty: bool = False,
        clear: Callable[[], None] = _nothing,
        empty_warning: str = "no traces found in the given paths",
    ) -> None:
        self.messages = messages
        self.allow_empty = allow_empty
        self.clear = clear
        self.empty_warning = empty_warning

    def add(self, partial: Partial) -> None:
        if partial.failures:
            self.clear()
        for failure in partial.failures:
            self.messages.error(f"{failure.location()}: {failure.message}")

    def finish(self, result: RunResult) -> bool:
        if result.empty:
            self.clear()
            if self.allow_empty:
                self.messages.warn(self.empty_warning)
            else:
                self.messages.error(
                    "no traces found in the given paths (an empty run fails; "
                    "pass --allow-empty to accept one)"
                )
        return True


class ConsoleSink:
    """Human text, one block per trace as it arrives, then the summary line.
    `list_warnings=False`: the policy warnings are only counted in the summary line (the
    CLI has printed each one on stderr already, and one is not shown twice)."""

    def __init__(
        self,
        out: TextIO,
        options: RenderOptions,
        clear: Callable[[], None] = _nothing,
        list_warnings: bool = True,
        cache_note: bool = False,
    ) -> None:
        self.out = out
        self.clear = clear
        self.list_warnings = list_warnings
        self.cache_note = cache_note  # --cache: a line saying how many traces it served
        self.cached = 0
        self.piece = console_spec(options)
        self.needs = Needs(pieces=(self.piece, UNMAPPED_PIECE))
        self.unmapped = 0

    def add(self, partial: Partial) -> None:
        self.unmapped += sum(int(n) for n in partial.pieces[UNMAPPED_PIECE.name] if n)
        self.cached += partial.cached
        text = "".join(partial.pieces[self.piece.name])
        if text:
            self.clear()
            self.out.write(text)

    def finish(self, result: RunResult) -> bool:
        self.clear()
        self.out.write(tasks_text(result.sections))
        summary = summary_text(
            result.summary, result.input_errors, result.sections, self.unmapped, self.list_warnings
        )
        self.out.write(summary)
        if self.cache_note:
            total = result.summary.total_traces
            self.out.write(f"cache: {self.cached} of {total} traces from the cache\n")
        return True


def write_output(target: str, pieces: Iterable[str], out: TextIO, messages: Messages) -> bool:
    """Write an output file atomically (`-`: `out`); reports a failure and returns False."""
    if target == STDOUT:
        for piece in pieces:
            out.write(piece)
        return True
    try:
        write_atomic(target, pieces)
    except OSError as exc:
        messages.error(f"{target}: cannot write: {exc.strerror or exc}")
        return False
    return True


class JsonReportSink:
    """`--json-out`: the JSON writer's bytes, without holding the reports. The summary
    comes first but is known last, so the elements are spooled to temporary files and
    the report is written (atomically) when the run ends."""

    needs = Needs(pieces=(JSON_PIECE,))

    def __init__(self, target: str, out: TextIO, messages: Messages) -> None:
        self.target = target
        self.out = out
        self.messages = messages
        self.reports = Spool()
        self.failures = Spool()

    def add(self, partial: Partial) -> None:
        _append(self.reports, partial.pieces[JSON_PIECE.name])
        _append(self.failures, [failure_element(f) for f in partial.failures])

    def finish(self, result: RunResult) -> bool:
        pieces = run_pieces(
            result.policy_id,
            result.summary,
            result.sections,
            self.reports.chunks(),
            self.failures.chunks(),
        )
        return write_output(self.target, pieces, self.out, self.messages)


def _append(spool: Spool, elements: list[str]) -> None:
    if elements:
        spool.write(array_text(elements, first=spool.empty))


class ReportSink:
    """Keeps every TraceReport and input failure; `run` is the RunReport once finished."""

    def __init__(self, positions: bool = False) -> None:
        self.needs = Needs(keep_reports=True, positions=positions)
        self.reports: list[TraceReport] = []
        self.failures: list[InputFailure] = []
        self.run: RunReport | None = None

    def add(self, partial: Partial) -> None:
        self.reports.extend(partial.reports)
        self.failures.extend(partial.failures)

    def finish(self, result: RunResult) -> bool:
        self.run = RunReport(
            result.policy_id,
            tuple(self.reports),
            tuple(self.failures),
            result.summary,
            result.sections,
            result.plugins,
        )
        return True


class RenderSink(ReportSink):
    """Whole-run renderers (Markdown, JUnit, SARIF, ...): rendered from the collected run."""

    def __init__(
        self,
        targets: Sequence[tuple[Renderer, str]],
        options: RenderOptions,
        out: TextIO,
        messages: Messages,
    ) -> None:
        super().__init__(positions=any(r.needs_positions for r, _ in targets))
        self.targets = tuple(targets)
        self.options = options
        self.out = out
        self.messages = messages

    def finish(self, result: RunResult) -> bool:
        super().finish(result)
        assert self.run is not None
        written = True
        for renderer, target in self.targets:
            text = renderer.render(self.run, self.options)
            written &= write_output(target, (text,), self.out, self.messages)
        return written


@dataclass(frozen=True, slots=True)
class OutputContext:
    """What a file output's sink may use: stdout for `-`, messages, render options."""

    out: TextIO
    messages: Messages
    options: RenderOptions


OutputFactory = Callable[[Renderer, str, OutputContext], Sink]


def _html_output(renderer: Renderer, target: str, context: OutputContext) -> Sink:
    # The HTML report's code is imported only by a run that writes one.
    from .html_output import html_sink  # noqa: PLC0415

    return html_sink(renderer, target, context)


def _otlp_output(renderer: Renderer, target: str, context: OutputContext) -> Sink:
    from .otlp_output import otlp_sink  # noqa: PLC0415

    return otlp_sink(renderer, target, context)


def _sarif_output(renderer: Renderer, target: str, context: OutputContext) -> Sink:
    from .sarif_output import sarif_sink  # noqa: PLC0415

    return sarif_sink(renderer, target, context)


_OUTPUTS: dict[str, OutputFactory] = {
    "json": lambda renderer, target, ctx: JsonReportSink(target, ctx.out, ctx.messages),
    "html": _html_output,
    "otlp": _otlp_output,
    "sarif": _sarif_output,
}


def register_output(name: str, factory: OutputFactory) -> None:
    """Stream the run renderer `name` through the sink `factory` makes (instead of
    rendering it from the collected run): e.g. an HTML report that asks the workers
    for each trace's body (a PieceSpec in its `needs`)."""
    _OUTPUTS[name] = factory


def output_sinks(targets: Sequence[tuple[Renderer, str]], context: OutputContext) -> list[Sink]:
    """The sinks that write these `--<name>-out` files."""
    sinks: list[Sink] = [_OUTPUTS[r.name](r, t, context) for r, t in targets if r.name in _OUTPUTS]
    whole = [(r, t) for r, t in targets if r.name not in _OUTPUTS]
    if whole:
        sinks.append(RenderSink(whole, context.options, context.out, context.messages))
    return sinks
