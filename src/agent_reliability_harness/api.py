"""The Python API: everything the CLI does, for use inside a test suite.

    policy = load_policy("policy.json")
    run = validate_paths(["traces/"], policy)
    assert run.ok, run.to_dict()

Every function here is a thin call into the one pipeline (pipeline/), so results are
those of `arh validate`, byte for byte, whichever executor runs them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, BinaryIO

from . import adapters
from .errors import InputError
from .models import policy as policy_files
from .models.policy import LoadedPolicy, Policy, parse_policy
from .models.policy.notes import strict_error
from .models.policy_warnings import warnings_section
from .models.report import InputFailure, RunReport, Section, TraceReport
from .models.task_ids import task_ids
from .models.trace import Trace, parse_trace
from .pipeline import (
    CacheOptions,
    Executor,
    InProcess,
    Loaded,
    ProcessPool,
    Reader,
    ReportSink,
    RunOptions,
    input_units,
    make_executor,
    make_plan,
    merge,
    run,
    run_policy_id,
)
from .pipeline.partial import PartialBuilder
from .pipeline.routing import Router, no_policy_message
from .render import json_
from .render.base import RenderOptions
from .rules.plugins import check_plugins, check_policies, policy_plugins
from .scoring import DEFAULT_FAIL_UNDER

# A parsed trace and where it was read (what `iter_traces` yields).
LoadedTrace = Loaded


def load_policy(path: str, strict: bool = False) -> Policy:
    """Read and compile a policy file (JSON or YAML, with `extends`); PolicyError (with the
    path) if it is invalid, or with `strict` if it has warnings. `models.policy.load_policy`
    also returns the warnings. The plugins it names are imported (PolicyError if one
    cannot be used)."""
    loaded = policy_files.load_policy(path, strict)
    check_plugins(loaded)
    return loaded.policy


def load_policies(paths: Iterable[str], strict: bool = False) -> tuple[Policy, ...]:
    """The policies of several files or directories of policies (sorted *.json, *.yaml,
    *.yml), in order; `models.policy.load_policies` also returns their warnings."""
    loaded = policy_files.load_policies(list(paths), strict)
    check_policies(loaded)
    return tuple(item.policy for item in loaded)


def policy_from_dict(data: Any) -> Policy:
    """Compile a policy given as a decoded JSON object."""
    return parse_policy(data)


# What the validate functions take as the policy: a compiled Policy, a policy object, a
# LoadedPolicy (`models.policy.load_policy`, with its warnings), or several of them.
PolicyLike = Policy | LoadedPolicy | dict[str, Any]


def _policies(
    policy: PolicyLike | Sequence[PolicyLike], strict: bool = False
) -> tuple[tuple[Policy, ...], tuple[Section, ...]]:
    """The policies, and the run section of their warnings (policy objects are checked
    here; a LoadedPolicy brings its own; a compiled Policy has none). With `strict`, a
    warning is the PolicyError it is for `load_policy(path, strict=True)`."""
    given = [policy] if isinstance(policy, Policy | LoadedPolicy | dict) else list(policy)
    loaded = [
        item
        if isinstance(item, LoadedPolicy)
        else policy_files.check_policy(item, strict)
        if isinstance(item, dict)
        else LoadedPolicy(item)
        for item in given
    ]
    if strict:
        for item in loaded:
            if item.warnings:
                raise strict_error(item.warnings, item.source)
    check_policies(loaded)
    section = warnings_section(loaded)
    return tuple(item.policy for item in loaded), () if section is None else (section,)


def _executor(executor: Executor | None, jobs: int | None) -> Executor:
    if executor is not None:
        return executor
    return InProcess() if jobs is None else make_executor(jobs)


def validate_paths(
    paths: Iterable[str],
    policy: Policy | Sequence[Policy],
    fail_under: float = DEFAULT_FAIL_UNDER,
    fmt: str = adapters.AUTO,
    stdin: BinaryIO | None = None,
    *,
    executor: Executor | None = None,
    jobs: int | None = None,
    identity: adapters.Identity | None = None,
    allow_empty: bool = False,
    with_positions: bool = False,
    task_id_from: str | None = None,
    repeated: bool = False,
    strict: bool = False,
    coverage: bool = False,
    cache: str | CacheOptions | None = None,
) -> RunReport:
    """Validate every trace in files, directories, JSONL files, URLs or stdin (`-`).

    `policy` may be several policies (the first whose `applies_to` matches judges each
    trace); a policy given as an object or a LoadedPolicy brings its warnings into the
    report (`policy_warnings`), and with `strict` a warning is a PolicyError instead.
    Runs in this process unless `executor` (e.g. `ProcessPool(4)`,
    `DaskExecutor("tcp://...")`) or `jobs` says otherwise; the report is the same.
    With `allow_empty=False`, inputs that hold no trace at all raise InputError.
    `with_positions` records trace and step line numbers (as SARIF needs).
    Repeated runs: `task_id_from` (a pattern with one capturing group) takes each trace's
    task id from its trace_id; the `tasks` section (`run.sections`) is there when a task
    has two or more runs, or with `repeated`. With `coverage`, `run.sections` holds the
    `coverage` section (per allowed tool: calls, traces, declared arguments passed, rules
    fired; `tool_coverage`, the share of allowed tools called).
    `cache` (a directory, an fsspec URL or a CacheOptions) reuses the results of traces
    judged before (docs/cache.md); the report is the same. A cache that cannot be written
    is a RuntimeWarning, and the run goes on without it."""
    policies, sections = _policies(policy, strict)
    collector = ReportSink(positions=with_positions)
    options = RunOptions(
        fail_under,
        fmt,
        identity,
        allow_empty,
        task_ids(task_id_from),
        repeated,
        coverage=coverage,
        cache=CacheOptions(cache) if isinstance(cache, str) else cache,
    )
    chosen = _executor(executor, jobs)
    result = run(paths, policies, [collector], options=options, executor=chosen, stdin=stdin,
                 sections=sections)  # fmt: skip
    if result.empty and not allow_empty:
        raise InputError("no traces found in the given paths")
    assert collector.run is not None
    return collector.run


def iter_traces(
    paths: Iterable[str],
    fmt: str = adapters.AUTO,
    stdin: BinaryIO | None = None,
    with_positions: bool = False,
    identity: adapters.Identity | None = None,
) -> Iterator[Loaded | InputFailure]:
    """Every trace of the inputs, parsed, in input order, with an InputFailure for each
    input that cannot be mapped (the pipeline's load -> adapt -> parse stages)."""
    reader = Reader(fmt, identity, with_positions)
    units = input_units(paths, RunOptions(fmt=fmt, identity=identity, allow_empty=True), stdin)
    for item in reader.items(units):
        if isinstance(item, Loaded | InputFailure):
            yield item


def load_traces(paths: Iterable[str], fmt: str = adapters.AUTO) -> list[Trace]:
    """Parse every trace of the inputs; raises InputError at the first bad one."""
    traces: list[Trace] = []
    for item in iter_traces(paths, fmt):
        if isinstance(item, InputFailure):
            raise InputError(f"{item.location()}: {item.message}")
        traces.append(item.trace)
    return traces


def validate(
    traces: Iterable[Trace | dict[str, Any]],
    policy: PolicyLike | Sequence[PolicyLike],
    fail_under: float = DEFAULT_FAIL_UNDER,
    strict: bool = False,
    *,
    task_id_from: str | None = None,
    repeated: bool = False,
    coverage: bool = False,
) -> RunReport:
    """Validate traces given as Trace objects or canonical dicts (parsed here); `policy`,
    `strict`, `task_id_from`, `repeated` and `coverage` as for `validate_paths`."""
    policies, sections = _policies(policy, strict)
    router = Router(policies, fail_under)
    collector = ReportSink()
    options = RunOptions(
        fail_under, task_ids=task_ids(task_id_from), repeated=repeated, coverage=coverage
    )
    builder = PartialBuilder(make_plan(policies, options, [collector]))
    tasks = options.task_ids
    for index, item in enumerate(traces):
        trace = item if isinstance(item, Trace) else parse_trace(item)
        trace = trace if tasks is None else tasks.trace(trace)
        evaluator = router.pick(trace)
        if evaluator is None:
            builder.fail(InputFailure("<traces>", no_policy_message(trace), index=index))
        else:
            builder.add(evaluator.evaluate(trace), trace)
    merge(
        [builder.partial], [collector], run_policy_id(policies), sections, policy_plugins(policies)
    )
    assert collector.run is not None
    return collector.run


def validate_trace(
    trace: Trace | dict[str, Any],
    policy: PolicyLike | Sequence[PolicyLike],
    fail_under: float = DEFAULT_FAIL_UNDER,
    strict: bool = False,
) -> TraceReport:
    """Validate one trace; returns its TraceReport (InputError if no policy applies)."""
    run_report = validate([trace], policy, fail_under, strict)
    if not run_report.reports:
        failure = run_report.input_errors[0]
        raise InputError(failure.message)
    return run_report.reports[0]


def report_json(run_report: RunReport) -> str:
    """The JSON report (baseline format) as text: fixed key order, indent 2, newline."""
    return json_.render_run(run_report, RenderOptions())


__all__ = [
    "CacheOptions",
    "Executor",
    "InProcess",
    "LoadedTrace",
    "ProcessPool",
    "load_policies",
    "load_policy",
    "load_traces",
    "make_executor",
    "policy_from_dict",
    "report_json",
    "validate",
    "validate_paths",
    "validate_trace",
]
