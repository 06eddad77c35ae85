"""A guarded session's state between hook processes: its steps so far (a canonical trace)
and which calls wait for an outcome, in one JSON file per session under --state, written
atomically, read and written under an exclusive lock (two hooks of one session at once
must not lose a step). A file that cannot be read is set aside, never reset silently."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from ..models.trace import Trace, parse_trace

__all__ = ["StateError", "default_state_dir", "locked", "read_state", "write_state"]

FORMAT = "arh-guard-state"
VERSION = 1


class StateError(Exception):
    """A state file that cannot be used (damaged, or locked past the timeout)."""


def default_state_dir() -> str:
    """$XDG_CACHE_HOME/arh/guard (default ~/.cache/arh/guard)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return str(Path(base) / "arh" / "guard")


@contextlib.contextmanager
def locked(path: Path, deadline: float) -> Iterator[None]:
    """An exclusive lock on `path`.lock, waited for until `deadline` (time.monotonic)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise StateError(f"state {path.name} is locked by another hook") from None
                time.sleep(0.002)  # the other hook holds it for one decision
        yield
    finally:
        os.close(fd)  # releases the lock


def read_state(path: Path) -> tuple[Trace, list[str]] | None:
    """The session's trace and pending call ids, or None for a new session; a damaged
    file is renamed to `<name>.damaged-<n>` and StateError raised."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        data: Any = msgspec.json.decode(raw)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError("not an arh guard state file")
        if data.get("version") != VERSION:
            raise ValueError(f"state version {data.get('version')!r} is not {VERSION}")
        pending = data["pending"]
        if not isinstance(pending, list) or not all(isinstance(i, str) for i in pending):
            raise ValueError("pending is not a list of step ids")
        return parse_trace(data["trace"]), pending
    except Exception as exc:
        aside = _set_aside(path)
        raise StateError(
            f"damaged state for this session set aside as {aside.name} ({exc})"
        ) from None


def _set_aside(path: Path) -> Path:
    for n in range(1, 10_000):
        aside = path.with_name(f"{path.name}.damaged-{n}")
        if not aside.exists():
            path.rename(aside)
            return aside
    raise StateError(f"too many damaged states of {path.name}")


def write_state(path: Path, trace: Trace, pending: list[str]) -> None:
    """The state, atomically (a temporary file renamed over the old one)."""
    from .service import _plain  # noqa: PLC0415

    data = {"format": FORMAT, "version": VERSION, "pending": pending, "trace": _plain(trace)}
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(msgspec.json.encode(data))
    os.replace(tmp, path)
