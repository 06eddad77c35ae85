"""`arh completion bash|zsh`: print a shell completion script built from the parser."""

from __future__ import annotations

import argparse
from typing import Any

from .common import COMMANDS, EXIT_OK, Streams

SHELLS = ("bash", "zsh")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "completion",
        help=COMMANDS["completion"][1],
        description="Print a completion script for SHELL. bash: `source <(arh completion "
        "bash)` (or save it in ~/.local/share/bash-completion/completions/arh); zsh: save it "
        "as `_arh` in a directory on $fpath (or `source <(arh completion zsh)` after "
        "compinit).",
    )
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete for")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, io: Streams) -> int:
    from . import build_parser  # noqa: PLC0415 - every subcommand, built in full
    from .completion import SCRIPTS  # noqa: PLC0415

    io.out.write(SCRIPTS[args.shell](build_parser()))
    return EXIT_OK


__all__ = ["add_parser", "run"]
