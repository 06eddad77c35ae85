"""`arh infer`: learn a policy from runs known to be good (argv -> options; the learning,
the documents and the check are `infer`). Exit 0 when the policy was written and every
input was read; 1 when an input was unreadable or nothing could be learned; 2 on misuse."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ..adapters import AUTO, FORMAT_CHOICES
from .common import (
    COMMANDS,
    EXIT_INPUT,
    EXIT_OK,
    EXIT_USAGE,
    Streams,
    add_identity_args,
    add_run_args,
    cannot_create,
    identity_from,
    run_args_problem,
    task_ids_arg,
)


def _good_if(value: str) -> object:
    from ..infer import parse_good_if  # noqa: PLC0415 - only when the flag is given

    try:
        return parse_good_if(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{value!r}: {exc}") from None


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "infer",
        help=COMMANDS["infer"][1],
        description="Learn a policy (v1.1) from runs known to be good: by default those "
        "whose outcome.success is true (every run when none records an outcome). Every "
        "constraint holds in every good run and says why in its description. PATH is read "
        "as `arh validate` reads it.",
    )
    parser.add_argument("--out", metavar="FILE", help="write the policy to FILE (- for stdout)")
    parser.add_argument(
        "--out-dir",
        metavar="DIR",
        help="write a policy directory (for --policy DIR): the base policy, one policy per "
        "task with its expected trajectory (needs task ids), and the default; DIR must be "
        "new or empty",
    )
    parser.add_argument(
        "--from-tools",
        metavar="FILE",
        help="take the allowed tools and their argument contracts from tool definitions: an "
        "MCP tools/list result, an OpenAI or Anthropic tools array (PATHs are then optional: "
        "with runs, budgets, sequence and call limits are learned from them too)",
    )
    parser.add_argument("--policy-id", default="inferred", metavar="ID", help="default: inferred")
    good = parser.add_mutually_exclusive_group()
    good.add_argument("--all-good", action="store_true", help="learn from every run")
    good.add_argument(
        "--good-if",
        type=_good_if,
        metavar="EXPR",
        help="learn from the runs whose outcome satisfies EXPR, e.g. 'reward>=1', "
        "'success==true and reward>0.5' (== != >= <= > <, and, or)",
    )
    parser.add_argument(
        "--explain", action="store_true", help="print the evidence of every constraint"
    )
    parser.add_argument(
        "--format", choices=FORMAT_CHOICES, default=AUTO, help="input format (default: auto-detect)"
    )
    parser.add_argument(
        "--quiet", action="store_true", help="print nothing but errors and warnings"
    )
    add_identity_args(parser)
    group = parser.add_argument_group("repeated runs")
    group.add_argument(
        "--task-id-from",
        type=task_ids_arg,
        default=None,
        metavar="REGEX",
        help="take each run's task id from its trace_id (the one capturing group of REGEX)",
    )
    add_run_args(parser)
    parser.add_argument("paths", nargs="*", metavar="PATH")
    parser.set_defaults(handler=run)


def _misuse(args: argparse.Namespace) -> str | None:
    if args.out is None and args.out_dir is None:
        return "give --out FILE and/or --out-dir DIR"
    if not args.paths and args.from_tools is None:
        return "give a PATH to learn from, or --from-tools FILE"
    if not args.paths and args.out_dir is not None:
        return "--out-dir needs runs to learn task trajectories from (PATH)"
    if args.paths.count("-") > 1:
        return "standard input (-) can be read only once"
    return run_args_problem(args)


def _stdin(io: Streams) -> bytes | None:
    """Standard input whole (learning and the check each read it), within the input limit."""
    from ..errors import InputError  # noqa: PLC0415
    from ..io import STDIN_NAME  # noqa: PLC0415
    from ..reading import read_input  # noqa: PLC0415

    if io.stdin is None:
        return None
    try:
        return read_input("-", io.stdin)
    except InputError as exc:
        raise InputError(f"{STDIN_NAME}: {exc}") from None


def run(args: argparse.Namespace, io: Streams) -> int:
    problem = _misuse(args)
    if problem is not None:
        io.error(problem)
        return EXIT_USAGE
    from ..errors import ArhError  # noqa: PLC0415 - not at parser build time
    from ..infer import InferOptions, Selection, explain_lines, infer_paths, summary_lines  # noqa: PLC0415
    from ..infer.document import policy_text  # noqa: PLC0415
    from ..io import EMPTY_NAME, shown_name  # noqa: PLC0415
    from ..pipeline import RunOptions, make_executor  # noqa: PLC0415

    if args.out not in (None, "-") and cannot_create([args.out], io):
        return EXIT_INPUT  # before the run, not after it
    selection = Selection("all") if args.all_good else Selection("success", args.good_if)
    run_options = RunOptions(
        fmt=args.format,
        identity=identity_from(args),
        allow_empty=args.allow_empty,
        task_ids=args.task_id_from,
    )
    shown: TextIO = io.err if args.out == "-" else io.out
    try:
        tools = _tool_defs(args.from_tools, io)
        if not args.paths:
            return _tools_only(args, tools, io, shown)
        options = InferOptions(
            args.policy_id, selection, args.out_dir is not None, run_options, tools
        )
        executor = make_executor(args.jobs, args.dask)
        stdin = _stdin(io) if "-" in args.paths else None
        result = infer_paths(
            args.paths, options, args.out, args.out_dir, io, executor=executor, stdin=stdin
        )
    except ArhError as exc:
        io.error(str(exc))
        return EXIT_INPUT
    except OSError as exc:  # the file named, not write_atomic's temporary one
        target = args.out if args.out not in (None, "-") else exc.filename or args.out_dir
        io.error(f"{shown_name(str(target)) or EMPTY_NAME}: cannot write: {exc.strerror or exc}")
        return EXIT_INPUT
    if args.out == "-":
        io.out.write(policy_text(result.learned.inferred.policy))
    for warning in result.warnings():
        io.warn(warning)
    if not args.quiet:
        shown.write("".join(f"{line}\n" for line in summary_lines(result)))
    if args.explain:
        shown.write("".join(f"{line}\n" for line in explain_lines(result.learned.inferred)))
    failed = result.learned.input_errors or (tools is not None and tools.problems)
    return EXIT_INPUT if failed else EXIT_OK


def _tool_defs(path: str | None, io: Streams) -> Any:
    """The tool definitions of --from-tools (InputError: unreadable), problems printed."""
    if path is None:
        return None
    import os  # noqa: PLC0415

    from ..errors import InputError  # noqa: PLC0415
    from ..io import shown_name  # noqa: PLC0415
    from ..models.policy.tooldefs import read_tool_defs  # noqa: PLC0415

    shown = shown_name(path)
    try:
        defs = read_tool_defs(path, os.path.basename(shown) or shown)
    except InputError as exc:
        raise InputError(f"{shown}: {exc}") from None
    for problem in defs.problems:
        io.error(f"{shown}: {problem}")
    for note in defs.notes:
        io.warn(f"{shown}: {note}")
    return defs


def _tools_only(args: argparse.Namespace, tools: Any, io: Streams, shown: TextIO) -> int:
    from ..infer import explain_lines, from_tools_only, tools_summary_lines  # noqa: PLC0415
    from ..infer.document import policy_text  # noqa: PLC0415

    inferred, warnings = from_tools_only(tools, args.policy_id, args.out)
    if args.out == "-":
        io.out.write(policy_text(inferred.policy))
    for warning in warnings:
        io.warn(warning)
    if not args.quiet:
        shown.write("".join(f"{line}\n" for line in tools_summary_lines(inferred, args.out)))
    if args.explain:
        shown.write("".join(f"{line}\n" for line in explain_lines(inferred)))
    return EXIT_INPUT if tools.problems else EXIT_OK


__all__ = ["EXIT_OK", "add_parser", "run"]
