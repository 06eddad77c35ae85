"""Inputs named by URL (s3://, gs://, file://, ... anything fsspec reads), for runs over
object storage; fsspec is imported only when a URL is given (`pip install 'arh[dask]'`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO, TypeVar

from ..errors import InputError
from ..io import is_url
from ..version import DISTRIBUTION

_GLOB = re.compile(r"[*?\[]")
_T = TypeVar("_T")

__all__ = ["RemoteFile", "expand_url", "is_url", "open_remote"]


@dataclass(frozen=True, slots=True)
class RemoteFile:
    """One file behind a URL; picklable, so a worker process or Dask worker opens it."""

    url: str


def _fsspec() -> Any:
    try:
        import fsspec  # noqa: PLC0415 - optional, only for URL inputs
    except ImportError:
        raise InputError(f"reading URLs needs fsspec: pip install '{DISTRIBUTION}[dask]'") from None
    return fsspec


def _store(call: Callable[[], _T]) -> _T:
    """`call()` with the store's own failures as InputError `cannot read: <why>`: an
    unknown scheme, a filesystem whose packages are missing (https:// needs aiohttp),
    a refused connection. OSError passes through (the caller words it)."""
    try:
        return call()
    except (ImportError, ValueError, RuntimeError) as exc:
        raise InputError(f"cannot read: {exc}") from None


def expand_url(raw: str, suffixes: tuple[str, ...]) -> list[tuple[str, RemoteFile, str]]:
    """(display name, file, path relative to the argument) for each file a URL names: the
    file itself, every file matching a glob, or every file with one of `suffixes` under a
    directory (sorted as a local walk is). Raises InputError (OSError from the store)."""
    fsspec = _fsspec()
    return _store(lambda: _expand(fsspec, raw, suffixes))


def _expand(fsspec: Any, raw: str, suffixes: tuple[str, ...]) -> list[tuple[str, RemoteFile, str]]:
    fs, root = fsspec.core.url_to_fs(raw)
    if _GLOB.search(root):
        found = [p for p in sorted(fs.glob(root)) if fs.isfile(p)]
        return [(fs.unstrip_protocol(p), RemoteFile(fs.unstrip_protocol(p)), p) for p in found]
    if fs.isdir(root):
        base = root.rstrip("/")
        files = []
        for path in fs.find(root):
            rel = path[len(base) :].lstrip("/")
            name = rel.rsplit("/", 1)[-1]
            if any(name.endswith(s) and len(name) > len(s) for s in suffixes):
                files.append((tuple(rel.split("/")), path))
        files.sort()
        return [
            (fs.unstrip_protocol(p), RemoteFile(fs.unstrip_protocol(p)), "/".join(parts))
            for parts, p in files
        ]
    if fs.exists(root):
        url = fs.unstrip_protocol(root)
        return [(url, RemoteFile(url), url)]
    raise InputError("no such file or directory")


def open_remote(file: RemoteFile) -> BinaryIO:
    """The file opened for reading (close it); raises OSError."""
    try:
        fsspec = _fsspec()
        handle: BinaryIO = _store(lambda: fsspec.open(file.url, "rb").open())
    except InputError as exc:
        raise OSError(str(exc).removeprefix("cannot read: ")) from None
    return handle
