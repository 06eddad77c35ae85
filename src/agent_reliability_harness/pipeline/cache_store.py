"""Where `--cache DIR` keeps per-unit results: a content-addressed store of entries, one
file each, on a local path or behind an fsspec URL (s3://, gs://, file://, memory://).

An entry is `MAGIC + crc32(payload) + len(payload) + payload`, written to a temporary
name and renamed into place, so a reader sees a whole entry or none; a truncated or
corrupt one fails its length or checksum and is a miss (never a wrong verdict). The
checksum is against accidents (a disk, a copy cut short), not against someone who can
write the cache: they could write any entry with any checksum, so a cryptographic one
would add cost and no protection. Concurrent runs may write one key at the same time:
both write the same bytes, and the last rename wins.

Entries are read-touched so that `trim` evicts the least recently used first: a hit sets
the entry's mtime, unless it was set less than TOUCH_AFTER ago (as `relatime` does for
atime): a store read again and again costs no write per hit, and eviction order is exact
to within that time."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import struct
import time
import urllib.parse
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from ..errors import ArhError
from ..inputs import is_url

MAGIC = b"ARHC\x00\x02\r\n"
_HEAD = struct.Struct("<IQ")  # crc32 and length of the payload
_HEADER = len(MAGIC) + _HEAD.size
TOUCH_AFTER = 3600.0  # seconds: a hit on an entry used more recently leaves its mtime
_LAYOUT = "v1"  # the directory of this entry format, under the cache's root
_TMP = ".tmp-"
_READ = 1 << 16
# Non-blocking: a FIFO (or any special file) put in the cache must not hang a reader;
# what is not a regular file is a miss.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


class CacheUnavailable(ArhError):
    """The cache cannot be used (cannot be created or written): the run goes on without."""


@dataclass(frozen=True, slots=True)
class CacheStats:
    """How many entries a cache holds, and their bytes."""

    entries: int
    size: int

    def text(self) -> str:
        return f"entries: {self.entries}\nbytes: {self.size}\n"


def seal(payload: bytes) -> bytes:
    """An entry's bytes: the payload behind its checksum and length."""
    return MAGIC + _HEAD.pack(zlib.crc32(payload), len(payload)) + payload


def unseal(data: bytes) -> memoryview | None:
    """The payload of an entry's bytes (a view: an entry is not copied), or None when they
    are not a whole, intact entry."""
    if len(data) < _HEADER or not data.startswith(MAGIC):
        return None
    checksum, length = _HEAD.unpack_from(data, len(MAGIC))
    payload = memoryview(data)[_HEADER:]
    if len(payload) != length or zlib.crc32(payload) != checksum:
        return None
    return payload


class Store(Protocol):
    """Entries by key (hex digests). Reads never raise: a missing, unreadable or corrupt
    entry is None. Writes raise OSError (the caller decides whether that matters)."""

    def get(self, key: str) -> bytes | memoryview | None: ...

    def put(self, key: str, payload: bytes) -> None: ...

    def check_writable(self) -> None:
        """Raise CacheUnavailable unless an entry can be written."""

    def stats(self) -> CacheStats: ...

    def clear(self) -> int:
        """Remove every entry; how many were removed."""

    def trim(self, max_size: int, written: int | None = None) -> int:
        """Evict least recently used entries until at most `max_size` bytes remain; how
        many were evicted. `written`: the bytes of the entries this run wrote (a store
        that keeps a tally of its size need not scan its entries while it fits)."""


def _shard(key: str) -> tuple[str, str]:
    return key[:2], key[2:]


def entry_size(payload: bytes) -> int:
    """The bytes an entry of this payload takes."""
    return _HEADER + len(payload)


