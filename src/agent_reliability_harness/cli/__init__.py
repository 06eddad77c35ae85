"""The `arh` command line: argument parsing, I/O and exit codes, nothing else.

Each subcommand lives in its own module with `add_parser(subparsers)` and
`run(args, io) -> int`; this module only dispatches, importing just the module of
the command being run (the others get a one-line stub in the parser).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
from collections.abc import Sequence
from types import FrameType
from typing import Any

from ..version import __version__
from . import stdio
from .common import COMMANDS, EXIT_INPUT, EXIT_USAGE, Streams


class _Parser(argparse.ArgumentParser):
    """argparse's parser, except that declaring an argument does not size the terminal:
    argparse makes a help formatter in every add_argument only to check the metavar, and
    sizing one imports shutil (~1.5 ms with the compression modules it imports). Help,
    usage and error text are formatted as argparse formats them. Subcommand parsers are
    of this class too (argparse makes them of the parent's class)."""

    _declaring = False

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        self._declaring = True
        try:
            return super().add_argument(*args, **kwargs)
        finally:
            self._declaring = False

    def _get_formatter(self) -> argparse.HelpFormatter:
        if self._declaring:  # only _format_args is asked of it, which no width changes
            make: Any = self.formatter_class  # every HelpFormatter takes a width
            formatter: argparse.HelpFormatter = make(prog=self.prog, width=80)
            return formatter
        return super()._get_formatter()


def build_parser(command: str | None = None, listed: bool = True) -> argparse.ArgumentParser:
    """The parser; every subcommand in full when `command` is None, else only that one,
    and the others by name and help when `listed` (only `arh --help` shows them)."""
    parser = _Parser(
        prog="arh",
        description="Agent Reliability Harness: check what tool-using AI agents actually did.",
    )
    parser.add_argument("--version", action="version", version=f"arh {__version__}")
    # prog given: argparse would otherwise format the usage to find it ("arh" all the same).
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", prog="arh")
    for name, (module, help_text) in COMMANDS.items():
        if command is None or name == command:
            importlib.import_module(f"{__name__}.{module}").add_parser(subparsers)
        elif listed:
            subparsers.add_parser(name, help=help_text)
    return parser


def _command(arguments: list[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not an option)."""
    first = next((a for a in arguments if not a.startswith("-")), None)
    return first if first in COMMANDS else None


class Terminated(KeyboardInterrupt):
    """SIGTERM: unwinds like Ctrl-C, so report files being written are cleaned up."""


def _terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def main(argv: Sequence[str] | None = None, streams: Streams | None = None) -> int:
    """Run `arh` with `argv` (default: sys.argv[1:]); returns the exit code."""
    system = streams is None
    if streams is None:
        stdio.fill_closed_descriptors()
        streams = Streams.system()
    out = stdio.guarded(streams.out)
    io = Streams(stdio.as_text(out), stdio.quiet(streams.err), streams.stdin)
    code = _main(sys.argv[1:] if argv is None else list(argv), io, system)
    out.flush()
    failure = out.failure
    if system:
        failure = stdio.flush_system() or failure
    if failure is not None:
        message = failure.message()
        if message is not None:
            io.error(message)
        code = code or EXIT_INPUT
    return code


def _main(arguments: list[str], io: Streams, system: bool) -> int:
    if arguments == ["--version"]:
        io.out.write(f"arh {__version__}\n")
        return 0
    command = _command(arguments)
    # Only options before the command (`arh -h validate`) can show the list of commands;
    # each listed one costs a parser (~0.4 ms, most of it in argparse's gettext calls).
    before = arguments[: arguments.index(command)] if command is not None else arguments
    listed = command is None or any(a.startswith("-") for a in before)
    parser = build_parser(command, listed)
    try:
        # argparse prints to sys.stdout/sys.stderr and ignores write errors: give it these.
        with contextlib.redirect_stdout(io.out), contextlib.redirect_stderr(io.err):
            args = parser.parse_args(arguments)
    except SystemExit as exc:  # argparse: --help/--version (0) or misuse (2)
        return int(exc.code or 0) if isinstance(exc.code, int) else EXIT_USAGE
    if args.command is None or not hasattr(args, "handler"):
        parser.print_usage(io.err)
        return EXIT_USAGE
    return _dispatch(args, io, system)


def _dispatch(args: argparse.Namespace, io: Streams, system: bool) -> int:
    from ..reading import input_limit, max_input_bytes  # noqa: PLC0415 - not at --version

    try:
        max_input_bytes()
    except ValueError as exc:  # $ARH_MAX_INPUT_BYTES is not a size
        io.error(str(exc))
        return EXIT_USAGE
    previous = None
    if system:
        try:
            previous = signal.signal(signal.SIGTERM, _terminated)
        except ValueError:  # not the main thread
            previous = None
    try:
        with input_limit(getattr(args, "max_input_bytes", None)):
            return int(args.handler(args, io))
    except Terminated:
        return 128 + signal.SIGTERM
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
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
