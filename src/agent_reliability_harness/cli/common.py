"""What every subcommand shares: exit codes, streams and the shared arguments."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, BinaryIO, TextIO

import msgspec

EXIT_OK = 0
EXIT_INPUT = 1  # a trace failed, the gate failed, or an input was invalid
EXIT_USAGE = 2

# Subcommand -> (module, one-line help). Only the module of the command being run is
# imported (`arh validate` imports none of compare's code).
COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("validate_cmd", "check traces against a policy"),
    "compare": ("compare_cmd", "gate a candidate run against a baseline report"),
    "convert": ("convert_cmd", "print transcripts as canonical traces"),
    "infer": ("infer_cmd", "learn a policy from runs known to be good"),
    "rules": ("rules_cmd", "list every rule"),
    "formats": ("formats_cmd", "list every input format (built-in and plugin)"),
    "check-policy": ("check_policy_cmd", "check policy files (with --strict, warnings fail)"),
    "completion": ("completion_cmd", "print a shell completion script (bash or zsh)"),
    "cache": ("cache_cmd", "show or clear a --cache directory"),
}

# `--show` (render.base.SHOW_MODES, spelled here so that building the parser imports
# no renderer).
SHOW_MODES = ("all", "failures", "summary")


def _one_line(message: str) -> str:
    # Messages quote file names and trace text: one line, no control sequences.
    from ..render._escape import term  # noqa: PLC0415 - not for `arh --version`

    return term(message)


class Streams(msgspec.Struct):
    out: TextIO
    err: TextIO
    stdin: BinaryIO | None

    @classmethod
    def system(cls) -> Streams:
        return cls(sys.stdout, sys.stderr, sys.stdin.buffer if sys.stdin else None)

    def error(self, message: str) -> None:
        self.err.write(f"error: {_one_line(message)}\n")

    def warn(self, message: str) -> None:
        self.err.write(f"warning: {_one_line(message)}\n")

    def terminal(self) -> bool:
        """Whether standard output is a terminal."""
        isatty = getattr(self.out, "isatty", None)
        try:
            return bool(isatty and isatty())
        except ValueError:  # closed
            return False

    def color(self, env: Mapping[str, str] | None = None) -> bool:
        """Colour on a terminal (not TERM=dumb). A non-empty FORCE_COLOR forces it, even
        into a file or pipe; otherwise a non-empty NO_COLOR turns it off (no-color.org:
        `NO_COLOR=` empty does not)."""
        env = os.environ if env is None else env
        if env.get("FORCE_COLOR"):
            return True
        if env.get("NO_COLOR"):
            return False
        return self.terminal() and env.get("TERM") != "dumb"

    def default_show(self, env: Mapping[str, str] | None = None) -> str:
        """`--show` when not given: every trace on a terminal; only the failing ones in CI
        (a non-empty CI variable other than false/0, as CI services set it) when the
        output goes to a log; every trace otherwise."""
        env = os.environ if env is None else env
        in_ci = env.get("CI", "").strip().lower() not in ("", "0", "false")
        return "failures" if in_ci and not self.terminal() else "all"


def score_arg(value: str) -> float:
    """argparse type for a score threshold in 0..100."""
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not 0 <= number <= 100:
        raise argparse.ArgumentTypeError(f"must be between 0 and 100 (got {value})")
    return number


def jobs_arg(value: str) -> int:
    """argparse type for --jobs: a positive integer."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (got {value})")
    return number


