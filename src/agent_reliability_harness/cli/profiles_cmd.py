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
    from ..profiles.listing import profiles_table  # noqa: PLC0415

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