def _evict(found: list[tuple[float, str, int]], max_size: int, remove: Any) -> tuple[int, int]:
    """Remove (mtime, name, size) entries oldest first until the rest fit in max_size:
    how many were removed, and the bytes left."""
    total = sum(size for _, _, size in found)
    evicted = 0
    for _, name, size in sorted(found):
        if total <= max_size:
            break
        with contextlib.suppress(OSError):  # gone already: another run evicted it
            remove(name)
        total -= size
        evicted += 1
    return evicted, total


class LocalStore:
    """A cache directory on a local (or shared, mounted) file system."""

    def __init__(self, root: str) -> None:
        self.root = os.path.join(root, _LAYOUT)
        # A hit on an entry touched after this leaves it as it is (TOUCH_AFTER).
        self.touched = time.time() - TOUCH_AFTER

    def _path(self, key: str) -> str:
        return f"{self.root}{os.sep}{key[:2]}{os.sep}{key[2:]}"  # _shard

    def get(self, key: str) -> memoryview | None:
        # File descriptors, not file objects: a hit is ~4 us cheaper (of ~12).
        try:
            fd = os.open(self._path(key), _READ_FLAGS)
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return None
            data = os.read(fd, _READ)
            while len(data) % _READ == 0 and (more := os.read(fd, _READ)):
                data += more
            payload = unseal(data)
            if payload is not None and info.st_mtime < self.touched:
                with contextlib.suppress(OSError):  # a read-only cache still serves hits
                    os.utime(fd)
            return payload
        except OSError:
            return None
        finally:
            os.close(fd)

    def put(self, key: str, payload: bytes) -> None:
        path = self._path(key)
        folder = os.path.dirname(path)
        temp = os.path.join(folder, f"{_TMP}{os.getpid()}-{secrets.token_hex(6)}")
        # File descriptors, not file objects: three system calls fewer an entry.
        try:
            fd = os.open(temp, _WRITE_FLAGS, 0o666)
        except FileNotFoundError:
            os.makedirs(folder, exist_ok=True)
            fd = os.open(temp, _WRITE_FLAGS, 0o666)
        try:
            try:
                data = memoryview(seal(payload))
                while data:
                    data = data[os.write(fd, data) :]
            finally:
                os.close(fd)
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

    def check_writable(self) -> None:
        try:
            os.makedirs(self.root, exist_ok=True)
            probe = os.path.join(self.root, f"{_TMP}{os.getpid()}-{secrets.token_hex(6)}")
            with open(probe, "wb"):
                pass
            os.unlink(probe)
        except OSError as exc:
            raise CacheUnavailable(f"cannot write: {exc.strerror or exc}") from None

    def _entries(self) -> Iterator[tuple[float, str, int]]:
        try:
            shards = list(os.scandir(self.root))
        except OSError:
            return
        for shard in shards:
            if not shard.is_dir(follow_symlinks=False):
                continue
            with contextlib.suppress(OSError), os.scandir(shard.path) as entries:
                for entry in entries:
                    with contextlib.suppress(OSError):  # removed meanwhile
                        info = entry.stat(follow_symlinks=False)
                        yield info.st_mtime, entry.path, info.st_size

    def stats(self) -> CacheStats:
        found = [(size, name) for _, name, size in self._entries() if _TMP not in name]
        return CacheStats(len(found), sum(size for size, _ in found))

    def clear(self) -> int:
        removed = 0
        with contextlib.suppress(OSError):
            os.unlink(self._tally)
        for _, name, _ in self._entries():
            with contextlib.suppress(OSError):
                os.unlink(name)
                removed += _TMP not in name
        return removed

    def trim(self, max_size: int, written: int | None = None) -> int:
        # The tally (the size found by the last scan, plus what runs wrote since) spares
        # a scan of every entry while the cache fits. Concurrent runs or a cleared cache
        # only make it inexact until the next scan; a scan sets it right.
        known = self._read_tally()
        if written is not None and known is not None and known + written <= max_size:
            if written:
                self._write_tally(known + written)
            return 0
        evicted, left = _evict(list(self._entries()), max_size, os.unlink)
        self._write_tally(left)
        return evicted

    @property
    def _tally(self) -> str:
        return os.path.join(self.root, "size")

    def _read_tally(self) -> int | None:
        try:
            fd = os.open(self._tally, _READ_FLAGS)
        except OSError:
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            return int(os.read(fd, 32))
        except (OSError, ValueError):
            return None
        finally:
            os.close(fd)

    def _write_tally(self, size: int) -> None:
        temp = f"{self._tally}{_TMP}{os.getpid()}-{secrets.token_hex(6)}"
        with contextlib.suppress(OSError):
            with open(temp, "wb") as handle:
                handle.write(b"%d" % size)
            os.replace(temp, self._tally)


