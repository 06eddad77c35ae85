"""Reading inputs: files, directories, JSONL and standard input into JSON documents.

Decoding is strict and bounded: invalid UTF-8, NaN/Infinity, numbers out of
range, lone surrogates and runaway nesting all become InputError with a
position. Nothing here knows what a trace is.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from .errors import InputError

STDIN = "-"
STDIN_NAME = "<stdin>"
TRACE_SUFFIXES = (".json", ".jsonl")
JSONL_SUFFIXES = (".jsonl", ".ndjson")
_BOM = b"\xef\xbb\xbf"
# The binary-input hook (docs/adapters.md, "Binary inputs"), two arguments io knows no
# format of: `suffixes` (expand_paths, iter_units, iter_documents: what a directory walk
# picks up; adapters.WALK_SUFFIXES) and `readers` (decode_unit, iter_documents: suffix ->
# Reader; adapters.FILE_READERS). A Reader turns a file's bytes (an Inspect `.eval` zip,
# OTLP protobuf) into its decoded documents, or raises InputError.
Reader = Callable[[bytes], list[Any]]
# Buffer of a JSONL file read line by line: trace lines are often longer than the default
# 8 KB buffer, and a line across buffer refills costs ~5x more to read.
READ_BUFFER = 1 << 20


@dataclass(frozen=True, slots=True)
class Document:
    """One decoded JSON value and where it came from."""

    source_path: str
    value: Any
    line: int | None = None  # JSONL line number (1-based)
    start_line: int = 1  # line where the value starts in its file
    text: str | None = None  # the decoded text, kept only when asked for


@dataclass(frozen=True, slots=True)
class Failure:
    """An input that could not be decoded."""

    source_path: str
    message: str
    line: int | None = None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON (only finite numbers are allowed)")


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:40]} is out of range")
    return value


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_parse_float)


def _lone_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def decode_json(text: str) -> Any:
    """Decode one JSON value strictly; raises InputError naming line and column."""
    try:
        value = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:
        raise InputError("invalid JSON: nesting is too deep") from None
    except ValueError as exc:
        detail = str(exc)
        if "integer string conversion" in detail:
            detail = "a number has too many digits"
        raise InputError(f"invalid JSON: {detail}") from None
    if ("\\ud" in text or "\\uD" in text) and _lone_surrogate(value):
        raise InputError("invalid JSON: a string contains a lone surrogate (\\ud800-\\udfff)")
    return value


def decode_bytes(data: bytes) -> str:
    """Strict UTF-8 (an initial byte-order mark is allowed); raises InputError."""
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"not valid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start} (line {line})"
        ) from None


def display_path(path: str | os.PathLike[str]) -> str:
    """A stable, machine-independent name for a path: relative to the working directory."""
    if str(path) == STDIN:
        return STDIN_NAME
    pure = PurePath(path)
    if pure.is_absolute():
        with contextlib.suppress(ValueError):
            pure = pure.relative_to(Path.cwd())
    return pure.as_posix()


# Policies and other small inputs are read whole; a bigger file is refused rather than
# read into memory (a policy path could name /dev/zero).
SMALL_FILE_BYTES = 16 << 20


def read_file(path: str | os.PathLike[str], max_bytes: int = SMALL_FILE_BYTES) -> bytes:
    """The bytes of a small regular file; InputError `cannot read: ...` otherwise."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block, a device not end
            raise InputError("cannot read: not a regular file")
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise InputError(f"cannot read: larger than {max_bytes} bytes")
    return data


def list_files(directory: str | os.PathLike[str], suffixes: tuple[str, ...]) -> list[Path] | None:
    """The files directly inside `directory` whose names end in one of `suffixes`, sorted
    by name; None when `directory` is not a directory."""
    path = Path(directory)
    if not path.is_dir():
        return None
    try:
        return sorted(
            (p for p in path.iterdir() if p.suffix in suffixes and p.is_file()),
            key=lambda p: p.name,
        )
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}") from None


def _first_line(text: str) -> int:
    stripped = len(text) - len(text.lstrip())
    return text.count("\n", 0, stripped) + 1


