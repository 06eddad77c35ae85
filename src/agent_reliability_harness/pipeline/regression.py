"""`compare`: a baseline report against a candidate (another report, or traces validated
now through the pipeline), the gate decision and the compare outputs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from ..compare import Comparison, GateOptions, check_unique_ids, compare
from ..errors import InputError, ReportError
from ..inputs import RemoteFile
from ..inputs.remote import open_remote
from ..io import display_path, is_url
from ..models.baseline import read_report
from ..models.policy import Policy
from ..models.report import RunReport, Section
from ..reading import max_input_bytes, read_input, read_stream
from ..render import Renderer, RenderOptions, get_renderer
from .executors import Executor
from .partial import Sink
from .run import RunOptions, run
from .sinks import ErrorSink, Messages, ReportSink, write_output

if TYPE_CHECKING:  # the HTML report's code is imported only when a page is written
    from .html_output import TraceBodies

EMPTY_CANDIDATE = "no traces found in the given paths: every baseline trace counts as removed"


def read_run_report(
    path: str, stdin: Any = None, limit: int | None = None
) -> tuple[RunReport, bytes]:
    """A report file (`-`: standard input) and its bytes, within the input limit;
    ReportError naming file and field."""
    name = display_path(path)
    try:
        data = _read_url(path, limit) if is_url(path) else read_input(path, stdin, limit)
    except OSError as exc:  # behind a URL
        raise ReportError(f"{name}: cannot read: {exc.strerror or exc}") from None
    except InputError as exc:
        raise ReportError(f"{name}: {exc}") from None
    return read_report(data, name), data


def _read_url(url: str, limit: int | None) -> bytes:
    """A report named by URL (s3://..., through fsspec, as trace inputs are read), within
    the input limit."""
    with open_remote(RemoteFile(url)) as handle:
        return read_stream(handle, max_input_bytes() if limit is None else limit)


@dataclass(frozen=True, slots=True)
class Candidate:
    """The candidate side: its report, whether all its inputs were read, its text when
    it was given as a report (saved as given by --candidate-json-out), and its traces'
    embedded bodies when it was validated now for an HTML page."""

    report: RunReport
    ok: bool = True
    text: str | None = None
    bodies: TraceBodies | None = None


def validate_candidate(
    paths: Sequence[str],
    policies: Sequence[Policy],
    options: RunOptions,
    messages: Messages,
    *,
    executor: Executor | None = None,
    stdin: Any = None,
    sections: Sequence[Section] = (),
    trace_bodies: bool = False,
) -> Candidate:
    """Validate PATH... now (streamed, on any executor); unreadable inputs are reported
    through `messages`; `sections` (the policies' warnings) go into the candidate report.
    ReportError when one trace_id is judged twice by one policy. `trace_bodies`: keep
    each trace's HTML body (spooled) for the compare page's timelines."""
    collector = ReportSink()
    errors = ErrorSink(messages, options.allow_empty, empty_warning=EMPTY_CANDIDATE)
    sinks: list[Sink] = [errors, collector]
    bodies = None
    if trace_bodies:
        from .html_output import TraceBodies  # noqa: PLC0415

        bodies = TraceBodies()
        sinks.append(bodies)
    result = run(
        paths, policies, sinks, options=options, executor=executor, stdin=stdin, sections=sections
    )
    assert collector.run is not None
    check_unique_ids(collector.run)
    ok = result.input_errors == 0 and (options.allow_empty or not result.empty)
    return Candidate(collector.run, ok, bodies=bodies)


def given_candidate(path: str, stdin: Any = None, limit: int | None = None) -> Candidate:
    """A candidate given as a report file."""
    report, data = read_run_report(path, stdin, limit)
    return Candidate(report, True, data.decode("utf-8-sig"))


@dataclass(frozen=True, slots=True)
class CompareOutputs:
    """Where the comparison goes: `stdout` (the console text unless `quiet`, and any
    output given as `-`), files by renderer, and the candidate saved as a report."""

    stdout: TextIO
    quiet: bool = False
    color: bool = False
    files: Sequence[tuple[Renderer, str]] = ()
    candidate_json: str | None = None
    tool_version: str = "0"
    show: str = "all"


def gate(
    baseline: RunReport,
    candidate: Candidate,
    options: GateOptions,
    outputs: CompareOutputs,
    messages: Messages,
) -> tuple[Comparison, bool]:
    """Compare, write every output, and decide: True when the gate passes, every
    candidate input was read and every output written."""
    comparison = compare(baseline, candidate.report, options)
    if not outputs.quiet:
        shown = RenderOptions(outputs.tool_version, outputs.color, outputs.show)
        outputs.stdout.write(get_renderer("compare", "console").render(comparison, shown))
    written = True
    plain = RenderOptions(outputs.tool_version)
    for renderer, target in outputs.files:
        if renderer.needs_traces and candidate.bodies is not None:
            from .html_output import write_compare_html  # noqa: PLC0415

            written &= write_compare_html(
                comparison, candidate.bodies, target, plain, out=outputs.stdout, messages=messages
            )
            continue
        text = renderer.render(comparison, plain)
        written &= write_output(target, (text,), outputs.stdout, messages)
    if outputs.candidate_json:
        saved = candidate.text
        if saved is None:  # validated now: exactly what `arh validate --json-out` writes
            saved = get_renderer("run", "json").render(candidate.report, plain)
        written &= write_output(outputs.candidate_json, (saved,), outputs.stdout, messages)
    passed = comparison.gate.passed and candidate.ok and written
    return comparison, passed
