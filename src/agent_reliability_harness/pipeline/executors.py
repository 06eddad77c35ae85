"""Executors: where chunks of input units are processed. In this process, over a local
process pool (`--jobs N`), or on a Dask cluster (dask_executor.py). Each yields one
Partial per chunk, in input order, with at most a few chunks in flight (flat memory)."""

from __future__ import annotations

import os
import signal
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any, Protocol

from ..inputs import LineRange, RawUnit, SessionFile, Unit
from .exports import lines_joined
from .partial import Partial
from .plan import WorkPlan
from .process import Processor, make_processor

CHUNK_BYTES = 1 << 20
CHUNK_UNITS = 512
IN_FLIGHT_PER_WORKER = 3


class Executor(Protocol):
    """Runs a WorkPlan over chunks of units: one Partial per chunk, in input order."""

    @property
    def ranges(self) -> bool:
        """Whether its workers read JSONL files themselves, given as LineRanges."""
        ...

    def map(self, plan: WorkPlan, chunks: Iterator[list[Unit]]) -> Iterator[Partial]: ...


class InProcess:
    """Everything in this process, one chunk at a time."""

    ranges = False

    def map(self, plan: WorkPlan, chunks: Iterator[list[Unit]]) -> Iterator[Partial]:
        processor = make_processor(plan)
        for chunk in chunks:
            yield processor.process_all(chunk)


def default_jobs() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class ProcessPool:
    """`--jobs N` local worker processes (default: the CPUs); each compiles the policies
    once. Input that fits in one chunk never starts a pool."""

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = jobs or default_jobs()

    @property
    def ranges(self) -> bool:
        return self.jobs > 1

    def map(self, plan: WorkPlan, chunks: Iterator[list[Unit]]) -> Iterator[Partial]:
        first = next(chunks, None)
        if first is None:
            return
        second = next(chunks, None) if self.jobs > 1 else None
        if second is None:
            local = make_processor(plan)
            yield local.process_all(first)
            for chunk in chunks:
                yield local.process_all(chunk)
            return
        with _context().Pool(self.jobs, _init_worker, (plan,)) as pool:
            pending: deque[Any] = deque()
            for chunk in (first, second):
                pending.append(pool.apply_async(_work, (chunk,)))
            for chunk in chunks:
                pending.append(pool.apply_async(_work, (chunk,)))
                while len(pending) >= self.jobs * IN_FLIGHT_PER_WORKER:
                    yield pending.popleft().get()
            while pending:
                yield pending.popleft().get()


# This worker process's processor (one plan each).
_WORKER: dict[str, Processor] = {}


def _init_worker(plan: WorkPlan) -> None:
    # Ctrl-C is the parent's to handle (it stops the pool); no traceback per worker. The
    # pool stops its workers with SIGTERM, which must not run the parent's handler.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _WORKER["processor"] = make_processor(plan)


def _work(chunk: list[Unit]) -> Partial:
    return _WORKER["processor"].process_all(chunk)


def _context() -> Any:
    import multiprocessing  # noqa: PLC0415 - only when a pool is needed (keeps --version fast)

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def make_executor(jobs: int | None = None, dask: str | None = None) -> Executor:
    """The executor for `--jobs N` (default: the CPUs) or `--dask ADDRESS`."""
    if dask is not None:
        from .dask_executor import DaskExecutor  # noqa: PLC0415 - Dask only when asked for

        return DaskExecutor(dask)
    jobs = jobs or default_jobs()
    return InProcess() if jobs == 1 else ProcessPool(jobs)


def _size(unit: Unit, max_bytes: int) -> int:
    if isinstance(unit, LineRange | SessionFile):
        return unit.size or max_bytes // 4
    if isinstance(unit, RawUnit) and unit.data is not None:
        return len(unit.data)
    # A whole file, read by the worker (not stat-ed here), counts as a trace file of
    # 16 KB: a chunk holds 64. A pool pays for every chunk in each process (pipes,
    # wake-ups): at 16 files a chunk, 10k files cost it 25% more CPU than `--jobs 1`;
    # from 64 on that is mostly gone, and bigger chunks balance worse on a busy machine.
    # A worker holds one file's bytes at a time (a big one is streamed), so memory does
    # not grow with this.
    return max_bytes // 64


def _joined(before: Unit, after: Unit) -> bool:
    return (
        isinstance(before, RawUnit)
        and isinstance(after, RawUnit)
        and before.line is not None
        and after.line is not None
        and before.data is not None
        and after.data is not None
        and before.source_path == after.source_path
        and lines_joined(before.data, after.data)
    )


def chunked(
    units: Iterable[Unit], max_bytes: int | None = None, max_units: int | None = None
) -> Iterator[list[Unit]]:
    """Consecutive units grouped to about `max_bytes` of input (or `max_units` units); by
    default CHUNK_BYTES and CHUNK_UNITS as they are when called. A chunk never ends
    between two JSONL lines that are batches of one span export (they are joined by the
    worker that reads them); this is checked only where a chunk would end."""
    max_bytes = max_bytes or CHUNK_BYTES
    max_units = max_units or CHUNK_UNITS
    chunk: list[Unit] = []
    size = 0
    full = False
    for unit in units:
        if full and not _joined(chunk[-1], unit):
            yield chunk
            chunk, size = [], 0
        chunk.append(unit)
        size += _size(unit, max_bytes)
        full = size >= max_bytes or len(chunk) >= max_units
    if chunk:
        yield chunk