class FsspecStore:
    """A cache behind an fsspec URL (object storage: a put is atomic, so an entry is
    written to its name directly; least recently *written* is evicted first, as object
    stores keep no access time)."""

    def __init__(self, url: str) -> None:
        from ..inputs.remote import _fsspec  # noqa: PLC0415 - fsspec only for URL caches

        try:
            fs, root = _fsspec().core.url_to_fs(url)
        except ArhError as exc:  # fsspec is not installed
            raise CacheUnavailable(str(exc)) from None
        except (ImportError, ValueError, RuntimeError) as exc:
            # An unknown scheme, a filesystem whose packages are missing (as inputs.remote).
            raise CacheUnavailable(f"cannot open: {exc}") from None
        self.fs = fs
        self.root = f"{root.rstrip('/')}/{_LAYOUT}"

    def _path(self, key: str) -> str:
        shard, rest = _shard(key)
        return f"{self.root}/{shard}/{rest}"

    def get(self, key: str) -> memoryview | None:
        try:
            data = self.fs.cat_file(self._path(key))
        except Exception:
            return None
        return unseal(bytes(data))

    def put(self, key: str, payload: bytes) -> None:
        path = self._path(key)
        try:
            self.fs.pipe_file(path, seal(payload))
        except OSError:
            raise
        except Exception as exc:
            raise OSError(str(exc)) from None

    def check_writable(self) -> None:
        probe = f"{self.root}/{_TMP}{secrets.token_hex(6)}"
        try:
            self.fs.makedirs(self.root, exist_ok=True)
            self.fs.pipe_file(probe, b"")
            self.fs.rm_file(probe)
        except Exception as exc:
            raise CacheUnavailable(f"cannot write: {exc}") from None

    def _entries(self) -> list[tuple[float, str, int]]:
        try:
            found = self.fs.find(self.root, detail=True)
        except Exception:
            return []
        return [
            (_mtime(info), name, int(info.get("size") or 0))
            for name, info in found.items()
            if _TMP not in name
        ]

    def stats(self) -> CacheStats:
        found = self._entries()
        return CacheStats(len(found), sum(size for _, _, size in found))

    def clear(self) -> int:
        found = self._entries()
        for _, name, _ in found:
            with contextlib.suppress(Exception):
                self.fs.rm_file(name)
        return len(found)

    def trim(self, max_size: int, written: int | None = None) -> int:
        return _evict(self._entries(), max_size, self.fs.rm_file)[0]


def _mtime(info: dict[str, Any]) -> float:
    for field in ("mtime", "LastModified", "updated", "created"):
        value = info.get(field)
        if isinstance(value, int | float):
            return float(value)
        if value is not None and hasattr(value, "timestamp"):
            return float(value.timestamp())
    return 0.0


def open_store(location: str) -> Store:
    """The store at a local path or an fsspec URL (nothing is created yet). A `file://`
    URL of this machine is its local path: read as one (a FIFO in it is a miss, not a
    hang; entries are renamed into place)."""
    if not is_url(location):
        return LocalStore(location)
    parsed = urllib.parse.urlsplit(location)
    if parsed.scheme.lower() == "file" and parsed.netloc in ("", "localhost"):
        return LocalStore(urllib.parse.unquote(parsed.path) or "/")
    return FsspecStore(location)
