"""`arh compare`: a baseline report against a candidate (a report, or traces run on the spot).

Exit 0 when the gate passes; 1 when it fails or an input is invalid; 2 on misuse.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..adapters import AUTO, FORMAT_CHOICES
from ..api import collect, evaluate_stream, iter_traces, load_policy
from ..compare import GateMode, GateOptions, compare
from ..engine import Evaluator
from ..errors import PolicyError, ReportError
from ..io import STDIN, display_path
from ..models.baseline import read_report
from ..models.report import RunReport
from ..render import RenderOptions, file_renderers, get_renderer
from ..scoring import DEFAULT_FAIL_UNDER
from ..version import __version__
from .common import EXIT_INPUT, EXIT_OK, EXIT_USAGE, Streams, score_arg, write_text


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="gate a candidate run against a baseline report",
        description="Compare a baseline report (from `arh validate --json-out`) with a "
        "candidate: another report (--candidate) or traces validated now (--policy "
        "POLICY PATH...). Fails only on regressions by default.",
    )
    parser.add_argument(
        "--baseline", required=True, metavar="REPORT", help="baseline report (- for stdin)"
    )
    parser.add_argument("--candidate", metavar="REPORT", help="candidate report (- for stdin)")
    parser.add_argument(
        "--policy", metavar="POLICY", help="validate PATH... with this policy as the candidate"
    )
    parser.add_argument(
        "--format",
        choices=FORMAT_CHOICES,
        default=None,
        help="input format of PATH... (default: auto-detect; with --policy only)",
    )
    parser.add_argument(
        "--fail-under",
        type=score_arg,
        default=None,
        metavar="N",
        help="minimum passing score for PATH..., 0..100 (default 70; with --policy only)",
    )
    parser.add_argument(
        "--fail-on",
        choices=[m.value for m in GateMode],
        default=GateMode.REGRESSIONS.value,
        help="regressions (default): new errors, pass->fail, added failing traces, "
        "score drops; failures: any failing candidate trace; never: report only",
    )
    parser.add_argument(
        "--max-score-drop",
        type=score_arg,
        default=None,
        metavar="N",
        help="with --fail-on regressions, also fail when a trace's score falls by more than N",
    )
    for renderer in file_renderers("compare"):
        parser.add_argument(
            f"--{renderer.name}-out",
            metavar="FILE",
            dest=f"out_{renderer.name}",
            help=f"write the {renderer.description} to FILE",
        )
    parser.add_argument(
        "--candidate-json-out",
        metavar="FILE",
        help="save the candidate as a JSON report (the next baseline)",
    )
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")
    parser.add_argument("paths", nargs="*", metavar="PATH", help="trace inputs (with --policy)")
    parser.set_defaults(handler=run)


def _misuse(args: argparse.Namespace) -> str | None:
    if (args.candidate is None) == (args.policy is None):
        return "give exactly one of --candidate REPORT or --policy POLICY PATH..."
    if args.candidate is not None and args.paths:
        return "trace PATHs are validated only with --policy, not with --candidate"
    if args.policy is not None and not args.paths:
        return "--policy needs at least one trace PATH"
    stdin_users = [args.baseline, args.candidate, *args.paths].count(STDIN)
    if stdin_users > 1:
        return "standard input (-) can be read only once"
    return None


def _ignored(args: argparse.Namespace) -> list[str]:
    """Options that have no effect in this combination: warned about, not refused."""
    notes = []
    if args.candidate is not None:
        for flag, value in (("--format", args.format), ("--fail-under", args.fail_under)):
            if value is not None:
                notes.append(f"{flag} has no effect with --candidate (it applies to trace PATHs)")
    if args.max_score_drop is not None and args.fail_on != GateMode.REGRESSIONS.value:
        notes.append(f"--max-score-drop has no effect with --fail-on {args.fail_on}")
    return notes


def _read(path: str, io: Streams) -> tuple[RunReport, bytes]:
    name = display_path(path)
    try:
        if path == STDIN:
            data = io.stdin.read() if io.stdin is not None else b""
        else:
            data = Path(path).read_bytes()
    except OSError as exc:
        raise ReportError(f"{name}: cannot read: {exc.strerror or exc}") from None
    return read_report(data, name), data


def _run_candidate(args: argparse.Namespace, io: Streams) -> RunReport:
    """Validate PATH... now; unreadable inputs are reported on stderr."""
    policy = load_policy(args.policy)
    fail_under = DEFAULT_FAIL_UNDER if args.fail_under is None else args.fail_under
    stream = evaluate_stream(
        iter_traces(args.paths, args.format or AUTO, io.stdin), Evaluator(policy, fail_under)
    )
    run = collect(policy, stream)
    for failure in run.input_errors:
        io.error(f"{failure.location()}: {failure.message}")
    if not run.reports and not run.input_errors:
        io.warn("no traces found in the given paths: every baseline trace counts as removed")
    seen: dict[str, str | None] = {}
    for report in run.reports:
        if report.trace_id in seen:
            first = seen[report.trace_id] or "an earlier input"
            raise ReportError(
                f"{report.source_path or '<input>'}: duplicate trace_id {report.trace_id!r} "
                f"(also in {first})"
            )
        seen[report.trace_id] = report.source_path
    return run


def _load(args: argparse.Namespace, io: Streams) -> tuple[RunReport, RunReport, str | None] | None:
    """Both reports, and a candidate report's text; None (after an error line) if invalid."""
    try:
        baseline, _ = _read(args.baseline, io)
        if args.candidate is not None:
            candidate, data = _read(args.candidate, io)
            # The candidate is already a report: it is saved as given (minus a BOM).
            return baseline, candidate, data.decode("utf-8-sig")
        return baseline, _run_candidate(args, io), None
    except (ReportError, PolicyError) as exc:
        io.error(str(exc))
        return None


def run(args: argparse.Namespace, io: Streams) -> int:
    problem = _misuse(args)
    if problem is not None:
        io.error(problem)
        return EXIT_USAGE
    for note in _ignored(args):
        io.warn(note)
    loaded = _load(args, io)
    if loaded is None:
        return EXIT_INPUT
    baseline, candidate, candidate_text = loaded
    options = GateOptions(GateMode(args.fail_on), args.max_score_drop)
    comparison = compare(baseline, candidate, options)
    if not args.quiet:
        render_options = RenderOptions(tool_version=__version__, color=io.color())
        io.out.write(get_renderer("compare", "console").render(comparison, render_options))
    written = True
    for renderer in file_renderers("compare"):
        target = getattr(args, f"out_{renderer.name}")
        if target:
            text = renderer.render(comparison, RenderOptions(__version__))
            written &= write_text(target, text, io)
    if args.candidate_json_out:
        if candidate_text is None:  # validated now: exactly what `arh validate --json-out` writes
            candidate_text = get_renderer("run", "json").render(
                candidate, RenderOptions(__version__)
            )
        written &= write_text(args.candidate_json_out, candidate_text, io)
    ok = comparison.gate.passed and not candidate.input_errors and written
    return EXIT_OK if ok else EXIT_INPUT
