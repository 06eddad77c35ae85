"""`arh rules`: the rule table (with --markdown, the generated rule reference; with
--plugins, the rules of every installed plugin)."""

from __future__ import annotations

import argparse
from typing import Any

from ..rules import all_rules
from ..rules.docs import plugins_table, rule_row, rules_markdown
from .common import EXIT_INPUT, EXIT_OK, Streams


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rules", help="list every rule", description="List every rule ARH checks."
    )
    parser.add_argument(
        "--markdown",
        action="store_true",
        help="print the rule reference (docs/rules.md) instead of the table",
    )
    parser.add_argument(
        "--plugins",
        action="store_true",
        help="list the rules of every installed plugin (entry point group arh.rules; "
        "imports them) instead of the built-in rules",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, io: Streams) -> int:
    if args.plugins:
        table, problems = plugins_table()
        io.out.write(table)
        for problem in problems:
            io.error(problem)
        return EXIT_INPUT if problems else EXIT_OK
    if args.markdown:
        io.out.write(rules_markdown())
        return EXIT_OK
    for rule in all_rules():
        io.out.write(rule_row(rule))
    return EXIT_OK
