"""Standard input as input units: JSON Lines streamed line by line, anything else read
whole, each within the input limit (standard input cannot be read twice, so it is
looked at only until the two can be told apart)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import Any

from ..io import Failure, _looks_like_jsonl
from ..reading import DEFAULT_MAX_INPUT_BYTES, line_too_long, read_lines, read_stream, too_large
from .base import Claims, RawUnit, SessionFile, Unit
from .walk import Entry

_ZIP = b"PK\x03\x04"  # a zip archive's first local file header
ZIP_ON_STDIN = (
    "a zip archive on standard input: .eval archives (Inspect logs) must be given as a file path"
)


def _cannot_read(name: str, exc: OSError) -> Failure:
    return Failure(name, f"cannot read: {exc.strerror or exc}")


def _too_long(name: str, line: int, limit: int) -> Failure:
    return Failure(name, line_too_long(limit), line=line)


def stdin_units(
    stdin: Any, entry: Entry, claims: Claims | None, limit: int = DEFAULT_MAX_INPUT_BYTES
) -> Iterator[Unit]:
    """Standard input, JSONL streamed line by line; anything else read whole (within
    `limit`: so is each line).

    Reads only until it can tell the two apart; the decision and the line numbers
    are those `_looks_like_jsonl` and `bytes.splitlines` give on the whole input.
    """
    name, hint = entry.name, entry.hint
    if stdin is None:
        yield RawUnit(name, b"", hint=hint)
        return
    try:
        yield from _stdin_read(stdin, entry, claims, limit)
    except OSError as exc:
        yield _cannot_read(name, exc)


def _stdin_read(stdin: Any, entry: Entry, claims: Claims | None, limit: int) -> Iterator[Unit]:
    name, hint = entry.name, entry.hint
    head: list[bytes] = []
    non_blank = 0
    lines = read_lines(stdin, limit)
    for chunk, _ in lines:
        if not chunk:  # a line over the limit: so is the whole input
            yield _cannot_read(name, too_large(limit))
            return
        head.append(chunk)
        non_blank += sum(1 for line in chunk.splitlines() if line.strip())
        if non_blank >= 2:
            break
    prefix = b"".join(head)
    if prefix.startswith(_ZIP):  # binary inputs are read from files only
        yield Failure(name, ZIP_ON_STDIN)
        return
    if non_blank < 2 or not _looks_like_jsonl(prefix):
        if len(prefix) > limit:
            raise too_large(limit)
        yield RawUnit(name, prefix + read_stream(stdin, limit - len(prefix)), hint=hint)
        return
    numbered = _numbered(itertools.chain(head, (chunk for chunk, _ in lines)))
    if claims is not None:
        first = next(numbered)
        rest = itertools.chain((first,), numbered)
        if claims(first[1]):
            yield SessionFile(name, None, hint, tuple(_session_stdin(rest, limit)))
            return
        numbered = rest
    for number, raw in numbered:
        if raw:
            yield RawUnit(name, raw, line=number, hint=hint)
        else:
            yield _too_long(name, number, limit)


def _session_stdin(lines: Iterable[tuple[int, bytes]], limit: int) -> Iterator[tuple[int, bytes]]:
    """A session's lines from standard input, held (it cannot be read twice): at most
    `limit` bytes in all, like any other input read whole."""
    total = 0
    for number, raw in lines:
        total += len(raw)
        if not raw or total > limit:  # a session cannot be read with a line missing
            raise too_large(limit)
        yield number, raw


def _numbered(chunks: Iterable[bytes]) -> Iterator[tuple[int, bytes]]:
    """Non-blank lines with their numbers; a line `read_lines` read past stays b""."""
    number = 0
    for chunk in chunks:
        if not chunk:
            number += 1
            yield number, chunk
            continue
        for raw in chunk.splitlines(keepends=True):
            number += 1
            if raw.strip():
                yield number, raw
