"""Standard streams that keep the CLI's promises under faults.

Standard output that cannot be written (closed, a full disk, a reader gone) is dropped
from the first failure on: the run goes on (report files are still written) and ends
with one `error:` line (a closed pipe: quietly) and exit 1, never a traceback, an
"internal error" or Python's exit code 120. A closed or failing standard error drops
messages: they never go to standard output, where they would corrupt `--json-out -`.
"""

from __future__ import annotations

import errno
import io
import os
import sys
from typing import TextIO, cast


class OutputFailed:
    """Why standard output could not be written (the OSError's errno and text)."""

    def __init__(self, code: int, reason: str) -> None:
        self.code = code
        self.reason = reason

    def message(self) -> str | None:
        """The error line to print, or None for a closed pipe (the reader chose to stop)."""
        if self.code == errno.EPIPE:
            return None
        return f"cannot write to standard output: {self.reason}"


def _failed(exc: OSError) -> OutputFailed:
    return OutputFailed(exc.errno or 0, exc.strerror or str(exc))


class GuardedOut(io.TextIOBase):
    """Standard output (None: closed) that records its first failure and from then on
    drops what is written (`failure`)."""

    def __init__(self, stream: TextIO | None) -> None:
        super().__init__()
        self.stream = stream
        self.failure: OutputFailed | None = None

    def write(self, text: str) -> int:
        if self.failure is None:
            if self.stream is None:
                self.failure = OutputFailed(errno.EBADF, "it is closed")
            else:
                try:
                    self.stream.write(text)
                except OSError as exc:
                    self.failure = _failed(exc)
        return len(text)

    def flush(self) -> None:
        if self.failure is None and self.stream is not None:
            try:
                self.stream.flush()
            except OSError as exc:
                self.failure = _failed(exc)

    def isatty(self) -> bool:
        try:
            return self.stream is not None and self.stream.isatty()
        except (OSError, ValueError):
            return False


class QuietErr(io.TextIOBase):
    """Standard error (None: closed) that drops what it cannot write."""

    def __init__(self, stream: TextIO | None) -> None:
        super().__init__()
        self.stream = stream

    def write(self, text: str) -> int:
        if self.stream is not None:
            try:
                self.stream.write(text)
                self.stream.flush()  # one line at a time, as a terminal shows it
            except (OSError, ValueError):
                self.stream = None
        return len(text)

    def flush(self) -> None:
        return None

    def isatty(self) -> bool:
        try:
            return self.stream is not None and self.stream.isatty()
        except (OSError, ValueError):
            return False


def guarded(out: TextIO | None) -> GuardedOut:
    return GuardedOut(out)


def as_text(stream: io.TextIOBase) -> TextIO:
    return cast(TextIO, stream)


def quiet(err: TextIO | None) -> TextIO:
    return cast(TextIO, QuietErr(err))


def fill_closed_descriptors() -> None:
    """Put /dev/null on standard descriptors closed at start, so that no file this run
    opens gets their number (a report opened as fd 2 would receive whatever a worker
    process writes to its standard error)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                opened = os.open(os.devnull, os.O_RDWR)
            except OSError:
                return
            if opened != fd:
                os.dup2(opened, fd)
                os.close(opened)


def flush_system() -> OutputFailed | None:
    """Flush the process's standard output before the interpreter does (what argparse
    printed for --help is still buffered); a failure is returned, and both streams
    are pointed at /dev/null so that the interpreter's own final flush succeeds."""
    failure: OutputFailed | None = None
    for stream, fd in ((sys.stdout, 1), (sys.stderr, 2)):
        if stream is None:
            continue
        try:
            stream.flush()
        except OSError as exc:
            if fd == 1:
                failure = _failed(exc)
            _to_devnull(fd)
        except ValueError:  # closed by someone else
            pass
    return failure


def _to_devnull(fd: int) -> None:
    try:
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    os.dup2(null, fd)
    os.close(null)
