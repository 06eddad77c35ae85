"""The io stage's input side: arguments -> entries (walk.py) -> units (units.py, stdin.py;
the kinds in base.py) -> documents, local or behind a URL (remote.py). Nothing here knows
what a trace is."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ..io import Document, Failure
from .base import Claims, FileReaders, Joined, LineRange, RawUnit, SessionFile, Unit
from .remote import RemoteFile, is_url
from .units import (
    binary_reader,
    decode_line,
    decode_unit,
    iter_units,
    line_ranges,
    open_binary,
    read_line_range,
    read_whole,
    session_lines,
)
from .walk import (
    Entry,
    Location,
    expand_paths,
    name_hints,
    stem,
    suffix,
    total_bytes,
)


def iter_documents(
    paths: Iterable[str],
    stdin: Any = None,
    keep_text: bool = False,
    suffixes: Sequence[str] = (),
    readers: FileReaders | None = None,
) -> Iterator[Document | Failure]:
    """Every JSON document of the given inputs, in order; failures in place of bad ones.
    (Session files are not singled out here: each of their lines is a document.)
    Directories are walked for `suffixes` too, and files with a suffix of `readers` are
    decoded by it (the adapters' `WALK_SUFFIXES` and `FILE_READERS`)."""
    for unit in iter_units(expand_paths(paths, suffixes), stdin):
        if isinstance(unit, Failure):
            yield unit
            continue
        parts = read_line_range(unit) if isinstance(unit, LineRange) else (unit,)
        for part in parts:
            if isinstance(part, Failure):
                yield part
            elif isinstance(part, RawUnit):
                yield from decode_unit(part, keep_text, readers)


__all__ = [
    "Claims",
    "Entry",
    "FileReaders",
    "Joined",
    "LineRange",
    "Location",
    "RawUnit",
    "RemoteFile",
    "SessionFile",
    "Unit",
    "binary_reader",
    "decode_line",
    "decode_unit",
    "expand_paths",
    "is_url",
    "iter_documents",
    "iter_units",
    "line_ranges",
    "name_hints",
    "open_binary",
    "read_line_range",
    "read_whole",
    "session_lines",
    "stem",
    "suffix",
    "total_bytes",
]
