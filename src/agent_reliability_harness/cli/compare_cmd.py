"""`arh compare`: a baseline report against a candidate (a report, or traces run on the spot).

Exit 0 when the gate passes; 1 when it fails or an input is invalid; 2 on misuse. argv
-> options and outputs; the comparison and its gate are `pipeline.regression`.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from ..adapters import AUTO, FORMAT_CHOICES
from ..render import file_renderers
from ..scoring import DEFAULT_FAIL_UNDER
from ..version import __version__
from .common import (
    COMMANDS,
    EXIT_INPUT,
    EXIT_OK,
    EXIT_USAGE,
    Streams,
    add_run_args,
    add_show_arg,
    add_strict_arg,
    add_task_args,
    cannot_create,
    load_run_policies,
    policy_help,
    run_args_problem,
    score_arg,
    streams_problem,
)

# The gate modes (compare.model.GateMode), spelled here so that building this parser
# does not import the compare engine.
GATE_MODES = ("regressions", "failures", "never")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "compare",
        help=COMMANDS["compare"][1],
        description="Compare a baseline report (from `arh validate --json-out`) with a "
        "candidate: another report (--candidate) or traces validated now (--policy "
        "POLICY PATH...). Fails only on regressions by default.",
    )
    parser.add_argument(
        "--baseline", required=True, metavar="REPORT", help="baseline report (- for stdin)"
    )
    parser.add_argument("--candidate", metavar="REPORT", help="candidate report (- for stdin)")
    parser.add_argument(
        "--policy",
        action="append",
        metavar="POLICY",
        help="validate PATH... as the candidate: " + policy_help(),
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
        choices=GATE_MODES,
        default=GATE_MODES[0],
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
    parser.add_argument(
        "--max-coverage-drop",
        type=score_arg,
        default=None,
        metavar="P",
        help="fail when the share of allowed tools called falls by more than P points (both "
        "reports made with --coverage; a candidate run with --policy counts coverage when the "
        "baseline has it); without it a coverage change is shown, not gated",
    )
    add_strict_arg(parser, " (with --policy only)")
    _add_outputs(parser)
    add_task_args(parser, compare=True)
    add_run_args(parser, "PATH... (with --policy)")
    parser.add_argument("paths", nargs="*", metavar="PATH", help="trace inputs (with --policy)")
    parser.set_defaults(handler=run)


def _add_outputs(parser: argparse.ArgumentParser) -> None:
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
    add_show_arg(parser, "changed traces")


def _misuse(args: argparse.Namespace) -> str | None:
    if (args.candidate is None) == (args.policy is None):
        return "give exactly one of --candidate REPORT or --policy POLICY PATH..."
    if args.candidate is not None and args.paths:
        return "trace PATHs are validated only with --policy, not with --candidate"
    if args.policy is not None and not args.paths:
        return "--policy needs at least one trace PATH"
    inputs = [args.baseline, args.candidate, *args.paths]
    outputs = [t for _, t in _outputs(args)] + [args.candidate_json_out]
    return streams_problem(inputs, outputs) or run_args_problem(args)


def _ignored(args: argparse.Namespace) -> list[str]:
    """Options that have no effect in this combination: warned about, not refused."""
    notes = []
    if args.candidate is not None:
        given = (
            ("--format", args.format),
            ("--fail-under", args.fail_under),
            ("--jobs", args.jobs),
            ("--dask", args.dask),
            ("--allow-empty", args.allow_empty or None),
            ("--strict", args.strict or None),
        )
        for flag, value in given:
            if value is not None:
                notes.append(f"{flag} has no effect with --candidate (it applies to trace PATHs)")
    for flag, value in (("--max-score-drop", args.max_score_drop), ("--alpha", args.alpha)):
        if value is not None and args.fail_on != GATE_MODES[0]:
            notes.append(f"{flag} has no effect with --fail-on {args.fail_on}")
    return notes


def _outputs(args: argparse.Namespace) -> list[tuple[Any, str]]:
    return [
        (r, getattr(args, f"out_{r.name}"))
        for r in file_renderers("compare")
        if getattr(args, f"out_{r.name}") is not None
    ]


def run(args: argparse.Namespace, io: Streams) -> int:
    problem = _misuse(args)
    if problem is not None:
        io.error(problem)
        return EXIT_USAGE
    for note in _ignored(args):
        io.warn(note)
    from ..compare import GateMode, GateOptions  # noqa: PLC0415 - not at parser build time
    from ..pipeline import regression  # noqa: PLC0415

    files = _outputs(args)
    targets = [t for _, t in files]
    if args.candidate_json_out is not None:
        targets.append(args.candidate_json_out)
    if cannot_create(targets, io):
        return EXIT_INPUT
    loaded = _load(args, io, regression)
    if loaded is None:
        return EXIT_INPUT
    baseline, candidate = loaded
    show = args.show or io.default_show()
    outputs = regression.CompareOutputs(
        io.out, args.quiet, io.color(), files, args.candidate_json_out, __version__, show
    )
    gate = GateOptions(
        GateMode(args.fail_on),
        args.max_score_drop,
        task_ids=args.task_id_from,
        max_coverage_drop=args.max_coverage_drop,
    )
    if args.alpha is not None:
        gate = replace(gate, alpha=args.alpha)
    if args.repeated:
        gate = replace(gate, repeated=True)
    _, passed = regression.gate(baseline, candidate, gate, outputs, io)
    return EXIT_OK if passed else EXIT_INPUT


def _load(args: argparse.Namespace, io: Streams, regression: Any) -> tuple[Any, Any] | None:
    """Both sides, or None (after an error line) if an input is invalid."""
    from ..errors import ArhError  # noqa: PLC0415
    from ..pipeline import RunOptions, make_executor  # noqa: PLC0415

    try:
        baseline, _ = regression.read_run_report(args.baseline, io.stdin)
        if args.candidate is not None:
            return baseline, regression.given_candidate(args.candidate, io.stdin)
        policies, sections = load_run_policies(args.policy, args.strict, io)
        fail_under = DEFAULT_FAIL_UNDER if args.fail_under is None else args.fail_under
        options = RunOptions(
            fail_under,
            args.format or AUTO,
            None,
            args.allow_empty,
            args.task_id_from,
            coverage=any(s.key == "coverage" for s in baseline.sections),
        )
        executor = make_executor(args.jobs, args.dask)
        candidate = regression.validate_candidate(
            args.paths,
            policies,
            options,
            io,
            executor=executor,
            stdin=io.stdin,
            sections=sections,
            trace_bodies=any(r.needs_traces for r, _ in _outputs(args)),
        )
    except ArhError as exc:
        io.error(str(exc))
        return None
    return baseline, candidate
