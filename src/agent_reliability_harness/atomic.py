"""Report files written all or nothing (a temporary file in the target's directory, fsynced,
then renamed), the check that they can be created before a run starts, and the spool a
streamed report's elements wait in."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Iterator
from typing import Any

STDOUT = "-"


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
    if not target:
        return "empty path"
    if "\0" in target:
        return "a path cannot hold a NUL byte"
    if target == STDOUT or _special(target):
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
    final = os.path.realpath(target)  # through a symlink: replace the file it names
    directory = os.path.dirname(final) or "."
    temp = ""
    try:
        # The name is known before the file exists, so a signal that lands while it is
        # being created (KeyboardInterrupt at any bytecode) still finds it to remove.
        fd = -1
        while fd < 0:
            temp = os.path.join(directory, f".{os.path.basename(final)}.{os.urandom(6).hex()}.tmp")
            fd = _create(temp)
            if fd < 0:
                temp = ""  # taken by another writer: not ours to remove
        with open(fd, "w", encoding="utf-8", newline="\n") as handle:
            for piece in pieces:
                handle.write(piece)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, _new_file_mode(final))
        os.replace(temp, final)
    except BaseException:
        if temp:
            with contextlib.suppress(OSError):
                os.unlink(temp)
        raise
    _fsync_directory(directory)


_TEMPORARY_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


def _create(path: str) -> int:
    """A new file at `path`, mode 0600 as mkstemp makes one (its final mode is set before
    the rename); -1 when the name is taken."""
    try:
        return os.open(path, _TEMPORARY_FLAGS, 0o600)
    except FileExistsError:
        return -1


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


# Characters a Spool holds in memory before it moves them to a temporary file: a small
# run's report never creates one (nor imports tempfile), a large run's stays bounded.
SPOOL_IN_MEMORY = 1 << 20


class Spool:
    """Text appended in pieces and read back once, kept in a temporary file rather than
    in memory (a streamed report's elements, which are written after its summary) once
    there is more than `in_memory` characters of it."""

    def __init__(self, in_memory: int = SPOOL_IN_MEMORY) -> None:
        self._file: Any = None
        self._held: list[str] = []
        self._room = in_memory
        self.empty = True

    def write(self, text: str) -> None:
        self.empty = self.empty and not text
        if self._file is None:
            self._held.append(text)
            self._room -= len(text)
            if self._room >= 0:
                return
            import tempfile  # noqa: PLC0415 - only when something is spooled

            # Closed by chunks() (or when the run dies and the object goes away).
            self._file = tempfile.TemporaryFile("w+", encoding="utf-8", newline="\n")  # noqa: SIM115
            text, self._held = "".join(self._held), []
        self._file.write(text)

    def chunks(self, size: int = 1 << 20) -> Iterator[str]:
        """What was written, in pieces of about `size` characters; then it is gone."""
        if self._file is None:
            held, self._held = "".join(self._held), []
            for start in range(0, len(held), size):
                yield held[start : start + size]
            return
        handle, self._file = self._file, None
        try:
            handle.seek(0)
            while piece := handle.read(size):
                yield piece
        finally:
            handle.close()
