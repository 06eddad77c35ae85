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
from .folding import Folder
from .run import RunOptions, input_units

# (where, canonical trace objects, problem): `where` is the file (and JSONL line).
Converted = tuple[str, list[Any], str | None]
EMPTY = "no traces found: the file is empty"


def convert(
    paths: Iterable[str],
    fmt: str,
    identity: Identity | None = None,
    stdin: Any = None,
    limit: int | None = None,
) -> Iterator[Converted]:
    """Every input document's canonical traces, in input order, or the problem with it; a
    JSONL file's lines that fail the same way are one problem (see folding)."""
    folder = Folder()
    for item in _converted(paths, fmt, identity, stdin, limit):
        if isinstance(item, InputFailure):
            yield from _problems(folder.push(item))
        else:
            yield item
    yield from _problems(folder.close())


def _converted(
    paths: Iterable[str],
    fmt: str,
    identity: Identity | None = None,
    stdin: Any = None,
    limit: int | None = None,
) -> Iterator[Converted | InputFailure]:
    options = RunOptions(fmt=fmt, identity=identity, max_input_bytes=limit)
    reader = Reader(fmt, identity, limit=options.input_limit())
    named: list[str] = []  # every input file, in order
    read: set[str] = set()  # the files that held a document
    units = input_units(paths, options, stdin, files=named)
    for piece in coalesce(unit_documents(units, reader.limit)):
        read.add(_source(piece))
        if isinstance(piece, SessionFile):
            yield from _session(reader, piece)
        else:
            yield from _piece(piece, fmt, identity)
    for source in dict.fromkeys(named):
        if source not in read:  # as validate, where an empty file adds no trace to the run
            yield InputFailure(source, EMPTY)


def _problems(failures: list[InputFailure]) -> Iterator[Converted]:
    for failure in failures:
        yield failure.location(), [], failure.message


def _source(piece: Hinted | InputFailure | SessionFile) -> str:
    if isinstance(piece, Hinted):
        return piece.document.source_path
    return piece.source_path


def _piece(
    piece: Hinted | InputFailure, fmt: str, identity: Identity | None
) -> list[Converted | InputFailure]:
    if isinstance(piece, InputFailure):
        return [piece]
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
        if document.line is None:
            return [(where, [], str(exc))]
        return [InputFailure(document.source_path, str(exc), line=document.line)]
    return [(document.source_path, traces, None)]


def _check(traces: list[Any]) -> None:
    for index, trace in enumerate(traces):
        try:
            parse_trace(trace)
        except InputError as exc:
            suffix = f"[{index}]" if len(traces) > 1 else ""
            raise InputError(f"trace{suffix}: {exc}") from None


def _session(reader: Reader, unit: SessionFile) -> Iterator[Converted | InputFailure]:
    for piece in reader.session_candidates(unit):
        if isinstance(piece, tuple):
            try:
                _check(piece[1])
            except InputError as exc:
                yield unit.source_path, [], str(exc)
                continue
            yield unit.source_path, piece[1], None
        else:
            yield from _piece(piece, reader.fmt, reader.identity)
