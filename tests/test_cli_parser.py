"""The CLI builds only the parser a command line needs: the same help, usage, errors and
parsed arguments as the parser that lists every command."""

from __future__ import annotations

import contextlib
import io

import pytest

from agent_reliability_harness.cli import _command, build_parser, main
from agent_reliability_harness.cli.common import COMMANDS, Streams


def run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def listing(args: list[str]) -> tuple[int, str, str]:
    """What the parser that lists every command prints and exits with for `args`."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            build_parser(_command(args)).parse_args(args)
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "args",
    [
        ["--help", "validate"],
        ["-h", "compare", "a.json"],
        ["validate", "--help"],
        ["convert", "-h"],
        ["validate", "--bogus"],
        ["validate", "--policy", "p.json", "t.json", "--version"],
        ["--bogus", "validate"],
        ["validate"],
    ],
)
def test_help_usage_and_errors_are_the_listing_parsers(args: list[str]) -> None:
    assert run(args) == listing(args)


def test_options_before_the_command_list_every_command() -> None:
    _, out, _ = run(["--help", "validate"])
    assert all(name in out for name in COMMANDS)


def test_a_command_parses_the_same_without_the_others() -> None:
    argv = ["validate", "--policy", "p.json", "--jobs", "2", "--quiet", "a.json", "b"]
    alone = build_parser("validate", listed=False).parse_args(argv)
    assert alone == build_parser().parse_args(argv)
