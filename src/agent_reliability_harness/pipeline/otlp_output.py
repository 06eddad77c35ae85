"""`--otlp-out FILE` through the pipeline: each trace's `gen_ai.evaluation.result` events
are made in the worker that evaluated it (where the trace's source and trace id are known)
and handed back in input order; they are spooled to a temporary file and the request is
written atomically when the run ends (memory stays flat in the number of traces)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Sequence
from typing import IO

from ..models.trace import Step, Trace
from ..render import Renderer
from ..render.otlp import document_pieces, records_text
from .partial import Partial, RunResult
from .plan import Needs, PieceSpec, TraceView
from .sinks import OutputContext, write_output

OTLP_PIECE = "otlp"


def otlp_piece(view: TraceView) -> str:
    source = None if view.trace is None else view.trace.source
    return records_text(view.report, source)


class _Streamed:
    """A trace read a chunk of steps at a time: its head holds the source."""

    def add(self, steps: Sequence[Step]) -> None:
        return None

    def finish(self, view: TraceView, head: Trace) -> str:
        return records_text(view.report, head.source)


class OtlpSink:
    def __init__(self, target: str, context: OutputContext) -> None:
        self.target = target
        self.context = context
        self.needs = Needs(pieces=(PieceSpec(OTLP_PIECE, otlp_piece, _Streamed),))
        self.spool: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - closed in finish()

    def add(self, partial: Partial) -> None:
        for text in partial.pieces[OTLP_PIECE]:
            if text:
                self.spool.write(text.encode("utf-8") + b"\n")

    def _pieces(self) -> Iterator[str]:
        self.spool.seek(0)
        for line in self.spool:
            yield line.decode("utf-8").rstrip("\n")

    def finish(self, result: RunResult) -> bool:
        try:
            pieces = document_pieces(self._pieces(), self.context.options)
            return write_output(self.target, pieces, self.context.out, self.context.messages)
        finally:
            self.spool.close()


def otlp_sink(renderer: Renderer, target: str, context: OutputContext) -> OtlpSink:
    """The output factory of `--otlp-out` (sinks._OUTPUTS)."""
    return OtlpSink(target, context)
