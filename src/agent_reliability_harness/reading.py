"""The one bounded read path of every input (traces, policies, reports, standard input):
regular files only (a device or a pipe may never end, or never start) and never more
than the input limit held at once, with a clear `cannot read: ...` otherwise."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from collections.abc import Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, BinaryIO

from .errors import InputError

if TYPE_CHECKING:
    from pathlib import Path

STDIN = "-"
# Buffer of a JSONL file read line by line: trace lines are often longer than the default
# 8 KB buffer, and a line across buffer refills costs ~5x more to read.
READ_BUFFER = 1 << 20


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


def _open_fd(path: str, blocking: bool = True) -> tuple[int, int]:
    """An fd of a regular file and its size. Opened without blocking (a FIFO with no
    writer would block the open itself), then refused unless regular, then made blocking
    unless `blocking` is False; raises OSError."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        info = os.fstat(fd)
        why = not_regular(info.st_mode)
        if why is not None:
            raise Unreadable(errno.EINVAL, why)
        if blocking:
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
    # The fd stays non-blocking: reads of a regular file ignore O_NONBLOCK (open(2)), and
    # the two fcntl calls of set_blocking cost as much as the open and read together.
    # Should a file system honour it after all, the read says so and is made again.
    fd, size = _open_fd(path, blocking=False)
    try:
        if stream_from is not None and size >= stream_from:
            return None
        if size > limit:
            raise too_large(limit)
        try:
            data = os.read(fd, size + 1)
        except BlockingIOError:
            os.set_blocking(fd, True)
            data = os.read(fd, size + 1)
        if len(data) == size:  # a regular file returns everything it holds at once
            return data
        # It grew or shrank meanwhile: read on, within the limit (blocking, as a dup
        # shares the flags).
        os.set_blocking(fd, True)
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


# The errors pathlib's Path.is_dir() takes for "not a directory" (it raises the others).
_NOT_THERE = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)


def _is_dir(path: str | os.PathLike[str]) -> bool:
    """Path(path).is_dir(), without importing pathlib for a path that is a file."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError as exc:
        if exc.errno not in _NOT_THERE:
            raise
        return False
    except ValueError:  # a NUL byte in the path
        return False


def list_files(directory: str | os.PathLike[str], suffixes: tuple[str, ...]) -> list[Path] | None:
    """The files directly inside `directory` whose names end in one of `suffixes`, sorted
    by name; None when `directory` is not a directory (or is empty: no path)."""
    if not os.fspath(directory) or not _is_dir(directory):
        return None
    from pathlib import Path  # noqa: PLC0415 - only for a directory of policies

    path = Path(directory)
    try:
        return sorted(
            (p for p in path.iterdir() if p.suffix in suffixes and p.is_file()),
            key=lambda p: p.name,
        )
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}") from None
