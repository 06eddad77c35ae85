"""The io stage's base: strict JSON decoding, names as reports show them, and the one
bounded read path of every input (traces, policies, reports).

Decoding is strict and bounded: invalid UTF-8, NaN/Infinity, numbers out of range,
lone surrogates and runaway nesting all become InputError naming line and column
(json_problems.py words them). Reads take regular files only (a device or a pipe may
never end, or never start) and never hold more than the input limit. Walking inputs
into units is inputs/; writing reports is atomic.py. Nothing here knows what a trace is.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import re
import stat
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, BinaryIO

from .atomic import Spool, check_creatable, write_atomic
from .errors import InputError
from .json_problems import first_problem, utf8_position
from .nesting import within

STDIN = "-"
STDIN_NAME = "<stdin>"
TRACE_SUFFIXES = (".json", ".jsonl")
JSONL_SUFFIXES = (".jsonl", ".ndjson")
_BOM = b"\xef\xbb\xbf"
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
    raise ValueError(f"{name} is not valid JSON, only finite numbers are allowed")


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


def check_depth(data: bytes | str) -> None:
    """Raise InputError when valid JSON text nests deeper than MAX_DEPTH (nesting.py)."""
    if not within(data):
        text = data if isinstance(data, str) else data.decode("utf-8", "replace")
        raise InputError(_refusal(text, "nesting is too deep"))


def _refusal(text: str, fallback: str) -> str:
    """`invalid JSON: <what> (line L, column C)` for the first value of an otherwise
    well-formed text that strict JSON refuses (`fallback` if none is found)."""
    found = first_problem(text)
    return f"invalid JSON: {found or fallback}"


def decode_json(text: str) -> Any:
    """Decode one JSON value strictly; raises InputError naming line and column."""
    try:
        value = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:
        raise InputError(_refusal(text, "nesting is too deep")) from None
    except ValueError as exc:
        detail = str(exc)
        if "integer string conversion" in detail:
            detail = "a number has too many digits"
        raise InputError(_refusal(text, detail)) from None
    if ("\\ud" in text or "\\uD" in text) and _lone_surrogate(value):
        raise InputError(_refusal(text, "a string contains a lone surrogate"))
    check_depth(text)
    return value


def decode_bytes(data: bytes) -> str:
    """Strict UTF-8 (an initial byte-order mark is allowed); raises InputError."""
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = utf8_position(data, exc.start)
        raise InputError(
            f"not valid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start} "
            f"(line {line}, column {column})"
        ) from None


def shown_name(name: str) -> str:
    """A file name as every report shows it and trace ids derive from it: a name that is
    not valid UTF-8 (bytes the filesystem gave as surrogate escapes) has each such byte
    as the four characters `\\xNN`, so it can be written anywhere and stays distinct."""
    if name.isascii():
        return name
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        try:
            raw = name.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a surrogate no file system gave: escape it as such
            return name.encode("utf-8", "backslashreplace").decode("utf-8")
        return raw.decode("utf-8", "backslashreplace")
    return name


EMPTY_NAME = "''"


def display_path(path: str | os.PathLike[str], cwd: str | None = None) -> str:
    """A stable, machine-independent name for a path: relative to the working directory
    (`cwd`, looked up when not given), with `shown_name`'s escapes."""
    text = os.fspath(path)
    if text == STDIN:
        return STDIN_NAME
    if text == "":
        return EMPTY_NAME
    pure = PurePath(text)
    if pure.is_absolute():
        with contextlib.suppress(ValueError, OSError):
            pure = pure.relative_to(cwd if cwd is not None else Path.cwd())
    return shown_name(pure.as_posix())


# The most bytes of one input held in memory at once: a file read whole, one JSONL line,
# a policy, a report, standard input. A canonical trace file read a chunk of steps at a
# time is not held, so it is not bounded. Raised with --max-input-bytes or the variable.
DEFAULT_MAX_INPUT_BYTES = 1 << 30
MAX_INPUT_ENV = "ARH_MAX_INPUT_BYTES"
_SIZE = re.compile(r"\s*([0-9]+)\s*(?:([KMGT])(?:i?B)?|B)?\s*", re.IGNORECASE)


