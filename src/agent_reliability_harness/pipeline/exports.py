"""Span exports written across JSONL lines: the lines that must stay in one chunk, and
the joining of consecutive batches of one export into one document (coalesce)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import re2

from .. import adapters
from ..errors import InputError
from ..io import Document, decode_json_bytes
from ..models.report import InputFailure

# Any of adapters.EXPORT_MARKERS, found in one RE2 scan (~2x faster than three substring
# searches for needles that start with a quote, the commonest byte of JSON).
_MARKERS = re2.compile(b"|".join(re.escape(marker) for marker in adapters.EXPORT_MARKERS))


def export_line(raw: bytes) -> bool:
    """Whether a JSONL line is one batch of a span export (decoded to be sure: a line that
    merely holds a `data` or `object` key is not one)."""
    if _MARKERS.search(raw) is None:
        return False
    try:
        return adapters.export_kind(decode_json_bytes(raw)) is not None
    except InputError:
        return False


def lines_joined(before: bytes, after: bytes) -> bool:
    """Whether two consecutive JSONL lines must be read by one worker: batches of a span
    export, and a line that cannot be decoded next to one (coalesce() refuses the export
    it may belong to, on every executor alike). Decides only where inputs are cut."""
    first, second = batch_or_bad(before), batch_or_bad(after)
    return kinds_joined(first, second)


def kinds_joined(first: bool | None, second: bool | None) -> bool:
    """lines_joined for two lines' batch_or_bad."""
    return first is not None and second is not None and (first or second)


def batch_or_bad(raw: bytes) -> bool | None:
    """True for a batch of a span export, False for a line that cannot be decoded."""
    try:
        value = decode_json_bytes(raw)
    except InputError:
        return False
    if _MARKERS.search(raw) is None:
        return None
    return adapters.export_kind(value) is not None or None


@dataclass(frozen=True, slots=True)
class Hinted:
    """A decoded document with the name hint of its file (for traces named after it)."""

    document: Document
    hint: str = ""


def coalesce(pieces: Iterable[Any]) -> Iterator[Any]:
    """Join consecutive JSONL documents of one file that are batches of one span export
    (OTLP or Agents SDK) into one Hinted document, so a trace split across batches
    converts whole; everything else passes through in order. Only real batches are
    held (a line that merely has a `data` or `object` key is not one). A line of the
    file that cannot be read right before or after a batch may hold spans of its traces:
    the joined export is then refused with it, never judged on the lines that were read
    (lines_joined() keeps such a line in the same chunk as its neighbours)."""
    exports = _Exports()
    for piece in pieces:
        yield from exports.take(piece)
    yield from exports.end()


class _Exports:
    """coalesce()'s state: the batches being joined, the unreadable lines next to them,
    and an unreadable line that a batch may follow."""

    def __init__(self) -> None:
        self.batch: list[Hinted] = []
        self.kind: str | None = None
        self.bad: list[InputFailure] = []
        self.after_bad = False  # the last piece was an unreadable line next to `batch`
        self.pending: InputFailure | None = None

    def take(self, piece: Any) -> list[Any]:
        if isinstance(piece, InputFailure) and piece.line is not None:
            if self.batch and not self.after_bad and piece.source_path == self._path():
                self.bad.append(piece)  # right after a batch
                self.after_bad = True
                return []
            done = self.end()
            self.pending = piece  # a batch may follow it
            return done
        found = None
        if isinstance(piece, Hinted) and piece.document.line is not None:
            found = adapters.export_kind(piece.document.value)
        if found is None:
            return [*self.end(), piece]
        path = piece.document.source_path
        if self.batch and found == self.kind and path == self._path():
            self.batch.append(piece)
            self.after_bad = False
            return []
        done = self._flush()
        bad, self.pending = [self.pending] if self.pending else [], None
        if bad and bad[0].source_path != path:
            done, bad = [*done, *bad], []
        self.batch, self.kind, self.bad, self.after_bad = [piece], found, bad, False
        return done

    def end(self) -> list[Any]:
        """What is held, now that nothing joins it any more."""
        done = self._flush()
        if self.pending is not None:
            done.append(self.pending)
            self.pending = None
        return done

    def _path(self) -> str:
        return self.batch[0].document.source_path

    def _flush(self) -> list[Any]:
        batch, bad = self.batch, self.bad
        self.batch, self.bad, self.after_bad = [], [], False
        if not batch:
            return []
        if not bad:
            return [_joined_batch(self.kind, batch)]
        lines = [piece.document.line or 0 for piece in batch]
        where = f"lines {min(lines)}-{max(lines)}" if len(lines) > 1 else f"line {lines[0]}"
        first = bad[0]
        message = f"{first.message} (span export refused: its batches at {where} are not judged)"
        return [InputFailure(first.source_path, message, line=first.line), *bad[1:]]


def _joined_batch(kind: str | None, batch: list[Hinted]) -> Hinted:
    if len(batch) == 1:
        return batch[0]
    assert kind is not None
    first = batch[0].document
    merged = adapters.merge_exports(kind, [piece.document.value for piece in batch])
    return Hinted(Document(first.source_path, merged, start_line=first.start_line), batch[0].hint)
