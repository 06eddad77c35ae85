"""`arh convert`: transcripts in, canonical trace JSON out (one document per input file)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..adapters import (
    ADAPTERS,
    AUTO,
    FILE_READERS,
    FORMAT_CHOICES,
    WALK_SUFFIXES,
    to_canonical,
)
from ..api import coalesce_exports, name_hint
from ..errors import InputError
from ..io import Failure, iter_documents
from ..models.trace import parse_trace
from .common import EXIT_INPUT, EXIT_OK, Streams, add_identity_args, identity_from


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "convert",
        help="print transcripts as canonical traces",
        description="Convert recorded transcripts (or traces) to canonical ARH trace JSON.\n"
        "Each FILE prints one JSON document: the trace object, or an array when the\n"
        "file holds several traces. FILE may be - for standard input.",
        epilog="formats (auto-detection tries them in this order; see docs/adapters.md):\n"
        + "\n".join(f"  {a.name:<20} {a.description}" for a in ADAPTERS),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--format", choices=FORMAT_CHOICES, default=AUTO, help="input format (default: auto-detect)"
    )
    add_identity_args(parser)
    parser.add_argument("paths", nargs="+", metavar="FILE")
    parser.set_defaults(handler=run)


def dumps(value: Any) -> str:
    """The deterministic JSON text of converted traces: indent 2, trailing newline."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def run(args: argparse.Namespace, io: Streams) -> int:
    identity = identity_from(args)
    by_file: dict[str, list[Any]] = {}
    failed = False
    documents = iter_documents(args.paths, io.stdin, False, WALK_SUFFIXES, FILE_READERS)
    for document in coalesce_exports(documents):
        where = document.source_path
        if document.line is not None:
            where = f"{where}:{document.line}"
        if isinstance(document, Failure):
            io.error(f"{where}: {document.message}")
            failed = True
            continue
        try:
            hint = name_hint(document.source_path, document.line)
            traces = to_canonical(document.value, args.format, hint, identity)
            for index, trace in enumerate(traces):
                try:
                    parse_trace(trace)
                except InputError as exc:
                    suffix = f"[{index}]" if len(traces) > 1 else ""
                    raise InputError(f"trace{suffix}: {exc}") from None
        except InputError as exc:
            io.error(f"{where}: {exc}")
            failed = True
            continue
        by_file.setdefault(document.source_path, []).extend(traces)
    for traces in by_file.values():
        io.out.write(dumps(traces[0] if len(traces) == 1 else traces))
    return EXIT_INPUT if failed else EXIT_OK
