"""`arh validate`: traces and a policy in, reports out, exit 0/1/2."""

from __future__ import annotations

import argparse
from typing import Any

from ..adapters import AUTO, FORMAT_CHOICES
from ..api import collect, evaluate_stream, iter_traces, load_policy
from ..engine import Evaluator
from ..errors import PolicyError
from ..models.report import InputFailure, TraceReport
from ..render import RenderOptions, file_renderers, get_renderer
from ..scoring import DEFAULT_FAIL_UNDER
from ..version import __version__
from .common import (
    EXIT_INPUT,
    EXIT_OK,
    Streams,
    add_identity_args,
    identity_from,
    score_arg,
    write_text,
)


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
    parser.add_argument("paths", nargs="+", metavar="PATH")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, io: Streams) -> int:
    try:
        policy = load_policy(args.policy)
    except PolicyError as exc:
        io.error(str(exc))
        return EXIT_INPUT
    evaluator = Evaluator(policy, args.fail_under)

    def reported(items: Any) -> Any:
        for item in items:
            if isinstance(item, InputFailure):
                io.error(f"{item.location()}: {item.message}")
            yield item

    positions = any(
        r.needs_positions and getattr(args, f"out_{r.name}") for r in file_renderers("run")
    )
    traces = iter_traces(
        args.paths, args.format, io.stdin, with_positions=positions, identity=identity_from(args)
    )
    stream = evaluate_stream(traces, evaluator)
    report = collect(policy, reported(stream))
    options = RenderOptions(tool_version=__version__, color=io.color())
    if not args.quiet:
        io.out.write(get_renderer("run", "console").render(report, options))
    if not report.reports and not report.input_errors:
        io.warn("no traces found in the given paths")
    written = True
    for renderer in file_renderers("run"):
        target = getattr(args, f"out_{renderer.name}")
        if target:
            written &= write_text(target, renderer.render(report, RenderOptions(__version__)), io)
    return EXIT_OK if report.ok and written else EXIT_INPUT


__all__ = ["TraceReport", "add_parser", "run"]