def read_document(data: bytes, name: str, keep_text: bool = False) -> Document:
    """Decode a whole file as one JSON value."""
    if keep_text:
        text = decode_bytes(data)
        return Document(name, decode_json(text), start_line=_first_line(text), text=text)
    value = decode_json_bytes(data)
    return Document(name, value, start_line=start_line(data))


def start_line(data: bytes) -> int:
    """The line where the JSON value of a valid document starts (1-based)."""
    # A valid document starts with JSON whitespace only, so the byte count is the line.
    start = len(_BOM) if data.startswith(_BOM) else 0
    end = _LEADING_SPACE.match(data, start).end()  # type: ignore[union-attr]
    return data.count(b"\n", start, end) + 1


# The fast decoder (msgspec) is used only where it provably agrees with the strict
# path: it rejects NaN/Infinity, out-of-range numbers, lone surrogates and bad
# UTF-8 (we then rerun the strict path for its exact message), keeps big integers
# exact and keeps the last of duplicate keys like json does. Nesting depth is the
# one difference: both stop at the interpreter's recursion limit, counted from
# where they are called, and the strict decoder sits a few frames deeper. So the
# fast one is called _PADDING frames deeper still: whatever it accepts, the strict
# path accepts too (tests/test_io_stream.py sweeps the depths around the limit).
_PADDING = 8
_LEADING_SPACE = re.compile(rb"[ \t\n\r]*")
_FAST: dict[str, Any] = {}


def _fast_decoder() -> Any:
    """The msgspec decoder, imported on first use (not at `arh --version`); False if absent."""
    decoder = _FAST.get("json")
    if decoder is None:
        try:
            import msgspec.json  # noqa: PLC0415 - heavy import, only when decoding
        except ImportError:  # pragma: no cover - msgspec is a dependency
            decoder = False
        else:
            decoder = msgspec.json.Decoder()
        _FAST["json"] = decoder
    return decoder


def decode_json_bytes(data: bytes) -> Any:
    """`decode_json(decode_bytes(data))`, the same value or error, faster when possible."""
    decoder = _fast_decoder()
    if decoder:
        try:
            return padded_call(decoder.decode, data, _PADDING)
        except Exception:  # any refusal: the strict path names the exact problem
            pass
    return decode_json(decode_bytes(data))


def padded_call(decode: Any, data: bytes, frames: int) -> Any:
    """`decode(data)` called `frames` Python frames deeper (see the note above _PADDING)."""
    return decode(data) if frames <= 0 else padded_call(decode, data, frames - 1)


def iter_jsonl(
    lines: Iterable[bytes], name: str, keep_text: bool = False
) -> Iterator[Document | Failure]:
    """One document per non-blank line; a bad line fails alone."""
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            text = decode_bytes(raw)
            yield Document(
                name,
                decode_json(text),
                line=number,
                start_line=number,
                text=text if keep_text else None,
            )
        except InputError as exc:
            yield Failure(name, str(exc), line=number)


def _looks_like_jsonl(data: bytes) -> bool:
    """Standard input: several JSON values, one per line, rather than one document."""
    first = data.lstrip()[:1]
    if first != b"{":
        return False
    lines = [line for line in data.splitlines() if line.strip()]
    if len(lines) < 2:
        return False
    try:
        json.loads(lines[0])
    except (ValueError, RecursionError):
        return False
    return True


def expand_paths(
    paths: Iterable[str], suffixes: tuple[str, ...] = TRACE_SUFFIXES
) -> Iterator[tuple[str, Path | None, str | None]]:
    """(display name, file path or None for stdin, problem) per input file, directories walked
    for files with one of `suffixes`."""
    for raw in paths:
        if raw == STDIN:
            yield STDIN_NAME, None, None
            continue
        path = Path(raw)
        if path.is_dir():
            found = sorted(
                (p for p in path.rglob("*") if p.suffix in suffixes and p.is_file()),
                key=lambda p: p.relative_to(path).parts,
            )
            if not found:
                yield display_path(raw), None, "directory contains no *.json or *.jsonl files"
            for file in found:
                yield display_path(file), file, None
        elif path.exists():
            yield display_path(raw), path, None
        else:
            yield display_path(raw), None, "no such file or directory"


