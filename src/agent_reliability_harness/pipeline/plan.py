"""What every executor's workers are given (a WorkPlan: policies, options and the per-trace
extensions that sinks asked for) and the extension points themselves."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..adapters import AUTO, Identity
from ..models.policy import Policy
from ..models.report import Section, TraceReport
from ..models.task_ids import TaskIds
from ..models.trace import Step, Trace
from ..reading import DEFAULT_MAX_INPUT_BYTES
from ..scoring import DEFAULT_FAIL_UNDER


@dataclass(frozen=True, slots=True)
class TraceView:
    """What per-trace extensions see: the report, and the trace it judged (None when the
    trace was too big to hold and was evaluated a chunk of steps at a time)."""

    report: TraceReport
    trace: Trace | None


class Accumulator(Protocol):
    """Per-trace state that a run-level report section is built from, mergeable in input
    order: each worker feeds one per partial with `add`; the parent `merge`s the
    partials' states in input order and calls `finish` once. Implementations must be
    picklable (they travel from process-pool and Dask workers)."""

    def add(self, view: TraceView) -> None:
        """One trace, in input order within the partial."""

    def merge(self, later: Accumulator) -> None:
        """Fold in the state of the inputs right after this one's."""

    def finish(self) -> Section | None:
        """The section (None: nothing to say, and the report keeps its v1 bytes)."""


class Summarised(Accumulator, Protocol):
    """An accumulator that also reads the trace, fed a cached trace's summary instead
    (SectionSpec.summarise): `add_summary(summarise(view))` must do what `add(view)` does."""

    def add_summary(self, data: bytes) -> None:
        """One trace, as its summary."""


@dataclass(frozen=True, slots=True)
class SectionSpec:
    """A run-level section: `factory()` makes an empty Accumulator (a class or another
    importable callable, so that workers can make one)."""

    key: str
    factory: Callable[[], Accumulator]
    # The accumulator reads only `view.report` (never `view.trace`): a trace whose result
    # comes from the cache (pipeline/cache.py) can feed it. A run with a section that
    # does not say so, and has no `summarise`, is not cached.
    report_only: bool = False
    # For a Summarised accumulator (one that reads the trace too, or that a cached trace
    # should feed without its report being decoded): what one trace adds to it, as bytes
    # (deterministic: the same trace gives the same bytes). Cache entries keep it and a
    # hit replays it with `add_summary`. Must be importable.
    summarise: Callable[[TraceView], bytes] | None = None


class StepConsumer(Protocol):
    """Builds a per-trace text from a trace too big to hold, fed its steps a chunk at a
    time as the evaluator streams them (e.g. the HTML report's bounded timeline)."""

    def add(self, steps: Sequence[Step]) -> None:
        """The next steps of the trace, in order."""

    def finish(self, view: TraceView, head: Trace) -> str:
        """The text, once every step was added: `head` holds the trace's top-level
        fields (steps=()), `view.trace` is None."""


@dataclass(frozen=True, slots=True)
class PieceSpec:
    """A per-trace text made where the trace is evaluated (a worker) and handed to the
    sinks in input order (`Partial.pieces[name]`): the JSON report element, the console
    block, or a trace body for an HTML report. `encode` must be importable. For a trace
    evaluated a chunk of steps at a time (TraceView.trace is None), `streamed`, when
    given, makes a StepConsumer whose text replaces `encode`'s."""

    name: str
    encode: Callable[[TraceView], str]
    streamed: Callable[[], StepConsumer] | None = None
    # `encode` reads only `view.report`: for a trace whose result comes from the cache the
    # text is made again from the report, not kept in the cache (pipeline/cache.py).
    report_only: bool = False


@dataclass(frozen=True, slots=True)
class Needs:
    """What a sink needs from the workers beyond the counts every partial carries."""

    pieces: tuple[PieceSpec, ...] = ()
    keep_reports: bool = False  # the TraceReports themselves (whole-run renderers)
    positions: bool = False  # line numbers of traces and steps (SARIF)
    sections: tuple[SectionSpec, ...] = ()


# The most bytes a cache keeps by default (`--cache-max-size`); least recently used
# entries are evicted at the end of a run that goes over.
CACHE_MAX_SIZE = 1 << 30


@dataclass(frozen=True, slots=True)
class CacheOptions:
    """`--cache`: where the cache is (a directory or an fsspec URL), how big it may grow."""

    location: str
    max_size: int = CACHE_MAX_SIZE


@dataclass(frozen=True, slots=True)
class CacheSpec:
    """`--cache` as the workers see it: where the cache is (a directory or an fsspec
    URL) and the run's part of every key (pipeline/cache_key.py)."""

    location: str
    fingerprint: bytes


@dataclass(frozen=True, slots=True, eq=False)
class WorkPlan:
    """Everything a worker needs to turn units into a Partial; picklable (policies
    included) so it can be sent to process-pool and Dask workers."""

    policies: tuple[Policy, ...]
    fail_under: float = DEFAULT_FAIL_UNDER
    fmt: str = AUTO
    identity: Identity | None = None
    needs: Needs = Needs()
    max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES  # what one input may hold (io.py)
    task_ids: TaskIds | None = None  # --task-id-from, applied to each trace before routing
    cache: CacheSpec | None = None  # --cache: units' results reused (pipeline/cache.py)


def combine(needs: list[Needs], sections: tuple[SectionSpec, ...] = ()) -> Needs:
    """Everything several sinks (and the registered sections) need, without repeats."""
    pieces = {p.name: p for n in needs for p in n.pieces}
    specs = {s.key: s for s in (*sections, *(s for n in needs for s in n.sections))}
    return Needs(
        pieces=tuple(pieces.values()),
        keep_reports=any(n.keep_reports for n in needs),
        positions=any(n.positions for n in needs),
        sections=tuple(specs.values()),
    )


# Sections every run builds (issue 16's per-task statistics register here); each
# accumulator's finish() returns None when it has nothing to say.
_SECTIONS: dict[str, SectionSpec] = {}


def register_section(spec: SectionSpec) -> None:
    """Add a run-level section to every run (same key: replaced)."""
    _SECTIONS[spec.key] = spec


def registered_sections() -> tuple[SectionSpec, ...]:
    """The registered sections, in registration order."""
    return tuple(_SECTIONS.values())