def parse_size(text: str) -> int:
    """`1048576`, `512K`, `64M`, `2G`, `1GiB` (binary multiples) as bytes; ValueError
    unless it is a whole number of at least 1 byte."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise ValueError(f"not a size: {text!r} (e.g. 1073741824, 512M or 2G)")
    unit = (match.group(2) or "").upper()
    size = int(match.group(1)) << (10 * " KMGT".index(unit or " "))
    if size < 1:
        raise ValueError(f"must be at least 1 byte (got {text!r})")
    return size


_LIMIT: ContextVar[int | None] = ContextVar("arh_max_input_bytes", default=None)


@contextlib.contextmanager
def input_limit(limit: int | None) -> Iterator[None]:
    """Within this block, `max_input_bytes()` is `limit` (None: as outside it)."""
    token = _LIMIT.set(limit if limit is not None else _LIMIT.get())
    try:
        yield
    finally:
        _LIMIT.reset(token)


def max_input_bytes() -> int:
    """The input limit: the one `input_limit` set (the CLI's --max-input-bytes), else
    $ARH_MAX_INPUT_BYTES, else DEFAULT_MAX_INPUT_BYTES; ValueError when the variable
    is not a size."""
    chosen = _LIMIT.get()
    if chosen is not None:
        return chosen
    raw = os.environ.get(MAX_INPUT_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_INPUT_BYTES
    try:
        return parse_size(raw)
    except ValueError as exc:
        raise ValueError(f"{MAX_INPUT_ENV}: {exc}") from None


class Unreadable(OSError):
    """An input refused before it is read (not a regular file, or over the input limit):
    an OSError, so that `cannot read: <strerror>` reports it like any other."""


def _over_limit(what: str, limit: int) -> str:
    return (
        f"{what} the input limit of {limit} bytes (raise it with --max-input-bytes "
        f"or {MAX_INPUT_ENV})"
    )


def too_large(limit: int) -> Unreadable:
    """The refusal of an input over the limit."""
    return Unreadable(errno.EFBIG, _over_limit("larger than", limit))


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
)


def not_regular(mode: int) -> str | None:
    """Why a file of this mode is not read (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    kind = next((name for test, name in _KINDS if test(mode)), "a special file")
    if kind == "a directory":
        return os.strerror(errno.EISDIR)
    return f"{kind}, not a regular file (redirect it to standard input and give - to read it)"


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _open_fd(path: str) -> tuple[int, int]:
    """An fd of a regular file and its size. Opened without blocking (a FIFO with no
    writer would block the open itself), then refused unless regular; raises OSError."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        info = os.fstat(fd)
        why = not_regular(info.st_mode)
        if why is not None:
            raise Unreadable(errno.EINVAL, why)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, info.st_size


def open_local(path: str, buffering: int = READ_BUFFER) -> BinaryIO:
    """A local regular file opened for reading bytes; raises OSError (Unreadable)."""
    fd, _ = _open_fd(path)
    return os.fdopen(fd, "rb", buffering=buffering)


def read_local(path: str, limit: int, stream_from: int | None = None) -> bytes | None:
    """The bytes of a local regular file, read with one open, fstat and read (a directory
    walk may read millions); None when `stream_from` is given and the file has at least
    that many bytes, for the caller to stream. Raises OSError (Unreadable)."""
    fd, size = _open_fd(path)
    try:
        if stream_from is not None and size >= stream_from:
            return None
        if size > limit:
            raise too_large(limit)
        data = os.read(fd, size + 1)
        if len(data) == size:  # a regular file returns everything it holds at once
            return data
        # It grew or shrank meanwhile: read on, within the limit.
        with os.fdopen(os.dup(fd), "rb") as handle:
            return data + read_stream(handle, limit - len(data))
    finally:
        os.close(fd)


def read_stream(handle: BinaryIO, limit: int) -> bytes:
    """Everything a stream holds (standard input, a file behind a URL), at most `limit`
    bytes; raises OSError (Unreadable when there is more)."""
    data = handle.read(limit + 1)
    if len(data) > limit:
        raise too_large(limit)
    return data


def read_lines(handle: BinaryIO, limit: int) -> Iterator[tuple[bytes, int]]:
    """Each line of a binary stream with its length in bytes, as iterating over it gives
    them, except that a line of more than `limit` bytes (newline aside) comes as
    (b"", length): read past in pieces, never held. Raises OSError."""
    readline = handle.readline
    cap = limit + 1
    while raw := readline(cap):
        if len(raw) < cap or raw.endswith(b"\n"):
            yield raw, len(raw)
            continue
        size = len(raw)
        while not raw.endswith(b"\n"):
            raw = readline(READ_BUFFER)
            if not raw:
                break
            size += len(raw)
        yield b"", size


def line_too_long(limit: int) -> str:
    """The problem with a line that `read_lines` read past."""
    return "cannot read: " + _over_limit("a line longer than", limit)


def read_input(
    path: str | os.PathLike[str], stdin: BinaryIO | None = None, limit: int | None = None
) -> bytes:
    """A whole input within the input limit (`-` with `stdin` given: standard input), the
    one read of policies and reports. InputError `cannot read: ...`."""
    text = os.fspath(path)
    bound = max_input_bytes() if limit is None else limit
    try:
        if text == STDIN and stdin is not None:
            return read_stream(stdin, bound)
        if not text:
            raise Unreadable(errno.ENOENT, "empty path")
        data = read_local(text, bound)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:  # a NUL byte in the path
        raise InputError(f"cannot read: {exc}") from None
    assert data is not None
    return data


def list_files(directory: str | os.PathLike[str], suffixes: tuple[str, ...]) -> list[Path] | None:
    """The files directly inside `directory` whose names end in one of `suffixes`, sorted
    by name; None when `directory` is not a directory (or is empty: no path)."""
    if not os.fspath(directory):
        return None
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


# The fast decoder (msgspec) agrees with the strict path: it rejects NaN/Infinity,
# out-of-range numbers, lone surrogates and bad UTF-8 (the strict path then gives the
# exact message), keeps big integers exact and keeps the last of duplicate keys like
# json does; both refuse nesting beyond MAX_DEPTH (check_depth).
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
            value = decoder.decode(data)
        except Exception:  # any refusal: the strict path names the exact problem
            pass
        else:
            if within(data):
                return value
    return decode_json(decode_bytes(data))


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


__all__ = [
    "DEFAULT_MAX_INPUT_BYTES",
    "JSONL_SUFFIXES",
    "MAX_INPUT_ENV",
    "READ_BUFFER",
    "STDIN",
    "STDIN_NAME",
    "TRACE_SUFFIXES",
    "Document",
    "Failure",
    "Spool",
    "Unreadable",
    "check_creatable",
    "check_depth",
    "decode_bytes",
    "decode_json",
    "decode_json_bytes",
    "display_path",
    "input_limit",
    "iter_jsonl",
    "line_too_long",
    "list_files",
    "max_input_bytes",
    "not_regular",
    "open_local",
    "parse_size",
    "read_document",
    "read_input",
    "read_lines",
    "read_local",
    "read_stream",
    "shown_name",
    "start_line",
    "too_large",
    "write_atomic",
]
