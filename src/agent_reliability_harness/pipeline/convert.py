"""`convert`: the load -> adapt stages alone, for printing what inputs become as canonical
trace objects (each checked by the parser, as validate would)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..adapters import Identity, to_canonical
from ..errors import InputError
from ..inputs import SessionFile, stem
from ..models.report import InputFailure
from ..models.trace import parse_trace
from .documents import Reader, unit_documents
from .exports import Hinted, coalesce
from .run import RunOptions, input_units

# (where, canonical trace objects, problem): `where` is the file (and JSONL line).
Converted = tuple[str, list[Any], str | None]


def convert(
    paths: Iterable[str],
    fmt: str,
    identity: Identity | None = None,
    stdin: Any = None,
    limit: int | None = None,
) -> Iterator[Converted]:
    """Every input document's canonical traces, in input order, or the problem with it."""
    options = RunOptions(fmt=fmt, identity=identity, max_input_bytes=limit)
    reader = Reader(fmt, identity, limit=options.input_limit())
    units = input_units(paths, options, stdin)
    for piece in coalesce(unit_documents(units, reader.limit)):
        if isinstance(piece, SessionFile):
            yield from _session(reader, piece)
        else:
            yield _piece(piece, fmt, identity)


def _piece(piece: Hinted | InputFailure, fmt: str, identity: Identity | None) -> Converted:
    if isinstance(piece, InputFailure):
        return piece.location(), [], piece.message
    document = piece.document
    where = document.source_path
    if document.line is not None:
        where = f"{where}:{document.line}"
    base = piece.hint or stem(document.source_path)
    hint = base if document.line is None else f"{base}-{document.line}"
    try:
        traces = to_canonical(document.value, fmt, hint, identity)
        _check(traces)
    except InputError as exc:
        return where, [], str(exc)
    return document.source_path, traces, None


def _check(traces: list[Any]) -> None:
    for index, trace in enumerate(traces):
        try:
            parse_trace(trace)
        except InputError as exc:
            suffix = f"[{index}]" if len(traces) > 1 else ""
            raise InputError(f"trace{suffix}: {exc}") from None


def _session(reader: Reader, unit: SessionFile) -> Iterator[Converted]:
    for piece in reader.session_candidates(unit):
        if isinstance(piece, tuple):
            try:
                _check(piece[1])
            except InputError as exc:
                yield unit.source_path, [], str(exc)
                continue
            yield unit.source_path, piece[1], None
        else:
            yield _piece(piece, reader.fmt, reader.identity)
