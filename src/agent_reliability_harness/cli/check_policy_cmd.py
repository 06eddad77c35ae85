"""`arh check-policy [--strict] POLICY...`: load and compile policy files, exit 1 if any fails.

What the pre-commit hook `arh-check-policy` runs. `--strict` turns policy warnings
(unknown keys, with a did-you-mean: policy-v1.1.md section 2) into failures.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import PolicyError
from ..io import display_path
from ..models.policy import load_policy
from .common import EXIT_INPUT, EXIT_OK, Streams, add_limit_arg


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check-policy",
        help="check policy files",
        description="Load and compile each POLICY as `arh validate` would; exit 1 when "
        "any is invalid (or, with --strict, has warnings).",
    )
    parser.add_argument(
        "--strict", action="store_true", help="treat policy warnings (unknown keys) as errors"
    )
    parser.add_argument("--quiet", action="store_true", help="print nothing but problems")
    add_limit_arg(parser)
    parser.add_argument("policies", nargs="+", metavar="POLICY")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, io: Streams) -> int:
    from ..rules.plugins import check_plugins  # noqa: PLC0415 - keeps `--help` light

    failed = False
    for path in args.policies:
        name = display_path(path)
        try:
            loaded = load_policy(path)
            check_plugins(loaded)
        except PolicyError as exc:
            io.error(str(exc))
            failed = True
            continue
        policy, warnings = loaded.policy, loaded.warnings
        for warning in warnings:  # named by the file that holds it (a base, perhaps)
            io.warn(f"{warning.source or name}: {warning}")
        if warnings and args.strict:
            io.error(f"policy {name}: {len(warnings)} warning(s), and --strict is given")
            failed = True
        elif not args.quiet:
            io.out.write(f"ok: {name} (policy {policy.policy_id})\n")
    return EXIT_INPUT if failed else EXIT_OK


__all__ = ["add_parser", "run"]
