"""`arh validate`: traces and a policy in, reports out, exit 0/1/2."""

from __future__ import annotations

import argparse
import contextlib
from typing import Any

from .. import parallel
from ..adapters import AUTO, FORMAT_CHOICES, WALK_SUFFIXES
from ..api import load_policy
from ..engine import Evaluator
from ..errors import PolicyError
from ..io import expand_paths, iter_units
from ..parallel import default_jobs
from ..render import RenderOptions, file_renderers
from ..scoring import DEFAULT_FAIL_UNDER
from ..stream import (
    EncodeOptions,
    Totals,
    UnitProcessor,
    export_lines_joined,
    group_export_lines,
)
from ..version import __version__
from .common import (
    EXIT_INPUT,
    EXIT_OK,
    Streams,
    add_identity_args,
    identity_from,
    score_arg,
)
from .progress import Progress
from .sinks import STREAMING, CollectSink, ConsoleSink, ErrorSink, JsonReportSink, Sink


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="check traces against a policy",
        description="Validate traces against a policy, score them and write reports. "
        "PATH is a trace file (object or array), a .jsonl file, a directory "
        "(walked for *.json and *.jsonl) or - for standard input.",
    )
    parser.add_argument("--policy", required=True, metavar="POLICY", help="policy JSON file")
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
    add_identity_args(parser)
    parser.add_argument(
        "--jobs",
        type=jobs_arg,
        default=None,
        metavar="N",
        help="worker processes (default: the number of CPUs); output does not depend on it",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, io: Streams) -> int:
    try:
        policy = load_policy(args.policy)
    except PolicyError as exc:
        io.error(str(exc))
        return EXIT_INPUT
    targets = [
        (r, getattr(args, f"out_{r.name}"))
        for r in file_renderers("run")
        if getattr(args, f"out_{r.name}")
    ]
    whole = [(r, target) for r, target in targets if r.name not in STREAMING]
    render = RenderOptions(tool_version=__version__, color=io.color())
    options = EncodeOptions(
        json=any(r.name == "json" for r, _ in targets),
        console=not args.quiet,
        keep_reports=bool(whole),
        render=render,
    )
    show = _show_progress(args, io)
    progress = Progress(io.err, _total_bytes(args.paths) if show else None, show)
    sinks: list[Sink] = [ErrorSink(io, progress)]
    if not args.quiet:
        sinks.append(ConsoleSink(io, progress))
    sinks.extend(JsonReportSink(t, policy.policy_id, io) for r, t in targets if r.name == "json")
    if whole:
        sinks.append(CollectSink(policy.policy_id, whole, RenderOptions(__version__), io))

    positions = any(r.needs_positions for r, _ in whole)
    processor = UnitProcessor(
        Evaluator(policy, args.fail_under),
        args.format,
        options,
        identity=identity_from(args),
        with_positions=positions,
    )
    totals = Totals()
    jobs = args.jobs or default_jobs()
    # With workers, a JSONL file goes to them as byte ranges that they read themselves.
    ranges = parallel.CHUNK_BYTES if jobs > 1 else 0
    units = group_export_lines(
        iter_units(
            args.paths,
            io.stdin,
            ranges,
            export_lines_joined if ranges else None,
            WALK_SUFFIXES,
        )
    )
    for batch in parallel.batches(units, processor, jobs, args.policy):
        totals.add(batch)
        progress.update(batch.traces, batch.size)
        for sink in sinks:
            sink.add(batch)
    progress.clear()
    summary = totals.builder.build()
    written = True
    for sink in sinks:
        written &= sink.finish(summary, totals.failures)
    if not summary.total_traces and not totals.failures:
        io.warn("no traces found in the given paths")
    ok = not totals.failures and summary.failed_traces == 0
    return EXIT_OK if ok and written else EXIT_INPUT


def _show_progress(args: argparse.Namespace, io: Streams) -> bool:
    isatty = getattr(io.err, "isatty", None)
    return not args.quiet and bool(isatty and isatty())


def _total_bytes(paths: list[str]) -> int | None:
    """Input size for the progress bar; None when standard input is read."""
    total = 0
    for _name, path, problem in expand_paths(paths, WALK_SUFFIXES):
        if path is None and problem is None:
            return None
        if path is not None:
            with contextlib.suppress(OSError):
                total += path.stat().st_size
    return total


def jobs_arg(value: str) -> int:
    """argparse type for --jobs: a positive integer."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (got {value})")
    return number


__all__ = ["add_parser", "run"]
