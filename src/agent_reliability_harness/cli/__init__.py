"""The `arh` command line: argument parsing, I/O and exit codes, nothing else.

Each subcommand lives in its own module with `add_parser(subparsers)` and
`run(args, io) -> int`; this module only dispatches.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from ..version import __version__
from .common import EXIT_INPUT, EXIT_USAGE, Streams

# Subcommand modules, imported when a parser is built (`arh --version` needs none of them).
COMMANDS = ("validate_cmd", "compare_cmd", "convert_cmd", "rules_cmd", "check_policy_cmd")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arh",
        description="Agent Reliability Harness: check what tool-using AI agents actually did.",
    )
    parser.add_argument("--version", action="version", version=f"arh {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None, streams: Streams | None = None) -> int:
    """Run `arh` with `argv` (default: sys.argv[1:]); returns the exit code."""
    io = streams or Streams.system()
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments == ["--version"]:
        print(f"arh {__version__}", file=io.out)
        return 0
    parser = build_parser()
    try:
        args = parser.parse_args(arguments)
    except SystemExit as exc:  # argparse: --help/--version (0) or misuse (2)
        return int(exc.code or 0) if isinstance(exc.code, int) else EXIT_USAGE
    if args.command is None:
        parser.print_usage(io.err)
        return EXIT_USAGE
    try:
        return int(args.handler(args, io))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_INPUT
    except Exception as exc:  # last resort: never show a traceback to a user
        if os.environ.get("ARH_DEBUG"):
            raise
        io.error(
            f"internal error ({type(exc).__name__}: {exc}); rerun with ARH_DEBUG=1 and report it"
        )
        return EXIT_INPUT


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
