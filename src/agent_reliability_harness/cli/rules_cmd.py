"""`arh rules`: the rule table (or, with --markdown, the generated rule reference)."""

from __future__ import annotations

import argparse
from typing import Any

from ..rules import all_rules
from ..rules.docs import rules_markdown
from .common import EXIT_OK, Streams


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rules", help="list every rule", description="List every rule ARH checks."
    )
    parser.add_argument(
        "--markdown",
        action="store_true",
        help="print the rule reference (docs/rules.md) instead of the table",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, io: Streams) -> int:
    if args.markdown:
        io.out.write(rules_markdown())
        return EXIT_OK
    for rule in all_rules():
        severity = "error/warning" if rule.severity_for else rule.severity.value
        io.out.write(f"{rule.rule_id}  {rule.category.value:<10}  {severity:<13}  {rule.title}\n")
    return EXIT_OK
