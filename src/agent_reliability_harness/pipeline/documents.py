"""Load -> adapt -> parse: input units in, parsed traces (with where they were read) out,
in input order, with an InputFailure in place of each input that cannot be mapped.

Span exports split across consecutive JSONL lines are joined here; session files go
whole to their adapter; canonical traces skip the dict stage when nothing needs it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .. import adapters
from ..adapters import AUTO, Adapter, Identity
from ..errors import InputError, TraceError
from ..inputs import (
    Claims,
    LineRange,
    RawUnit,
    SessionFile,
    Unit,
    binary_reader,
    decode_line,
    decode_unit,
    read_line_range,
    read_whole,
    session_lines,
    stem,
)
from ..io import Document, Failure, decode_json_bytes, start_line
from ..models.report import InputFailure
from ..models.trace import Trace, decode_trace_json, parse_trace
from ..positions import locate_traces
from ..reading import DEFAULT_MAX_INPUT_BYTES, read_local
from .exports import Hinted, coalesce

# Canonical trace files from this size up are read a chunk of steps at a time. Below it,
# reading the file whole is as fast and the trace is small enough to hold.
STREAM_MIN_BYTES = 8 << 20


@dataclass(frozen=True, slots=True)
class Loaded:
    """A parsed trace, where it was read, and where a problem with it is reported."""

    trace: Trace
    source_path: str
    source_line: int | None = None
    step_lines: tuple[int, ...] = ()  # start line of each step; empty unless asked for
    line: int | None = None  # JSONL line, for an error about this trace
    index: int | None = None  # position in its document when it holds several

    def failure(self, message: str) -> InputFailure:
        return InputFailure(self.source_path, message, line=self.line, index=self.index)


@dataclass(frozen=True, slots=True)
class BigFile:
    """A local canonical-trace candidate too big to read whole: the evaluator streams it
    (`Reader.whole_data` reads it whole if the stream declines)."""

    unit: RawUnit


Item = Loaded | InputFailure | BigFile


def session_adapters(fmt: str) -> tuple[Adapter, ...]:
    """Adapters that read a JSONL file whole (one file = one session) for this --format."""
    return adapters.session_formats(fmt)


def claims_for(fmt: str) -> Claims | None:
    """The test that singles out session files by their first non-blank line (None: this
    --format reads no session files)."""
    sessions = session_adapters(fmt)
    if not sessions:
        return None

    def claims(raw: bytes) -> bool:
        try:
            value = decode_json_bytes(raw)
        except InputError:
            return False
        return _session_adapter(sessions, value) is not None

    return claims


def _session_adapter(sessions: tuple[Adapter, ...], value: Any) -> Adapter | None:
    return adapters.session_format(sessions, value)


def unit_documents(
    units: Iterable[Unit], limit: int = DEFAULT_MAX_INPUT_BYTES
) -> Iterator[Hinted | InputFailure | SessionFile]:
    """Every document of the units, decoded (no fast path), with its file's name hint;
    session files are passed on whole. For `arh convert`; coalesce() them."""
    for unit in units:
        if isinstance(unit, Failure):
            yield InputFailure(unit.source_path, unit.message, line=unit.line)
        elif isinstance(unit, SessionFile):
            yield unit
        else:
            parts = read_line_range(unit, limit) if isinstance(unit, LineRange) else (unit,)
            for part in parts:
                if isinstance(part, Failure):
                    yield InputFailure(part.source_path, part.message, line=part.line)
                    continue
                for document in decode_unit(part, readers=adapters.FILE_READERS, limit=limit):
                    if isinstance(document, Failure):
                        yield InputFailure(
                            document.source_path, document.message, line=document.line
                        )
                    else:
                        yield Hinted(document, part.hint)


class Reader:
    """Turns units into Items; one per worker. `size` counts the input bytes read; no input
    is held beyond `limit` bytes (io.max_input_bytes)."""

    def __init__(
        self,
        fmt: str = AUTO,
        identity: Identity | None = None,
        with_positions: bool = False,
        stream_big: bool = False,
        limit: int = DEFAULT_MAX_INPUT_BYTES,
    ) -> None:
        self.fmt = fmt
        self.limit = limit
        self.identity = identity
        self.with_positions = with_positions
        # Canonical traces may skip the dict stage (models.trace.decode_trace_json) when
        # nothing about the run needs the decoded document itself.
        self.direct = fmt in (AUTO, "arh") and identity is None and not with_positions
        self.stream_big = stream_big and self.direct
        self.sessions = session_adapters(fmt)
        self.size = 0

    def items(self, units: Iterable[Unit]) -> Iterator[Item]:
        """The Items of consecutive units, in order."""
        yield from self._resolve(coalesce(self._pieces(units)))

    def _resolve(self, pieces: Iterable[Any]) -> Iterator[Item]:
        for piece in pieces:
            if isinstance(piece, Hinted):
                yield from self.traces(piece.document, piece.hint)
            else:
                yield piece

    def _pieces(self, units: Iterable[Unit | RawUnit]) -> Iterator[Any]:
        for unit in units:
            if isinstance(unit, RawUnit):
                if unit.line is not None and unit.data is not None:
                    yield self._line(unit)
                else:
                    yield from self._whole(unit)
            elif isinstance(unit, LineRange):
                yield from self._pieces(read_line_range(unit, self.limit))
            elif isinstance(unit, Failure):
                yield InputFailure(unit.source_path, unit.message, line=unit.line)
            else:
                yield from self._session(unit)

    def _line(self, unit: RawUnit) -> Any:
        data, line = unit.data, unit.line
        assert data is not None and line is not None
        self.size += len(data)
        binary = unit.path is not None and _binary(unit.source_path)
        if self.direct and not binary:
            trace = decode_trace_json(data)
            if trace is not None:
                return Loaded(trace, unit.source_path, line, line=line)
        document = decode_line(unit.source_path, line, data, self.with_positions)
        if isinstance(document, Failure):
            return InputFailure(document.source_path, document.message, line=document.line)
        return Hinted(document, unit.hint)

    def _whole(self, unit: RawUnit) -> list[Any]:
        # Lists, not generators: a file is most often one trace, and this runs per file.
        data, path = unit.data, unit.path
        binary = path is not None and _binary(unit.source_path)
        if data is None:
            assert path is not None
            try:
                if self.stream_big and isinstance(path, str) and not binary:
                    data = read_local(path, self.limit, STREAM_MIN_BYTES)
                    if data is None:
                        return [BigFile(unit)]
                else:
                    data = read_whole(path, self.limit)
            except OSError as exc:
                return [InputFailure(unit.source_path, f"cannot read: {exc.strerror or exc}")]
        return self._whole_pieces(unit, data, binary)

    def whole_data(self, unit: RawUnit, data: bytes) -> Iterator[Item]:
        """The Items of a whole document given its bytes (a big file read after all)."""
        binary = unit.path is not None and _binary(unit.source_path)
        yield from self._resolve(coalesce(self._whole_pieces(unit, data, binary)))

    def _whole_pieces(self, unit: RawUnit, data: bytes, binary: bool) -> list[Any]:
        self.size += len(data)
        if self.direct and not binary:
            trace = decode_trace_json(data)
            if trace is not None:
                return [Loaded(trace, unit.source_path, start_line(data))]
        whole = RawUnit(unit.source_path, data, path=unit.path)
        return [
            InputFailure(document.source_path, document.message, line=document.line)
            if isinstance(document, Failure)
            else Hinted(document, unit.hint)
            for document in decode_unit(
                whole, self.with_positions, adapters.FILE_READERS, self.limit
            )
        ]

    def traces(self, document: Document, hint: str = "") -> Iterator[Item]:
        """The traces of one decoded document (adapted, then parsed)."""
        path, line = document.source_path, document.line
        base = hint or stem(path)
        try:
            name = base if line is None else f"{base}-{line}"
            candidates = adapters.to_canonical(document.value, self.fmt, name, self.identity)
        except InputError as exc:
            yield InputFailure(path, str(exc), line=line)
            return
        many = len(candidates) > 1 or isinstance(document.value, list)
        located = locate_traces(document, candidates)
        for index, candidate in enumerate(candidates):
            at = index if many else None
            try:
                trace = parse_trace(candidate)
            except TraceError as exc:
                yield InputFailure(path, str(exc), line=line, index=at)
                continue
            if located is None:
                yield Loaded(trace, path, None if many else document.start_line, (), line, at)
                continue
            start, step_lines = located[index]
            if len(step_lines) != len(trace.steps):
                step_lines = ()
            yield Loaded(trace, path, start, step_lines, line, at)

    def _session(self, unit: SessionFile) -> Iterator[Any]:
        """A session file's traces (or, if no adapter claims it after all, its lines)."""
        for piece in self.session_candidates(unit):
            if not isinstance(piece, tuple):
                yield piece
                continue
            first_line, candidates = piece
            many = len(candidates) > 1
            for index, candidate in enumerate(candidates):
                at = index if many else None
                try:
                    trace = parse_trace(candidate)
                except TraceError as exc:
                    yield InputFailure(unit.source_path, str(exc), index=at)
                    continue
                yield Loaded(trace, unit.source_path, first_line, (), None, at)

    def session_candidates(
        self, unit: SessionFile
    ) -> Iterator[InputFailure | Hinted | tuple[int, list[Any]]]:
        """A session file read line by line into its adapter's `convert_lines`: the lines
        that cannot be read, then (first line number, canonical trace objects). When no
        session adapter claims its first line after all, its lines as documents."""
        failures: list[InputFailure] = []
        lines = self._session_values(unit, failures)
        first = next(lines, None)
        adapter = None if first is None else _session_adapter(self.sessions, first[1])
        if first is None or adapter is None:  # no session after all: read it as JSONL
            yield from self._plain_lines(unit)
            return
        name = unit.hint or stem(unit.source_path)
        try:
            candidates = adapters.convert_session(
                adapter, _chain(first, lines), name, self.identity
            )
        except InputError as exc:
            yield _refused(failures) if failures else InputFailure(unit.source_path, str(exc))
            return
        if failures:  # one run: judged on every line or not at all
            yield _refused(failures)
            return
        yield first[0], candidates

    def _plain_lines(self, unit: SessionFile) -> Iterator[InputFailure | Hinted]:
        for item in session_lines(unit, self.limit):
            if isinstance(item, Failure):
                yield InputFailure(item.source_path, item.message, line=item.line)
                continue
            document = decode_line(unit.source_path, item[0], item[1], self.with_positions)
            if isinstance(document, Failure):
                yield InputFailure(document.source_path, document.message, line=document.line)
            else:
                yield Hinted(document, unit.hint)

    def _session_values(
        self, unit: SessionFile, failures: list[InputFailure]
    ) -> Iterator[tuple[int, Any]]:
        for item in session_lines(unit, self.limit):
            if isinstance(item, Failure):
                failures.append(InputFailure(item.source_path, item.message, line=item.line))
                continue
            number, raw = item
            self.size += len(raw)
            try:
                yield number, decode_json_bytes(raw)
            except InputError as exc:
                failures.append(InputFailure(unit.source_path, str(exc), line=number))


def _refused(failures: list[InputFailure]) -> InputFailure:
    """The one error of a session file with lines that cannot be read, at the first."""
    first = failures[0]
    more = len(failures) - 1
    rest = f"; {more} more unreadable line{'s' if more > 1 else ''}" if more else ""
    message = f"{first.message} (session refused{rest})"
    return InputFailure(first.source_path, message, line=first.line, index=first.index)


def _binary(name: str) -> bool:
    """A file of a binary format (read whole by its reader: never streamed as JSON)."""
    return binary_reader(adapters.FILE_READERS, name) is not None


def _chain(first: tuple[int, Any], rest: Iterator[tuple[int, Any]]) -> Iterator[tuple[int, Any]]:
    yield first
    yield from rest
