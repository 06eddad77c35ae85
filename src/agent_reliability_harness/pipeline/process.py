"""Evaluate: input units in, one Partial out. The same code runs in-process and in every
executor's workers (one Partial per chunk of units), so output cannot depend on which."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterable, Iterator
from typing import Protocol

from ..engine import TraceRun
from ..inputs import Location, Unit, open_binary, read_whole
from ..models.report import InputFailure
from ..models.trace_stream import StreamDeclined, TraceStream
from .documents import BigFile, Loaded, Reader
from .partial import Partial, PartialBuilder
from .plan import TraceView, WorkPlan
from .routing import Router, no_policy_message


def make_processor(plan: WorkPlan) -> Processor:
    """The processor of a plan: cached (pipeline/cache.py) when the plan has a cache."""
    if plan.cache is None:
        return UnitProcessor(plan)
    from .cache import CachedProcessor  # noqa: PLC0415 - hashing only when --cache is given

    return CachedProcessor(plan, plan.cache)


class Processor(Protocol):
    """Turns a chunk of units into its Partial (in a worker)."""

    def process_all(self, units: Iterable[Unit]) -> Partial: ...


class UnitProcessor:
    """Read, route to the first policy that applies, evaluate, and build the Partial."""

    def __init__(self, plan: WorkPlan) -> None:
        self.plan = plan
        self.router = Router(plan.policies, plan.fail_under)
        self.reader = Reader(
            plan.fmt, plan.identity, plan.needs.positions, True, plan.max_input_bytes
        )
        self.task_ids = plan.task_ids

    def process_all(self, units: Iterable[Unit]) -> Partial:
        """One Partial for a run of consecutive units."""
        builder = PartialBuilder(self.plan)
        start = self.reader.size
        with no_cyclic_gc():
            self.process_into(units, builder)
        partial = builder.partial
        partial.size = self.reader.size - start
        return partial

    def process_into(self, units: Iterable[Unit], builder: PartialBuilder) -> None:
        """Read, route and evaluate consecutive units into `builder`."""
        for item in self.reader.items(units):
            if isinstance(item, InputFailure):
                builder.fail(item)
            elif isinstance(item, BigFile):
                self._big(item, builder)
            else:
                self._evaluate(item, builder)

    def _evaluate(self, item: Loaded, builder: PartialBuilder) -> None:
        trace = item.trace if self.task_ids is None else self.task_ids.trace(item.trace)
        evaluator = self.router.pick(trace)
        if evaluator is None:
            builder.fail(item.failure(no_policy_message(trace)))
            return
        report = evaluator.evaluate(trace, item.source_path, item.source_line, item.step_lines)
        builder.add(report, trace)

    def _big(self, item: BigFile, builder: PartialBuilder) -> None:
        """A big canonical trace file, read and evaluated a chunk of steps at a time
        (memory stays bounded by the chunk, not the file); read whole if the stream
        declines (the whole-file path then gives the same report or the exact error)."""
        unit = item.unit
        assert unit.path is not None
        streamed = self._streamed(unit.path, unit.source_path, builder)
        if streamed:
            return
        try:
            data = read_whole(unit.path, self.plan.max_input_bytes)
        except OSError as exc:
            builder.fail(InputFailure(unit.source_path, f"cannot read: {exc.strerror or exc}"))
            return
        for loaded in self.reader.whole_data(unit, data):
            if isinstance(loaded, InputFailure):
                builder.fail(loaded)
            elif isinstance(loaded, Loaded):
                self._evaluate(loaded, builder)

    def _streamed(self, path: Location, source: str, builder: PartialBuilder) -> bool:
        # The policy is known only once the trace's labels are (they may follow the
        # steps), so each policy the trace may end up with sees every chunk.
        consumers = [(s.name, s.streamed()) for s in self.plan.needs.pieces if s.streamed]
        try:
            with open_binary(path) as handle:
                stream = TraceStream(handle)
                runs: list[TraceRun] = [e.start() for e in self.router.possible]
                for steps in stream.chunks():
                    for run in runs:
                        run.add(steps, agent_name=stream.agent_name)
                    for _, consumer in consumers:
                        consumer.add(steps)
                head, line = stream.head, stream.start_line
                if not all(run.agent_name_fits(head) for run in runs):
                    raise StreamDeclined("agent_name is repeated after the steps")
                if self.task_ids is not None:
                    head = self.task_ids.trace(head)
                self.reader.size += handle.tell()
        except (StreamDeclined, OSError):
            return False
        evaluator = self.router.pick(head)
        if evaluator is None:
            builder.fail(InputFailure(source, no_policy_message(head)))
            return True
        run = runs[self.router.possible.index(evaluator)]
        report = run.finish(head, source, line)
        view = TraceView(report, None)
        builder.add(report, None, {name: c.finish(view, head) for name, c in consumers})
        return True


@contextlib.contextmanager
def no_cyclic_gc() -> Iterator[None]:
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
