"""`arh convert`: transcripts in, canonical trace JSON out (one document per input file)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..adapters import ADAPTERS, AUTO, FORMAT_CHOICES
from .common import (
    COMMANDS,
    EXIT_INPUT,
    EXIT_OK,
    EXIT_USAGE,
    Streams,
    add_identity_args,
    add_limit_arg,
    identity_from,
    streams_problem,
)


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "convert",
        help=COMMANDS["convert"][1],
        description="Convert recorded transcripts (or traces) to canonical ARH trace JSON.\n"
        "Each FILE prints one JSON document: the trace object, or an array when the\n"
        "file holds several traces. FILE may be - for standard input.",
        epilog="formats (auto-detection tries them in this order; see docs/adapters.md):\n"
        + "\n".join(f"  {a.name:<20} {a.description}" for a in ADAPTERS),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--format", choices=FORMAT_CHOICES, default=AUTO, help="input format (default: auto-detect)"
    )
    add_identity_args(parser)
    add_limit_arg(parser)
    parser.add_argument("paths", nargs="+", metavar="FILE")
    parser.set_defaults(handler=run)


def dumps(value: Any) -> str:
    """The deterministic JSON text of converted traces: indent 2, trailing newline."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def run(args: argparse.Namespace, io: Streams) -> int:
    problem = streams_problem(args.paths, [])
    if problem is not None:
        io.error(problem)
        return EXIT_USAGE
    from ..pipeline.convert import convert  # noqa: PLC0415

    by_file: dict[str, list[Any]] = {}
    failed = False
    for source, traces, problem in convert(args.paths, args.format, identity_from(args), io.stdin):
        if problem is not None:
            io.error(f"{source}: {problem}")
            failed = True
        else:
            by_file.setdefault(source, []).extend(traces)
    for traces in by_file.values():
        io.out.write(dumps(traces[0] if len(traces) == 1 else traces))
    return EXIT_INPUT if failed else EXIT_OK
