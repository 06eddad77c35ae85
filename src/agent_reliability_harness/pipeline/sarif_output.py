"""`--sarif-out FILE` through the pipeline: each trace's SARIF results are laid out where
the trace is judged (render/sarif_stream.py) and kept in `--cache` entries like every
piece; the log is put together in input order when the run ends, byte for byte what
`sarif.render_run` writes from the whole run."""

from __future__ import annotations

from ..models.report import InputFailure, RunReport
from ..render import Renderer
from ..render.sarif_stream import SarifWriter, trace_fragment
from .partial import Partial, RunResult
from .plan import Needs, PieceSpec, TraceView
from .sinks import OutputContext, write_output


def sarif_piece(view: TraceView) -> str:
    return trace_fragment(view.report)


SARIF_PIECE = PieceSpec("sarif", sarif_piece, report_only=True)


class SarifSink:
    needs = Needs(pieces=(SARIF_PIECE,), positions=True)

    def __init__(self, target: str, context: OutputContext) -> None:
        self.target = target
        self.context = context
        self.writer = SarifWriter()
        self.failures: list[InputFailure] = []

    def add(self, partial: Partial) -> None:
        add = self.writer.add
        for text in partial.pieces[SARIF_PIECE.name]:
            add(text)
        self.failures.extend(partial.failures)

    def finish(self, result: RunResult) -> bool:
        run = RunReport(
            result.policy_id,
            (),
            tuple(self.failures),
            result.summary,
            result.sections,
            result.plugins,
        )
        pieces = self.writer.pieces(run, self.context.options)
        return write_output(self.target, pieces, self.context.out, self.context.messages)


def sarif_sink(renderer: Renderer, target: str, context: OutputContext) -> SarifSink:
    """The output factory of `--sarif-out` (sinks._OUTPUTS)."""
    return SarifSink(target, context)
