"""Inputs named by URL (s3://, gs://, file://, ... anything fsspec reads), for runs over
object storage; fsspec is imported only when a URL is given (`pip install 'arh[dask]'`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, BinaryIO

from ..errors import InputError
from ..version import DISTRIBUTION

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_GLOB = re.compile(r"[*?\[]")


def is_url(raw: str) -> bool:
    """Whether an input argument names a URL rather than a local path."""
    return _SCHEME.match(raw) is not None


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


def expand_url(raw: str, suffixes: tuple[str, ...]) -> list[tuple[str, RemoteFile, str]]:
    """(display name, file, path relative to the argument) for each file a URL names: the
    file itself, every file matching a glob, or every file with one of `suffixes` under a
    directory (sorted as a local walk is). Raises InputError (OSError from the store)."""
    fs, root = _fsspec().core.url_to_fs(raw)
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
        handle: BinaryIO = _fsspec().open(file.url, "rb").open()
    except InputError as exc:
        raise OSError(str(exc)) from None
    return handle