@dataclass(frozen=True, slots=True)
class RawUnit:
    """One input not decoded yet: a JSONL line (`line` set) or a whole document.

    A whole file is carried by path (`data` None) so that whoever decodes it reads
    it: a worker process, not the process that walks the inputs.
    """

    source_path: str
    data: bytes | None
    line: int | None = None
    path: Path | None = None
    # Consecutive JSONL lines kept together (span exports arrive in batches, one per line).
    lines: tuple[tuple[int, bytes], ...] = ()

    @property
    def size(self) -> int:
        """Bytes of input this unit stands for (a file's size is looked up)."""
        if self.lines:
            return sum(len(raw) for _, raw in self.lines)
        if self.data is not None:
            return len(self.data)
        try:
            return self.path.stat().st_size if self.path is not None else 0
        except OSError:
            return 0


@dataclass(frozen=True, slots=True)
class LineRange:
    """The JSONL lines in bytes [start, end) of a file, the first being line `line`.

    Cut at line starts by the process that walks the inputs and read by whoever
    processes it (`read_line_range`), so the JSONL bytes need not pass through the parent.
    """

    source_path: str
    path: Path
    start: int
    end: int
    line: int

    @property
    def size(self) -> int:
        return self.end - self.start


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
    path: Path,
    name: str,
    target: int,
    joined: Callable[[bytes, bytes], bool],
) -> Iterator[LineRange | Failure]:
    """A JSONL file as LineRanges of about `target` bytes, each cut at a line start.

    A cut never falls between two non-blank lines (blank ones between them aside)
    for which `joined(before, after)` holds. The bulk of a range is read in one
    block and only its newlines counted; lines are looked at only around a cut.
    """
    start = offset = 0
    line = number = 1  # first line of the range; line number at `offset`
    last: bytes | None = None  # the last non-blank line before `offset`; None: not known
    try:
        with path.open("rb", buffering=READ_BUFFER) as handle:
            while True:
                want = start + target - offset
                if want > 0:
                    block = handle.read(want)
                    if not block:
                        break
                    rest = b"" if block.endswith(b"\n") else handle.readline()
                    offset += len(block) + len(rest)
                    number += _newlines(block) + rest.count(b"\n")
                    if rest:
                        tail = block[block.rfind(b"\n") + 1 :] + rest
                    else:
                        tail = block[block.rfind(b"\n", 0, len(block) - 1) + 1 :]
                    last = None if tail.isspace() else tail
                cut = False
                for raw in handle:
                    if not raw.isspace():  # what `raw.strip()` tests, without a copy
                        cut = last is not None and not joined(last, raw)
                        if cut:
                            yield LineRange(name, path, start, offset, line)
                            start, line = offset, number
                        last = raw
                    offset += len(raw)
                    number += 1
                    if cut:
                        break
                if not cut:
                    break
    except OSError as exc:
        if offset > start:
            yield LineRange(name, path, start, offset, line)
        yield Failure(name, f"cannot read: {exc.strerror or exc}")
        return
    if offset > start:
        yield LineRange(name, path, start, offset, line)


def read_line_range(unit: LineRange) -> Iterator[RawUnit | Failure]:
    """The non-blank lines of a LineRange as RawUnits, numbered as in the whole file."""
    name = unit.source_path
    try:
        with unit.path.open("rb", buffering=READ_BUFFER) as handle:
            handle.seek(unit.start)
            offset, number = unit.start, unit.line
            for raw in handle:
                if not raw.isspace():
                    yield RawUnit(name, raw, line=number)
                offset += len(raw)
                number += 1
                if offset >= unit.end:
                    break
    except OSError as exc:
        yield Failure(name, f"cannot read: {exc.strerror or exc}")


def _stdin_units(stdin: Any, name: str) -> Iterator[RawUnit]:
    """Standard input, JSONL streamed line by line; anything else read whole.

    Reads only until it can tell the two apart; the decision and the line numbers
    are those `_looks_like_jsonl` and `bytes.splitlines` give on the whole input.
    """
    if stdin is None:
        yield RawUnit(name, b"")
        return
    head: list[bytes] = []
    non_blank = 0
    for chunk in iter(stdin.readline, b""):
        head.append(chunk)
        non_blank += sum(1 for line in chunk.splitlines() if line.strip())
        if non_blank >= 2:
            break
    prefix = b"".join(head)
    if non_blank < 2 or not _looks_like_jsonl(prefix):
        yield RawUnit(name, prefix + stdin.read())
        return
    number = 0
    for chunk in itertools.chain(head, iter(stdin.readline, b"")):
        for raw in chunk.splitlines(keepends=True):
            number += 1
            if raw.strip():
                yield RawUnit(name, raw, line=number)


