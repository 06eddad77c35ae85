"""Reading Inspect AI `.eval` logs: a zip archive of JSON members (`header.json`,
`samples/<id>_epoch_<n>.json`, `summaries.json`, `_journal/...`) decoded into the document
the `.json` log format holds, with the stdlib zipfile. Inspect writes members compressed
with Zstandard (method 93), which the stdlib decodes from Python 3.14; before that the
optional `inspect` extra (zstandard) does."""

from __future__ import annotations

import io
import struct
import zipfile
from typing import Any

from ...errors import InputError
from ...io import decode_json_bytes
from ...version import DISTRIBUTION

SUFFIXES = (".eval",)
ZSTD = 93
MISSING_EXTRA = (
    "reading a zstd-compressed Inspect log needs Python 3.14 or the 'inspect' extra: "
    f"pip install '{DISTRIBUTION}[inspect]'"
)
_LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")  # a zip member's local file header
_SAMPLES = "samples/"
_CHUNK = 1 << 20


def read(data: bytes) -> list[Any]:
    """The log as one document: the header's fields plus `samples`, in the order of
    `summaries.json` (the order Inspect lists them), then any other sample members."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except Exception as exc:  # BadZipFile, or what a damaged central directory raises
        raise InputError(f"not an Inspect .eval log (not a zip archive: {exc})") from None
    with archive:
        names = {info.filename: info for info in archive.infolist()}
        head_name = "header.json" if "header.json" in names else "_journal/start.json"
        if head_name not in names:
            raise InputError("not an Inspect .eval log: no header.json or _journal/start.json")
        head = _json(archive, names[head_name])
        if not isinstance(head, dict):
            raise InputError(f"{head_name}: expected an object")
        found = [n for n in names if n.startswith(_SAMPLES) and n.endswith(".json")]
        order = _summary_order(archive, names)
        ranked = sorted(enumerate(found), key=lambda p: (order.get(p[1], len(order)), p[0]))
        samples = [name for _, name in ranked]
        document = dict(head)
        if head_name != "header.json":
            document.setdefault("status", "started")
        document["samples"] = [_json(archive, names[n]) for n in samples]
    return [document]


def _summary_order(archive: zipfile.ZipFile, names: dict[str, zipfile.ZipInfo]) -> dict[str, int]:
    """Sample member name -> position in summaries.json (absent: no order)."""
    if "summaries.json" not in names:
        return {}
    summaries = _json(archive, names["summaries.json"])
    order: dict[str, int] = {}
    for index, summary in enumerate(summaries if isinstance(summaries, list) else []):
        if isinstance(summary, dict) and "id" in summary and "epoch" in summary:
            order.setdefault(f"{_SAMPLES}{summary['id']}_epoch_{summary['epoch']}.json", index)
    return order


def _json(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Any:
    data = _member(archive, info)
    try:
        return decode_json_bytes(data)
    except InputError as exc:
        raise InputError(f"{info.filename}: {exc}") from None


def _member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    if info.compress_type == ZSTD and not _stdlib_zstd():
        return _zstd_member(archive, info)
    try:
        return archive.read(info)
    except (zipfile.BadZipFile, NotImplementedError, OSError, EOFError, ValueError) as exc:
        raise InputError(f"{info.filename}: cannot read the zip member ({exc})") from None
    except Exception as exc:  # zlib.error, lzma.LZMAError...: a damaged member
        raise InputError(f"{info.filename}: cannot decompress ({type(exc).__name__})") from None


def _stdlib_zstd() -> bool:
    """Can zipfile itself decode Zstandard members (Python 3.14+, or patched)?"""
    return hasattr(zipfile, "ZIP_ZSTANDARD")


def _raw_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The compressed bytes of a member, found through its local file header."""
    fp = archive.fp
    bad = InputError(f"{info.filename}: bad local file header")
    if fp is None or info.header_offset < 0:
        raise bad
    fp.seek(info.header_offset)
    header = fp.read(_LOCAL_HEADER.size)
    if len(header) != _LOCAL_HEADER.size or header[:4] != b"PK\x03\x04":
        raise bad
    fields = _LOCAL_HEADER.unpack(header)
    fp.seek(fields[9] + fields[10], io.SEEK_CUR)  # name and extra field
    raw: bytes = fp.read(info.compress_size)
    if len(raw) != info.compress_size:
        raise InputError(f"{info.filename}: the archive ends inside the member")
    return raw


def _zstd_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """A Zstandard member decoded with the `zstandard` package: its raw bytes are found
    through the local header, and no more than the declared size is decompressed."""
    try:
        import zstandard  # noqa: PLC0415 - optional extra, only for these members
    except ImportError:
        raise InputError(MISSING_EXTRA) from None
    raw = _raw_member(archive, info)
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(
            io.BytesIO(raw), read_across_frames=True
        )
        chunks: list[bytes] = []
        size = 0
        while size <= info.file_size:  # never more than the declared size (+1 to see it)
            chunk = reader.read(min(_CHUNK, info.file_size + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except zstandard.ZstdError as exc:
        raise InputError(f"{info.filename}: cannot decompress ({exc})") from None
    data = b"".join(chunks)
    if len(data) != info.file_size:
        raise InputError(f"{info.filename}: decompressed size differs from the declared size")
    return data