def label_arg(value: str) -> str:
    """argparse type for a trace label: text that can be written to every report (a
    command line that is not valid UTF-8 arrives with surrogate escapes)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise argparse.ArgumentTypeError("not valid UTF-8") from None
    return value


def size_arg(value: str) -> int:
    """argparse type for a byte count: 1048576, 512K, 64M, 2G."""
    from ..reading import parse_size  # noqa: PLC0415 - keeps the parser light

    try:
        return parse_size(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_limit_arg(parser: argparse.ArgumentParser) -> None:
    """`--max-input-bytes`: the most one input may hold in memory (io.py)."""
    parser.add_argument(
        "--max-input-bytes",
        type=size_arg,
        default=None,
        metavar="SIZE",
        help="refuse an input (a file read whole, a JSONL line, a policy, a report) larger "
        "than SIZE bytes (512M, 2G, ...; default 1G or $ARH_MAX_INPUT_BYTES)",
    )


def add_identity_args(parser: argparse.ArgumentParser) -> None:
    """`--trace-id`, `--agent-name`, `--workflow`: labels for converted transcripts."""
    group = parser.add_argument_group("trace labels (override what the input records)")
    group.add_argument(
        "--trace-id",
        metavar="ID",
        type=label_arg,
        help="trace id (with several traces: ID-1, ID-2, ...)",
    )
    group.add_argument("--agent-name", metavar="NAME", type=label_arg, help="agent name")
    group.add_argument("--workflow", metavar="NAME", type=label_arg, help="workflow label")


def streams_problem(inputs: list[str], outputs: list[str]) -> str | None:
    """Misuse of standard input and output: `-` read twice, or written twice."""
    if inputs.count("-") > 1:
        return "standard input (-) can be read only once"
    if outputs.count("-") > 1:
        return "only one output can be written to standard output (-)"
    return None


def cannot_create(targets: list[str], io: Streams) -> bool:
    """Report every output file that cannot be created (before a run starts, not after)."""
    from ..atomic import check_creatable  # noqa: PLC0415
    from ..io import EMPTY_NAME, shown_name  # noqa: PLC0415

    failed = False
    for target in targets:
        why = check_creatable(target)
        if why is not None:
            io.error(f"{shown_name(target) or EMPTY_NAME}: cannot write: {why}")
            failed = True
    return failed


def add_show_arg(parser: argparse.ArgumentParser, what: str = "traces") -> None:
    """`--show all|failures|summary`: what the console prints per trace."""
    parser.add_argument(
        "--show",
        choices=SHOW_MODES,
        default=None,
        help=f"console output: all {what}, only the failing ones, or the summary alone "
        "(default: all on a terminal, failures when CI is set and output is not a terminal)",
    )


def task_ids_arg(value: str) -> object:
    """argparse type for --task-id-from: an RE2 pattern with one capturing group."""
    from ..models.task_ids import TaskIds  # noqa: PLC0415 - only when the flag is given

    try:
        return TaskIds.parse(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{value!r} {exc}") from None


def alpha_arg(value: str) -> object:
    """argparse type for --alpha: a significance level strictly between 0 and 1, taken
    at its decimal value (0.05 is exactly 1/20)."""
    from fractions import Fraction  # noqa: PLC0415

    try:
        alpha = Fraction(value.strip())
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not 0 < alpha < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, exclusive (got {value})")
    return alpha


def add_task_args(parser: argparse.ArgumentParser, compare: bool = False) -> None:
    """`--task-id-from` and `--repeated` (and for compare `--alpha`): repeated runs."""
    group = parser.add_argument_group("repeated runs (runs of one task share its task_id)")
    group.add_argument(
        "--task-id-from",
        type=task_ids_arg,
        default=None,
        metavar="REGEX",
        help="take each run's task id from its trace_id: the one capturing group of REGEX "
        "(RE2, searched), e.g. '^(.*)-run-[0-9]+$'; wins over a task_id the trace records",
    )
    if compare:
        group.add_argument(
            "--repeated",
            action="store_true",
            help="compare tasks statistically even when a side has one run per task "
            "(on by default when both sides hold a task with 2+ runs)",
        )
        group.add_argument(
            "--alpha",
            type=alpha_arg,
            default=None,
            metavar="P",
            help="significance level of the one-sided Fisher exact test that makes a task "
            "or rule regressed (default 0.05)",
        )
    else:
        group.add_argument(
            "--repeated",
            action="store_true",
            help="add the per-task section (pass@k, pass^k, flaky rules) even with one run "
            "per task (on by default when a task has 2+ runs)",
        )


def add_run_args(parser: argparse.ArgumentParser, what: str = "PATH...") -> None:
    """How traces are run: `--jobs`, `--dask`, `--allow-empty`."""
    parser.add_argument(
        "--jobs",
        type=jobs_arg,
        default=None,
        metavar="N",
        help="worker processes (default: the number of CPUs); output does not depend on it",
    )
    parser.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run on the Dask cluster whose scheduler is at ADDRESS (tcp://host:port); "
        "needs the dask extra; output does not depend on it",
    )
    parser.add_argument(
        "--allow-empty",
        action="store_true",
        help=f"accept a run whose {what} hold no trace at all (by default it fails)",
    )
    add_limit_arg(parser)


def add_cache_args(parser: argparse.ArgumentParser) -> None:
    """`--cache DIR` and `--cache-max-size SIZE` (docs/cache.md)."""
    parser.add_argument(
        "--cache",
        metavar="DIR",
        help="reuse the results of traces judged before from DIR (a directory or an fsspec "
        "URL), and keep the new ones there; reports are the same bytes as without it",
    )
    parser.add_argument(
        "--cache-max-size",
        type=size_arg,
        default=None,
        metavar="SIZE",
        help="evict the least recently used cache entries beyond SIZE (512M, 2G, ...; default 1G)",
    )


if TYPE_CHECKING:
    from ..pipeline import CacheOptions


def cache_options(args: argparse.Namespace) -> CacheOptions | None:
    """The run's pipeline.CacheOptions (None without --cache)."""
    if args.cache is None:
        return None
    from ..pipeline import CACHE_MAX_SIZE  # noqa: PLC0415
    from ..pipeline import CacheOptions as Options  # noqa: PLC0415

    return Options(args.cache, args.cache_max_size or CACHE_MAX_SIZE)


