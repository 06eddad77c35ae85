"""The Python API and the validation pipeline: load -> adapt -> parse -> evaluate -> report.

Everything the CLI does is available here for use inside a test suite:

    policy = load_policy("policy.json")
    run = validate_paths(["traces/"], policy)
    assert run.ok, run.to_dict()
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, BinaryIO

from . import adapters
from .engine import Evaluator
from .errors import InputError, TraceError
from .io import Document, Failure, iter_documents
from .models import policy as policy_files
from .models.policy import Policy, parse_policy
from .models.report import InputFailure, RunReport, SummaryBuilder, TraceReport
from .models.trace import Trace, parse_trace
from .positions import locate_traces
from .render import json_
from .render.base import RenderOptions
from .scoring import DEFAULT_FAIL_UNDER


@dataclass(frozen=True, slots=True)
class LoadedTrace:
    """A parsed trace and where it was read."""

    trace: Trace
    source_path: str | None = None
    source_line: int | None = None
    step_lines: tuple[int, ...] = ()  # start line of each step; empty unless asked for


def load_policy(path: str, strict: bool = False) -> Policy:
    """Read and compile a policy file (JSON or YAML, with `extends`); PolicyError (with the
    path) if it is invalid, or with `strict` if it has warnings. `models.policy.load_policy`
    also returns the warnings."""
    return policy_files.load_policy(path, strict).policy


def policy_from_dict(data: Any) -> Policy:
    """Compile a policy given as a decoded JSON object."""
    return parse_policy(data)


def name_hint(source_path: str, line: int | None = None) -> str:
    """Transcripts without their own ids are named after the file (and JSONL line)."""
    stem = PurePath(source_path).stem or "trace"
    return stem if line is None else f"{stem}-{line}"


def iter_traces(
    paths: Iterable[str],
    fmt: str = adapters.AUTO,
    stdin: BinaryIO | None = None,
    with_positions: bool = False,
    identity: adapters.Identity | None = None,
) -> Iterator[LoadedTrace | InputFailure]:
    """Every trace of the inputs, in input order, with an InputFailure for each bad one.

    `with_positions` also finds the line where each trace and step object starts
    (for location-aware reports such as SARIF); it costs one extra scan per file.
    `identity` overrides the trace labels (`--trace-id`, `--agent-name`, `--workflow`).
    """
    documents = iter_documents(
        paths, stdin, with_positions, adapters.WALK_SUFFIXES, adapters.FILE_READERS
    )
    for document in coalesce_exports(documents):
        if isinstance(document, Failure):
            yield InputFailure(document.source_path, document.message, line=document.line)
            continue
        yield from _document_traces(document, fmt, identity)


def coalesce_exports(documents: Iterable[Document | Failure]) -> Iterator[Document | Failure]:
    """Join consecutive JSONL lines of one file that are batches of one span export (OTLP or
    Agents SDK), so a trace split across batches converts whole. Everything else passes."""
    batch: list[Document] = []
    kind: str | None = None

    def flush() -> Iterator[Document]:
        if len(batch) == 1:
            yield batch[0]
        elif batch and kind is not None:
            first = batch[0]
            merged = adapters.merge_exports(kind, [d.value for d in batch])
            yield Document(first.source_path, merged, start_line=first.start_line)
        batch.clear()

    for document in documents:
        found = None
        if isinstance(document, Document) and document.line is not None:
            found = adapters.export_kind(document.value)
        if batch and (found != kind or document.source_path != batch[0].source_path):
            yield from flush()
        if found is not None and isinstance(document, Document):
            kind = found
            batch.append(document)
            continue
        yield document
    yield from flush()


def _document_traces(
    document: Document, fmt: str, identity: adapters.Identity | None = None
) -> Iterator[LoadedTrace | InputFailure]:
    path = document.source_path
    try:
        hint = name_hint(path, document.line)
        candidates = adapters.to_canonical(document.value, fmt, hint, identity)
    except InputError as exc:
        yield InputFailure(path, str(exc), line=document.line)
        return
    many = len(candidates) > 1 or isinstance(document.value, list)
    located = locate_traces(document, candidates)
    for index, candidate in enumerate(candidates):
        try:
            trace = parse_trace(candidate)
        except TraceError as exc:
            yield InputFailure(path, str(exc), line=document.line, index=index if many else None)
            continue
        if located is None:
            yield LoadedTrace(trace, path, document.start_line if not many else None)
            continue
        line, step_lines = located[index]
        if len(step_lines) != len(trace.steps):
            step_lines = ()
        yield LoadedTrace(trace, path, line, step_lines)


def evaluate_stream(
    items: Iterable[LoadedTrace | InputFailure], evaluator: Evaluator
) -> Iterator[TraceReport | InputFailure]:
    """Evaluate traces as they arrive; failures pass through in place."""
    for item in items:
        if isinstance(item, InputFailure):
            yield item
        else:
            yield evaluator.evaluate(
                item.trace, item.source_path, item.source_line, item.step_lines
            )


def collect(policy: Policy, results: Iterable[TraceReport | InputFailure]) -> RunReport:
    """Gather a stream of results into a RunReport (input order kept)."""
    reports: list[TraceReport] = []
    failures: list[InputFailure] = []
    builder = SummaryBuilder()
    for item in results:
        if isinstance(item, InputFailure):
            failures.append(item)
        else:
            reports.append(item)
            builder.add(item)
    return RunReport(policy.policy_id, tuple(reports), tuple(failures), builder.build())


def validate_paths(
    paths: Iterable[str],
    policy: Policy,
    fail_under: float = DEFAULT_FAIL_UNDER,
    fmt: str = adapters.AUTO,
    stdin: BinaryIO | None = None,
) -> RunReport:
    """Validate every trace in files, directories, JSONL files or stdin (`-`)."""
    evaluator = Evaluator(policy, fail_under)
    return collect(policy, evaluate_stream(iter_traces(paths, fmt, stdin), evaluator))


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
    policy: Policy | dict[str, Any],
    fail_under: float = DEFAULT_FAIL_UNDER,
) -> RunReport:
    """Validate traces given as Trace objects or canonical dicts (parsed here)."""
    compiled = policy if isinstance(policy, Policy) else parse_policy(policy)
    evaluator = Evaluator(compiled, fail_under)
    items = (LoadedTrace(t if isinstance(t, Trace) else parse_trace(t)) for t in traces)
    return collect(compiled, evaluate_stream(items, evaluator))


def validate_trace(
    trace: Trace | dict[str, Any],
    policy: Policy | dict[str, Any],
    fail_under: float = DEFAULT_FAIL_UNDER,
) -> TraceReport:
    """Validate one trace; returns its TraceReport."""
    return validate([trace], policy, fail_under).reports[0]


def report_json(run: RunReport) -> str:
    """The JSON report (baseline format) as text: fixed key order, indent 2, newline."""
    return json_.render_run(run, RenderOptions())
