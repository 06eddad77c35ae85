"""`arh formats`: every format ARH reads (built-in and plugin), its family and the
evidence that claims a document for it."""

from __future__ import annotations

import argparse
from typing import Any

from ..adapters.core.listing import formats_listing
from .common import EXIT_INPUT, EXIT_OK, Streams


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "formats",
        help="list every input format",
        description="List every input format ARH reads, built-in and plugin (entry point "
        "group arh.formats; imports them), with its family and what claims a document "
        "for it. A plugin that cannot be used is an error line (exit 1).",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, io: Streams) -> int:
    table, problems = formats_listing()
    io.out.write(table)
    for problem in problems:
        io.error(problem)
    return EXIT_INPUT if problems else EXIT_OK