def run_args_problem(args: argparse.Namespace) -> str | None:
    """Misuse of the run arguments, or None."""
    if args.jobs is not None and args.dask is not None:
        return "give --jobs or --dask, not both"
    if getattr(args, "cache_max_size", None) is not None and args.cache is None:
        return "--cache-max-size needs --cache DIR"
    return None


def add_strict_arg(parser: argparse.ArgumentParser, when: str = "") -> None:
    """`--strict`: policy warnings (unknown keys, no-op settings) fail the policy."""
    parser.add_argument(
        "--strict",
        action="store_true",
        help="treat policy warnings (unknown keys, with a did-you-mean) as errors" + when,
    )


if TYPE_CHECKING:
    from ..models.policy import LoadedPolicy, Policy
    from ..models.report import Section


def load_run_policies(
    paths: list[str], strict: bool, io: Streams
) -> tuple[list[Policy], tuple[Section, ...]]:
    """The policies of `--policy` (files and directories, in order) and the run section of
    their warnings, each warning printed once on stderr (`warning: <file>: policy ...`).
    PolicyError when one cannot be used (with `strict`, when it has a warning; when a
    plugin it names cannot be imported)."""
    from ..models.policy import load_policies  # noqa: PLC0415 - keeps `--help` light
    from ..models.policy_warnings import policy_warnings, warning_text, warnings_section  # noqa: PLC0415
    from ..rules.plugins import check_policies  # noqa: PLC0415

    loaded: list[LoadedPolicy] = load_policies(paths, strict)
    check_policies(loaded)
    section = warnings_section(loaded)
    sections = () if section is None else (section,)
    for entry in policy_warnings(sections):
        io.warn(warning_text(entry))
    return [item.policy for item in loaded], sections


def policy_help() -> str:
    return (
        "policy file, or a directory of policies (*.json, *.yaml, *.yml, sorted); give it "
        "several times: each trace is judged by the first policy that applies to it"
    )


if TYPE_CHECKING:
    from ..adapters import Identity


def identity_from(args: argparse.Namespace) -> Identity | None:
    """The labels given on the command line, or None when none was."""
    labels = (args.trace_id, args.agent_name, args.workflow)
    if all(label is None for label in labels):
        return None
    from ..adapters import Identity  # noqa: PLC0415 - keeps `arh --version` light

    return Identity(*labels)
