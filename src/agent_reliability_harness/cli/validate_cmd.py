"""`arh validate`: traces and policies in, reports out, exit 0/1/2 (argv -> options and
sinks; the run itself is `pipeline.run`)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ..adapters import AUTO, FORMAT_CHOICES
from ..render import RenderOptions, file_renderers
from ..scoring import DEFAULT_FAIL_UNDER
from ..version import __version__
from .common import (
    COMMANDS,
    EXIT_INPUT,
    EXIT_OK,
    EXIT_USAGE,
    Streams,
    add_cache_args,
    add_identity_args,
    add_policy_args,
    add_run_args,
    add_show_arg,
    add_strict_arg,
    add_task_args,
    cache_options,
    cannot_create,
    identity_from,
    load_run_policies,
    policy_references,
    run_args_problem,
    score_arg,
    streams_problem,
)

if TYPE_CHECKING:
    from ..pipeline import RunOptions


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "validate",
        help=COMMANDS["validate"][1],
        description="Validate traces against a policy, score them and write reports. "
        "PATH is a trace file (object or array), a .jsonl file, a directory "
        "(walked for *.json, *.jsonl, and the *.traj, *.pb, *.binpb, *.eval and *.af files "
        "of SWE-agent, OTLP protobuf, Inspect and Letta), a URL read through fsspec (s3://...) "
        "or - for standard input.",
    )
    add_policy_args(parser)
    parser.add_argument(
        "--fail-under",
        type=score_arg,
        default=DEFAULT_FAIL_UNDER,
        metavar="N",
        help="minimum passing score, 0..100 (default 70)",
    )
    parser.add_argument(
        "--format", choices=FORMAT_CHOICES, default=AUTO, help="input format (default: auto-detect)"
    )
    for renderer in file_renderers("run"):
        parser.add_argument(
            f"--{renderer.name}-out",
            metavar="FILE",
            dest=f"out_{renderer.name}",
            help=f"write the {renderer.description} to FILE",
        )
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")
    add_show_arg(parser)
    add_strict_arg(parser)
    add_identity_args(parser)
    add_task_args(parser)
    group = parser.add_argument_group("coverage")
    group.add_argument(
        "--coverage",
        action="store_true",
        help="add a coverage section: per allowed tool its calls, traces, declared arguments "
        "passed and rules fired; the share of allowed tools called",
    )
    group.add_argument(
        "--min-tool-coverage",
        type=score_arg,
        default=None,
        metavar="P",
        help="fail (exit 1) when fewer than P%% of the allowed tools are called (0..100; "
        "implies --coverage)",
    )
    add_run_args(parser)
    add_cache_args(parser)
    parser.add_argument("paths", nargs="+", metavar="PATH")
    parser.set_defaults(handler=run)


def _coverage_gate(result: Any, minimum: float | None, io: Streams) -> bool:
    """Whether the run meets --min-tool-coverage (an error line says why not)."""
    if minimum is None:
        return True
    from ..compare.coverage import tool_share  # noqa: PLC0415

    share = tool_share(result.sections)
    if share is None:
        io.error("--min-tool-coverage: the policies allow no tools to cover")
        return False
    if share < minimum:
        io.error(f"tool coverage {share:g}% is below --min-tool-coverage {minimum:g}")
        return False
    return True


def _run_options(args: argparse.Namespace) -> RunOptions:
    from ..pipeline import RunOptions  # noqa: PLC0415

    return RunOptions(
        args.fail_under,
        args.format,
        identity_from(args),
        args.allow_empty,
        args.task_id_from,
        args.repeated,
        coverage=args.coverage or args.min_tool_coverage is not None,
        cache=cache_options(args),
    )


def run(args: argparse.Namespace, io: Streams) -> int:
    targets = [
        (r, getattr(args, f"out_{r.name}"))
        for r in file_renderers("run")
        if getattr(args, f"out_{r.name}") is not None
    ]
    problem = run_args_problem(args) or streams_problem(args.paths, [t for _, t in targets])
    if problem is not None:
        io.error(problem)
        return EXIT_USAGE
    # The pipeline is imported here, not at parser build time (`arh validate --help`).
    from .. import pipeline  # noqa: PLC0415
    from ..errors import ArhError, PolicyError  # noqa: PLC0415
    from .progress import Progress  # noqa: PLC0415

    if cannot_create([t for _, t in targets], io):
        return EXIT_INPUT
    try:
        policies, sections = load_run_policies(policy_references(args, io), args.strict, io)
    except PolicyError as exc:
        io.error(str(exc))
        return EXIT_INPUT
    progress = Progress.for_stream(io.err, args.paths, not args.quiet)
    sinks: list[pipeline.Sink] = [pipeline.ErrorSink(io, args.allow_empty, progress.clear)]
    if not args.quiet:
        show = args.show or io.default_show()
        shown = RenderOptions(tool_version=__version__, color=io.color(), show=show)
        # Each policy warning is on stderr already (load_run_policies): counted only.
        console = pipeline.ConsoleSink(
            io.out, shown, progress.clear, list_warnings=False, cache_note=args.cache is not None
        )
        sinks.append(console)
    context = pipeline.OutputContext(io.out, io, RenderOptions(__version__))
    sinks.extend(pipeline.output_sinks(targets, context))
    sinks.append(progress)
    try:
        executor = pipeline.make_executor(args.jobs, args.dask)
        result = pipeline.run(
            args.paths,
            policies,
            sinks,
            options=_run_options(args),
            executor=executor,
            stdin=io.stdin,
            sections=sections,
            messages=io,
        )
    except ArhError as exc:
        progress.clear()
        io.error(str(exc))
        return EXIT_INPUT
    covered = _coverage_gate(result, args.min_tool_coverage, io)
    return EXIT_OK if result.passed(args.allow_empty) and covered else EXIT_INPUT


__all__ = ["add_parser", "run"]
