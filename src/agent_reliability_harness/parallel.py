"""`--jobs N`: chunks of raw input units to worker processes, Batches back in input order.

At most a few chunks are in flight (flat memory); input that fits in one chunk never
starts a pool."""

from __future__ import annotations

import os
import signal
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from .io import Failure, LineRange, RawUnit
from .stream import Batch, EncodeOptions, UnitProcessor

CHUNK_BYTES = 1 << 20
CHUNK_UNITS = 512
_IN_FLIGHT_PER_JOB = 3
_WORKER: dict[str, UnitProcessor] = {}


def default_jobs() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def chunked(
    units: Iterable[RawUnit | LineRange | Failure],
    max_bytes: int | None = None,
    max_units: int | None = None,
) -> Iterator[list[RawUnit | LineRange | Failure]]:
    """Consecutive units grouped to about `max_bytes` of input (or `max_units` units);
    by default CHUNK_BYTES and CHUNK_UNITS as they are when called."""
    max_bytes = max_bytes or CHUNK_BYTES
    max_units = max_units or CHUNK_UNITS
    chunk: list[RawUnit | LineRange | Failure] = []
    size = 0
    for unit in units:
        chunk.append(unit)
        if isinstance(unit, LineRange):
            size += unit.size
        elif isinstance(unit, RawUnit):
            if unit.data is not None or unit.lines:
                size += unit.size
            else:  # a whole file, read by the worker: not stat-ed here
                size += max_bytes // 16
        if size >= max_bytes or len(chunk) >= max_units:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


def _init_worker(  # noqa: PLR0917 - the Pool initializer takes positional arguments
    policy_path: str,
    fail_under: float,
    fmt: str,
    options: EncodeOptions,
    identity: Any,
    with_positions: bool,
) -> None:
    # Ctrl-C is the parent's to handle (it stops the pool); no traceback per worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Imported here: the worker compiles the policy once, the parent needs none of it.
    from .api import load_policy  # noqa: PLC0415
    from .engine import Evaluator  # noqa: PLC0415

    evaluator = Evaluator(load_policy(policy_path), fail_under)
    _WORKER["processor"] = UnitProcessor(evaluator, fmt, options, identity, with_positions)


def _work(chunk: list[RawUnit | LineRange | Failure]) -> Batch:
    return _WORKER["processor"].process_all(chunk)


def _context() -> Any:
    import multiprocessing  # noqa: PLC0415 - only when a pool is needed (keeps --version fast)

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def batches(
    units: Iterable[RawUnit | LineRange | Failure],
    local: UnitProcessor,
    jobs: int,
    policy_path: str,
) -> Iterator[Batch]:
    """One Batch per chunk of units, in input order, over `jobs` processes (1: this one)."""
    chunks = chunked(units)
    first = next(chunks, None)
    if first is None:
        return
    second = next(chunks, None) if jobs > 1 else None
    if second is None:
        yield local.process_all(first)
        for chunk in chunks:
            yield local.process_all(chunk)
        return
    init = (
        policy_path,
        local.evaluator.fail_under,
        local.fmt,
        local.options,
        local.identity,
        local.with_positions,
    )
    with _context().Pool(jobs, _init_worker, init) as pool:
        pending: deque[Any] = deque()
        for chunk in (first, second):
            pending.append(pool.apply_async(_work, (chunk,)))
        for chunk in chunks:
            pending.append(pool.apply_async(_work, (chunk,)))
            while len(pending) >= jobs * _IN_FLIGHT_PER_JOB:
                yield pending.popleft().get()
        while pending:
            yield pending.popleft().get()
