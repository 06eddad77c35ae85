"""One evaluation pipeline for `arh validate`, `arh compare --policy` and the Python API:
inputs -> units -> chunks -> executor (read, adapt, parse, route, evaluate) -> merge ->
sinks. The CLI only maps argv to these options and sinks."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .. import adapters
from ..adapters import AUTO, Identity
from ..inputs import Entry, Unit, expand_paths, iter_units
from ..io import Failure
from ..models.policy import Policy
from ..models.report import POLICY_SEPARATOR, Section
from ..models.task_ids import TaskIds
from ..reading import max_input_bytes
from ..rules.plugins import policy_plugins
from ..scoring import DEFAULT_FAIL_UNDER
from . import executors
from .coverage import coverage_spec
from .documents import claims_for
from .executors import Executor, InProcess, chunked
from .exports import lines_joined
from .partial import Partial, RunResult, Sink, merge
from .plan import CacheOptions, WorkPlan, combine, registered_sections
from .sinks import Messages
from .tasks import FORCED_TASKS


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How inputs are read and judged (everything but the policies, sinks and executor)."""

    fail_under: float = DEFAULT_FAIL_UNDER
    fmt: str = AUTO
    identity: Identity | None = None
    allow_empty: bool = False  # a run with no trace at all (empty directories too) passes
    task_ids: TaskIds | None = None  # --task-id-from: task ids from the trace ids
    repeated: bool = False  # --repeated: the `tasks` section even with one run per task
    # The most bytes one input may hold in memory (None: io.max_input_bytes(), i.e.
    # $ARH_MAX_INPUT_BYTES or the default); a bigger one is an input error.
    max_input_bytes: int | None = None
    coverage: bool = False  # --coverage: the `coverage` section (policy v1.2 section 6)
    # --cache: reuse the results of units seen before (pipeline/cache.py); None: no cache.
    cache: CacheOptions | None = None

    def input_limit(self) -> int:
        return self.max_input_bytes if self.max_input_bytes is not None else max_input_bytes()


def run_policy_id(policies: Sequence[Policy]) -> str:
    """The run report's policy_id: the one policy's, or every policy's, comma-separated."""
    return POLICY_SEPARATOR.join(dict.fromkeys(policy.policy_id for policy in policies))


def make_plan(policies: Sequence[Policy], options: RunOptions, sinks: Sequence[Sink]) -> WorkPlan:
    """The WorkPlan for these policies and options, with what the sinks need."""
    sections = registered_sections()
    if options.repeated:
        sections = tuple(FORCED_TASKS if s.key == FORCED_TASKS.key else s for s in sections)
    if options.coverage:
        sections = (*sections, coverage_spec(policies))
    needs = combine([sink.needs for sink in sinks], sections)
    return WorkPlan(
        tuple(policies),
        options.fail_under,
        options.fmt,
        options.identity,
        needs,
        max_input_bytes=options.input_limit(),
        task_ids=options.task_ids,
    )


def input_units(
    paths: Iterable[str],
    options: RunOptions,
    stdin: Any = None,
    ranges: bool = False,
    files: list[str] | None = None,
) -> Iterable[Unit]:
    """The units of the inputs, as the executor's workers read them; `files` gets the name
    of every input file found (one that holds nothing gives no unit)."""
    entries: list[Entry | Failure] = expand_paths(paths, adapters.walk_suffixes())
    if files is not None:
        files.extend(e.name for e in entries if isinstance(e, Entry))
    if options.allow_empty:
        entries = [e for e in entries if not _empty_directory(e)]
    return iter_units(
        entries,
        stdin,
        executors.CHUNK_BYTES if ranges else 0,
        lines_joined if ranges else None,
        claims_for(options.fmt),
        limit=options.input_limit(),
    )


def _empty_directory(item: Entry | Failure) -> bool:
    return isinstance(item, Failure) and item.message.startswith("directory contains no ")


def run(
    paths: Iterable[str],
    policies: Sequence[Policy],
    sinks: Sequence[Sink] = (),
    *,
    options: RunOptions = RunOptions(),
    executor: Executor | None = None,
    stdin: Any = None,
    sections: Sequence[Section] = (),
    messages: Messages | None = None,
) -> RunResult:
    """Validate every trace of the inputs (files, directories, JSONL, `-`, URLs) against
    the first of `policies` that applies to it, feeding `sinks` in input order.
    `result.passed(options.allow_empty)` is the verdict of the run. A cache that cannot
    be used is one warning (to `messages`, else a RuntimeWarning): the run goes on
    without it."""
    executor = executor or InProcess()
    plan = make_plan(policies, options, sinks)
    cache = options.cache
    if cache is not None:
        from . import cache as caching  # noqa: PLC0415 - hashing only when --cache is given

        try:
            plan = caching.attach(plan, cache)
        except caching.CacheUnavailable as exc:
            _warn(messages, f"cache {cache.location}: {exc}; running without the cache")
            cache = None
    units = input_units(paths, options, stdin, executor.ranges)
    partials = executor.map(plan, chunked(units))
    if cache is None:
        return merge(partials, sinks, run_policy_id(policies), sections, policy_plugins(policies))
    stored: list[int] = []
    result = merge(
        _stored(partials, stored),
        sinks,
        run_policy_id(policies),
        sections,
        policy_plugins(policies),
    )
    caching.finish(cache, sum(stored))
    return result


def _stored(partials: Iterable[Partial], stored: list[int]) -> Iterator[Partial]:
    """The partials, each one's bytes of cache entries written noted in `stored`."""
    for partial in partials:
        stored.append(partial.stored)
        yield partial


def _warn(messages: Messages | None, text: str) -> None:
    if messages is not None:
        messages.warn(text)
    else:
        warnings.warn(text, RuntimeWarning, stacklevel=3)
