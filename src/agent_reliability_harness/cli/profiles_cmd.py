"""`arh profiles`: the built-in profiles with what each checks; `arh profiles show
NAME` prints one as a policy file to copy and edit."""

from __future__ import annotations

import argparse
from typing import Any

from .common import EXIT_INPUT, EXIT_OK, Streams


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "profiles",
        help="list the built-in profiles, or print one as a policy file",
        description="List the built-in profiles (policies that ship with ARH: --profile NAME, "
        '"extends": "arh:NAME") with the rules each runs; `show NAME` prints one.',
    )
    parser.add_argument("action", nargs="?", choices=["show"], help="print a profile")
    parser.add_argument("name", nargs="?", metavar="NAME", help="the profile to print")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, io: Streams) -> int:
    from ..profiles import UnknownProfile, profile_text  # noqa: PLC0415

    if args.action is None:
        if args.name is not None:
            io.error(f"unknown action '{args.name}' (try: arh profiles show NAME)")
            return EXIT_INPUT
        io.out.write(profiles_table())
        return EXIT_OK
    if args.name is None:
        io.error("arh profiles show: name a profile (arh profiles lists them)")
        return EXIT_INPUT
    try:
        io.out.write(profile_text(args.name))
    except UnknownProfile as exc:
        io.error(str(exc))
        return EXIT_INPUT
    return EXIT_OK


# Rules that run under any policy but that a profile means to run (a profile lists it).
_ALWAYS_LISTED = ("ARH-SCH-013",)


def profile_rules(name: str) -> list[Any]:
    """The built-in rules a profile turns on: those its policy runs that a policy
    allowing every tool with nothing else set does not, and ARH-SCH-013."""
    from ..models.policy import load_policy, parse_policy  # noqa: PLC0415
    from ..profiles import PREFIX  # noqa: PLC0415
    from ..rules import all_rules  # noqa: PLC0415

    policy = load_policy(PREFIX + name).policy
    bare = parse_policy({"policy_id": "bare", "allow_unlisted_tools": True})
    return [
        r
        for r in all_rules()
        if r.built_in and r.applies(policy) and (r.rule_id in _ALWAYS_LISTED or not r.applies(bare))
    ]


def profiles_table() -> str:
    """`arh profiles`: per profile, its name, its base, what it checks and its rules."""
    from ..profiles import NAMES, profile_document  # noqa: PLC0415

    lines: list[str] = []
    for name in NAMES:
        document = profile_document(name)
        base = document.get("extends")
        lines.append(name + (f" (extends {base})" if base else ""))
        lines.append(f"  {document.get('description', '')}")
        lines.extend(
            f"  {r.rule_id}  {r.severity.value:<7}  {r.title}" for r in profile_rules(name)
        )
        lines.append("")
    lines.append(
        'arh profiles show NAME prints one as a policy file; "extends": "arh:NAME" builds on one.'
    )
    return "\n".join(lines) + "\n"