def _jsonl_units(path: Path, name: str) -> Iterator[RawUnit | Failure]:
    try:
        with path.open("rb", buffering=READ_BUFFER) as handle:
            for number, raw in enumerate(handle, start=1):
                if raw.strip():
                    yield RawUnit(name, raw, line=number)
    except OSError as exc:
        yield Failure(name, f"cannot read: {exc.strerror or exc}")


def _with_next_name(
    entries: Iterator[tuple[str, Path | None, str | None]],
) -> Iterator[tuple[tuple[str, Path | None, str | None], str | None]]:
    """Each entry with the display name of the one after it (None for the last)."""
    current = next(entries, None)
    while current is not None:
        following = next(entries, None)
        yield current, None if following is None else following[0]
        current = following


def iter_units(
    paths: Iterable[str],
    stdin: Any = None,
    range_bytes: int = 0,
    joined: Callable[[bytes, bytes], bool] | None = None,
    suffixes: tuple[str, ...] = TRACE_SUFFIXES,
) -> Iterator[RawUnit | LineRange | Failure]:
    """Every input unit (JSONL line or whole document) of the given inputs, in order.

    Reading is incremental: a JSONL file or JSONL on standard input is never
    held whole. Failures stand in for paths that cannot be read. With `range_bytes`
    (and `joined`, see `line_ranges`), a JSONL file comes as LineRanges instead of lines.
    """
    previous = None
    entries = _with_next_name(expand_paths(paths, suffixes))
    for (name, path, problem), following in entries:
        # Lines of one name next to each other may be grouped across the two files
        # (stream.group_export_lines): such files are read line by line.
        alone = name not in (previous, following)
        previous = name
        if problem is not None:
            yield Failure(name, problem)
        elif path is None:
            yield from _stdin_units(stdin, name)
        elif path.suffix in JSONL_SUFFIXES and range_bytes > 0 and joined is not None and alone:
            yield from line_ranges(path, name, range_bytes, joined)
        elif path.suffix in JSONL_SUFFIXES:
            yield from _jsonl_units(path, name)
        else:
            yield RawUnit(name, None, path=path)


def decode_unit(
    unit: RawUnit, keep_text: bool = False, readers: Mapping[str, Reader] | None = None
) -> list[Document | Failure]:
    """Decode one unit into its documents; a Failure (with the JSONL line, if any) for each
    part that is not valid JSON. A file whose suffix has one of `readers` is decoded by it."""
    name = unit.source_path
    if unit.lines:
        return [_decode_line(name, number, raw, keep_text) for number, raw in unit.lines]
    data = unit.data
    if data is None:
        assert unit.path is not None
        try:
            data = unit.path.read_bytes()
        except OSError as exc:
            return [Failure(name, f"cannot read: {exc.strerror or exc}")]
    if unit.line is not None:
        return [_decode_line(name, unit.line, data, keep_text)]
    reader = readers.get(unit.path.suffix) if readers and unit.path is not None else None
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


def _decode_line(name: str, number: int, data: bytes, keep_text: bool) -> Document | Failure:
    try:
        text = decode_bytes(data) if keep_text else None
        return Document(name, decode_json_bytes(data), line=number, start_line=number, text=text)
    except InputError as exc:
        return Failure(name, str(exc), line=number)


def iter_documents(
    paths: Iterable[str],
    stdin: Any = None,
    keep_text: bool = False,
    suffixes: tuple[str, ...] = TRACE_SUFFIXES,
    readers: Mapping[str, Reader] | None = None,
) -> Iterator[Document | Failure]:
    """Every JSON document of the given inputs, in order; failures in place of bad ones.
    Directories are walked for `suffixes`; files with a suffix in `readers` decoded by it."""
    for unit in iter_units(paths, stdin, suffixes=suffixes):
        parts = read_line_range(unit) if isinstance(unit, LineRange) else (unit,)
        for part in parts:
            if isinstance(part, Failure):
                yield part
            else:
                yield from decode_unit(part, keep_text, readers)
