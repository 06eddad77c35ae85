"""What every subcommand shares: exit codes, streams and output-file writing."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO, TextIO

EXIT_OK = 0
EXIT_INPUT = 1  # a trace failed, the gate failed, or an input was invalid
EXIT_USAGE = 2


@dataclass
class Streams:
    out: TextIO
    err: TextIO
    stdin: BinaryIO | None

    @classmethod
    def system(cls) -> Streams:
        return cls(sys.stdout, sys.stderr, sys.stdin.buffer if sys.stdin else None)

    def error(self, message: str) -> None:
        print(f"error: {message}", file=self.err)

    def warn(self, message: str) -> None:
        print(f"warning: {message}", file=self.err)

    def color(self) -> bool:
        isatty = getattr(self.out, "isatty", None)
        return bool(isatty and isatty()) and "NO_COLOR" not in os.environ


def write_text(path: str, text: str, io: Streams) -> bool:
    """Write an output file (`-` = stdout); reports a failure on stderr and returns False."""
    if path == "-":
        io.out.write(text)
        return True
    try:
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except OSError as exc:
        io.error(f"{path}: cannot write: {exc.strerror or exc}")
        return False
    return True


def score_arg(value: str) -> float:
    """argparse type for a score threshold in 0..100."""
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not 0 <= number <= 100:
        raise argparse.ArgumentTypeError(f"must be between 0 and 100 (got {value})")
    return number


def add_identity_args(parser: argparse.ArgumentParser) -> None:
    """`--trace-id`, `--agent-name`, `--workflow`: labels for converted transcripts."""
    group = parser.add_argument_group("trace labels (override what the input records)")
    group.add_argument(
        "--trace-id", metavar="ID", help="trace id (with several traces: ID-1, ID-2, ...)"
    )
    group.add_argument("--agent-name", metavar="NAME", help="agent name")
    group.add_argument("--workflow", metavar="NAME", help="workflow label")


if TYPE_CHECKING:
    from ..adapters import Identity


def identity_from(args: argparse.Namespace) -> Identity | None:
    """The labels given on the command line, or None when none was."""
    labels = (args.trace_id, args.agent_name, args.workflow)
    if all(label is None for label in labels):
        return None
    from ..adapters import Identity  # noqa: PLC0415 - keeps `arh --version` light

    return Identity(*labels)
