"""`arh cache stats|clear DIR`: what a `--cache` directory holds, or empty it (the store
itself is pipeline/cache_store.py)."""

from __future__ import annotations

import argparse
from typing import Any

from .common import COMMANDS, EXIT_INPUT, EXIT_OK, Streams


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "cache",
        help=COMMANDS["cache"][1],
        description="Show how many entries (and bytes) a --cache directory holds, or "
        "remove them all.",
    )
    parser.add_argument("action", choices=("stats", "clear"))
    parser.add_argument("location", metavar="DIR", help="the --cache directory (or URL)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, io: Streams) -> int:
    from ..errors import ArhError  # noqa: PLC0415
    from ..pipeline.cache_store import open_store  # noqa: PLC0415

    try:
        store = open_store(args.location)
        if args.action == "stats":
            io.out.write(store.stats().text())
        else:
            io.out.write(f"removed {store.clear()} entries\n")
    except ArhError as exc:
        io.error(str(exc))
        return EXIT_INPUT
    return EXIT_OK


__all__ = ["add_parser", "run"]
