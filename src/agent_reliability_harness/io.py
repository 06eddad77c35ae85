"""The io stage's base: strict JSON decoding, whole-file reads and atomic report writes.

Decoding is strict and bounded: invalid UTF-8, NaN/Infinity, numbers out of range,
lone surrogates and runaway nesting all become InputError with a position. Walking
inputs into units is `sources.py`. Nothing here knows what a trace is.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, BinaryIO

from .errors import InputError
from .nesting import MAX_DEPTH, within

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


_TOO_DEEP = f"invalid JSON: nesting is too deep (more than {MAX_DEPTH} levels)"


def check_depth(data: bytes | str) -> None:
    """Raise InputError when valid JSON text nests deeper than MAX_DEPTH (nesting.py)."""
    if not within(data):
        raise InputError(_TOO_DEEP)


def decode_json(text: str) -> Any:
    """Decode one JSON value strictly; raises InputError naming line and column."""
    try:
        value = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:
        raise InputError(_TOO_DEEP) from None
    except ValueError as exc:
        detail = str(exc)
        if "integer string conversion" in detail:
            detail = "a number has too many digits"
        raise InputError(f"invalid JSON: {detail}") from None
    if ("\\ud" in text or "\\uD" in text) and _lone_surrogate(value):
        raise InputError("invalid JSON: a string contains a lone surrogate (\\ud800-\\udfff)")
    check_depth(text)
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


_URL_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def is_url(raw: str) -> bool:
    """Whether an argument names a URL (`scheme://...`) rather than a local path."""
    return _URL_SCHEME.match(raw) is not None


def display_path(path: str | os.PathLike[str], cwd: str | None = None) -> str:
    """A stable, machine-independent name for a path: relative to the working directory
    (`cwd`, looked up when not given); a URL as given (`scheme://` intact)."""
    if str(path) == STDIN:
        return STDIN_NAME
    if isinstance(path, str) and is_url(path):
        return path
    pure = PurePath(path)
    if pure.is_absolute():
        with contextlib.suppress(ValueError, OSError):
            pure = pure.relative_to(cwd if cwd is not None else Path.cwd())
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
            check_depth(data)
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


def read_bytes(path: str | os.PathLike[str], stdin: BinaryIO | None = None) -> bytes:
    """A whole file (`-`: standard input, empty when there is none); raises OSError."""
    if str(path) == STDIN:
        return stdin.read() if stdin is not None else b""
    with open(path, "rb") as handle:
        return handle.read()


def read_local(path: str) -> bytes:
    """A whole local file, read with one open, fstat and read; raises OSError."""
    data = read_small(path, 1 << 62)
    assert data is not None
    return data


def read_small(path: str, limit: int) -> bytes | None:
    """The bytes of a local file smaller than `limit`, read with one open, fstat and read
    (a directory walk may read millions); None when it is `limit` bytes or more, for the
    caller to stream. Raises OSError."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        size = os.fstat(fd).st_size
        if size >= limit:
            return None
        data = os.read(fd, size + 1)
        if len(data) == size:  # a regular file returns everything it holds at once
            return data
        # It grew or shrank meanwhile, or is a special file whose size fstat does not know.
        blocks = [data]
        while block := os.read(fd, 1 << 20):
            blocks.append(block)
        return b"".join(blocks)
    finally:
        os.close(fd)


def _special(target: str) -> bool | None:
    """True for an existing device, pipe or socket (written in place, never replaced: a
    report to /dev/null must not turn it into a file), False for a regular file, None
    when there is nothing there."""
    try:
        mode = os.stat(target).st_mode
    except (OSError, ValueError):
        return None
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def check_creatable(target: str) -> str | None:
    """Why an output file could not be created (before a run starts), or None."""
    if target == STDIN or _special(target):
        return None
    final = os.path.realpath(target)
    if os.path.isdir(final):
        return os.strerror(21)  # EISDIR
    directory = os.path.dirname(final) or "."
    if not os.path.isdir(directory):
        return os.strerror(2)  # ENOENT
    if not os.access(directory, os.W_OK | os.X_OK):
        return os.strerror(13)  # EACCES
    return None


def write_atomic(target: str, pieces: Iterable[str]) -> None:
    """Write UTF-8 text to `target` all or nothing: into a temporary file in its directory,
    fsynced, then renamed over it. An interrupted or failed write leaves the old file as
    it was; concurrent writers each rename a complete file. A device or pipe (/dev/null,
    a FIFO) is written in place. Raises OSError."""
    if _special(target):
        with open(target, "w", encoding="utf-8", newline="\n") as handle:
            for piece in pieces:
                handle.write(piece)
        return
    import tempfile  # noqa: PLC0415 - only when a report is written

    final = os.path.realpath(target)  # through a symlink: replace the file it names
    directory = os.path.dirname(final) or "."
    fd, temp = tempfile.mkstemp(prefix=f".{os.path.basename(final)}.", suffix=".tmp", dir=directory)
    try:
        with open(fd, "w", encoding="utf-8", newline="\n") as handle:
            for piece in pieces:
                handle.write(piece)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, _new_file_mode(final))
        os.replace(temp, final)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_directory(directory)


def _new_file_mode(final: str) -> int:
    """The mode the replaced file had, or what `open()` would give a new one."""
    try:
        return stat.S_IMODE(os.stat(final).st_mode)
    except OSError:
        mask = os.umask(0o22)
        os.umask(mask)
        return 0o666 & ~mask


def _fsync_directory(directory: str) -> None:
    """Make the rename durable; some filesystems cannot fsync a directory (ignored)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class Spool:
    """Text appended in pieces and read back once, kept in a temporary file rather than
    in memory (a streamed report's elements, which are written after its summary)."""

    def __init__(self) -> None:
        self._file: Any = None
        self.empty = True

    def write(self, text: str) -> None:
        if self._file is None:
            import tempfile  # noqa: PLC0415 - only when something is spooled

            # Closed by chunks() (or when the run dies and the object goes away).
            self._file = tempfile.TemporaryFile("w+", encoding="utf-8", newline="\n")  # noqa: SIM115
        self._file.write(text)
        self.empty = self.empty and not text

    def chunks(self, size: int = 1 << 20) -> Iterator[str]:
        """What was written, in pieces of about `size` characters; then the file is gone."""
        if self._file is None:
            return
        handle, self._file = self._file, None
        try:
            handle.seek(0)
            while piece := handle.read(size):
                yield piece
        finally:
            handle.close()
