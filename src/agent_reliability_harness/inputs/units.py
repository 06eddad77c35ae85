"""Input units: what one worker decodes at a time (a JSONL line, a whole document, a
range of JSONL lines, a session file), read by whoever processes them, in input order."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, BinaryIO

from ..errors import InputError
from ..io import (
    JSONL_SUFFIXES,
    Document,
    Failure,
    _looks_like_jsonl,
    decode_bytes,
    decode_json_bytes,
    iter_jsonl,
    read_document,
)
from ..reading import (
    DEFAULT_MAX_INPUT_BYTES,
    line_too_long,
    open_local,
    read_lines,
    read_local,
    read_stream,
)
from .base import Claims, FileReaders, Joined, LineRange, RawUnit, SessionFile, Unit
from .remote import RemoteFile, open_remote
from .stdin import stdin_units
from .walk import Entry, Location, suffix


def binary_reader(readers: FileReaders | None, name: str) -> Callable[[bytes], list[Any]] | None:
    """The reader of a file named `name` (a binary format's suffix), or None: JSON."""
    return readers.get(suffix(name)) if readers else None


def open_binary(path: Location) -> BinaryIO:
    """A local regular file or a URL opened for reading bytes; raises OSError (a device,
    pipe or socket: io.Unreadable)."""
    if isinstance(path, RemoteFile):
        return open_remote(path)
    return open_local(path)


def read_whole(path: Location, limit: int = DEFAULT_MAX_INPUT_BYTES) -> bytes:
    """All bytes of a local file or URL, at most `limit`; raises OSError."""
    if isinstance(path, RemoteFile):
        with open_remote(path) as handle:
            return read_stream(handle, limit)
    data = read_local(path, limit)
    assert data is not None
    return data


def _cannot_read(name: str, exc: OSError, line: int | None = None) -> Failure:
    return Failure(name, f"cannot read: {exc.strerror or exc}", line=line)


def _too_long(name: str, line: int, limit: int) -> Failure:
    return Failure(name, line_too_long(limit), line=line)


def _newlines(data: bytes, few: int = 256) -> int:
    """`data.count(b"\\n")`: found one by one (memchr) while they are few, as in a trace
    per line, since counting a single byte scans ~10x slower."""
    found, at = 0, data.find(b"\n")
    while at >= 0:
        found += 1
        if found > few:
            return data.count(b"\n")
        at = data.find(b"\n", at + 1)
    return found


def line_ranges(
    path: Location,
    name: str,
    target: int,
    joined: Joined,
    hint: str = "",
    *,
    limit: int = DEFAULT_MAX_INPUT_BYTES,
) -> Iterator[LineRange | Failure]:
    """A JSONL file as LineRanges of about `target` bytes, each cut at a line start.

    A cut never falls between two non-blank lines (blank ones between them aside)
    for which `joined(before, after)` holds. The bulk of a range is read in one
    block and only its newlines counted; lines are looked at only around a cut, and
    never more than `limit` bytes of one (a longer one is left for its reader to report).
    """
    start = offset = 0
    line = number = 1  # first line of the range; line number at `offset`
    last: bytes | None = None  # the last non-blank line before `offset`; None: not known
    try:
        with open_binary(path) as handle:
            lines = read_lines(handle, limit)  # a too-long line is b"": joined to nothing
            while True:
                want = start + target - offset
                if want > 0:
                    block = handle.read(want)
                    if not block:
                        break
                    rest, size = (b"", 0) if block.endswith(b"\n") else next(lines, (b"", 0))
                    offset += len(block) + size
                    number += _newlines(block) + (rest.count(b"\n") if rest else size > 0)
                    if size:
                        tail = block[block.rfind(b"\n") + 1 :] + rest if rest else b""
                    else:
                        tail = block[block.rfind(b"\n", 0, len(block) - 1) + 1 :]
                    last = None if tail.isspace() else tail
                cut = False
                for raw, size in lines:
                    if not raw.isspace():  # what `raw.strip()` tests, without a copy
                        cut = last is not None and not joined(last, raw)
                        if cut:
                            yield LineRange(name, path, start, offset, line, hint)
                            start, line = offset, number
                        last = raw
                    offset += size
                    number += 1
                    if cut:
                        break
                if not cut:
                    break
    except OSError as exc:
        if offset > start:
            yield LineRange(name, path, start, offset, line, hint)
        yield _cannot_read(name, exc)
        return
    if offset > start:
        yield LineRange(name, path, start, offset, line, hint)


def read_line_range(
    unit: LineRange, limit: int = DEFAULT_MAX_INPUT_BYTES
) -> Iterator[RawUnit | Failure]:
    """The non-blank lines of a LineRange as RawUnits, numbered as in the whole file (a
    line longer than `limit` bytes: a Failure)."""
    name, hint, end = unit.source_path, unit.hint, unit.end
    try:
        with open_binary(unit.path) as handle:
            if unit.start:
                handle.seek(unit.start)
            offset, number = unit.start, unit.line
            for raw, size in read_lines(handle, limit):
                if not raw:
                    yield _too_long(name, number, limit)
                elif not raw.isspace():
                    yield RawUnit(name, raw, line=number, hint=hint)
                offset += size
                number += 1
                if 0 <= end <= offset:
                    break
    except OSError as exc:
        yield _cannot_read(name, exc)


def session_lines(
    unit: SessionFile, limit: int = DEFAULT_MAX_INPUT_BYTES
) -> Iterator[tuple[int, bytes] | Failure]:
    """The non-blank lines of a session file with their line numbers, read one at a time
    (a line longer than `limit` bytes: a Failure)."""
    if unit.path is None:
        yield from unit.lines
        return
    try:
        with open_binary(unit.path) as handle:
            for number, (raw, _) in enumerate(read_lines(handle, limit), start=1):
                if not raw:
                    yield _too_long(unit.source_path, number, limit)
                elif not raw.isspace():
                    yield number, raw
    except OSError as exc:
        yield _cannot_read(unit.source_path, exc)


def _jsonl_units(
    entry: Entry, claims: Claims | None, limit: int = DEFAULT_MAX_INPUT_BYTES
) -> Iterator[Unit]:
    name, hint, path = entry.name, entry.hint, entry.path
    assert path is not None
    try:
        with open_binary(path) as handle:
            for number, (raw, _) in enumerate(read_lines(handle, limit), start=1):
                if not raw:
                    claims = None
                    yield _too_long(name, number, limit)
                elif not raw.isspace():
                    if claims is not None:
                        if claims(raw):
                            yield SessionFile(name, path, hint)
                            return
                        claims = None
                    yield RawUnit(name, raw, line=number, hint=hint)
    except OSError as exc:
        yield _cannot_read(name, exc)


def _claimed(path: Location, claims: Claims, limit: int) -> bool:
    """Whether a JSONL file's first non-blank line makes it a session (False if unreadable
    or over the limit: reading it again reports the problem)."""
    try:
        with open_binary(path) as handle:
            for raw, _ in read_lines(handle, limit):
                if not raw.isspace():
                    return bool(raw) and claims(raw)
    except OSError:
        return False
    return False


def iter_units(
    entries: Iterable[Entry | Failure],
    stdin: Any = None,
    range_bytes: int = 0,
    joined: Joined | None = None,
    claims: Claims | None = None,
    *,
    limit: int = DEFAULT_MAX_INPUT_BYTES,
) -> Iterator[Unit]:
    """Every input unit of the given entries, in order.

    Reading is incremental: a JSONL file or JSONL on standard input is never held
    whole. With `range_bytes` (and `joined`, see `line_ranges`), a local JSONL file comes
    as LineRanges instead of lines; a JSONL file behind a URL always comes as one
    LineRange, read by the worker. With `claims`, a JSONL file whose first non-blank
    line it claims comes as one SessionFile. No line read here is held beyond `limit`
    bytes (see io.read_lines).
    """
    items = list(entries) if not isinstance(entries, list) else entries
    for index, item in enumerate(items):
        if isinstance(item, Failure):
            yield item
            continue
        path = item.path
        if path is None:
            yield from stdin_units(stdin, item, claims, limit)
        elif suffix(item.name) not in JSONL_SUFFIXES:
            yield RawUnit(item.name, None, path=path, hint=item.hint)
        elif claims is not None and _claimed(path, claims, limit):
            yield SessionFile(item.name, path, item.hint)
        elif isinstance(path, RemoteFile):
            yield LineRange(item.name, path, 0, -1, 1, item.hint)
        elif range_bytes > 0 and joined is not None and _alone(items, index):
            yield from line_ranges(path, item.name, range_bytes, joined, item.hint, limit=limit)
        else:
            yield from _jsonl_units(item, None, limit)


def _alone(items: list[Entry | Failure], index: int) -> bool:
    """No neighbour has the same name: export lines of one name next to each other are
    joined across the two files, so such files are read line by line."""
    name = _name(items[index])
    return all(
        not 0 <= other < len(items) or _name(items[other]) != name
        for other in (index - 1, index + 1)
    )


def _name(item: Entry | Failure) -> str:
    return item.source_path if isinstance(item, Failure) else item.name


def decode_unit(
    unit: RawUnit,
    keep_text: bool = False,
    readers: FileReaders | None = None,
    limit: int = DEFAULT_MAX_INPUT_BYTES,
) -> list[Document | Failure]:
    """Decode one unit into its documents (a file read within `limit` bytes); a Failure
    (with the JSONL line, if any) for each part that is not valid JSON. A whole file whose
    suffix has one of `readers` is decoded by it instead (never from standard input,
    which has no name to tell)."""
    name = unit.source_path
    data = unit.data
    if data is None:
        assert unit.path is not None
        try:
            data = read_whole(unit.path, limit)
        except OSError as exc:
            return [_cannot_read(name, exc)]
    if unit.line is not None:
        return [decode_line(name, unit.line, data, keep_text)]
    reader = binary_reader(readers, name) if unit.path is not None else None
    if reader is not None:
        try:
            return [Document(name, value) for value in reader(data)]
        except InputError as exc:
            return [Failure(name, str(exc))]
    try:
        return [read_document(data, name, keep_text)]
    except InputError as exc:
        # The OpenTelemetry Collector's file exporter writes one JSON object per line
        # into a `.json` file: read such a file as JSON Lines.
        if unit.path is not None and _looks_like_jsonl(data):
            return list(iter_jsonl(data.splitlines(keepends=True), name, keep_text))
        return [Failure(name, str(exc))]


def decode_line(name: str, number: int, data: bytes, keep_text: bool) -> Document | Failure:
    """One JSONL line as a Document, or a Failure naming the line."""
    try:
        text = decode_bytes(data) if keep_text else None
        return Document(name, decode_json_bytes(data), line=number, start_line=number, text=text)
    except InputError as exc:
        return Failure(name, str(exc), line=number)
