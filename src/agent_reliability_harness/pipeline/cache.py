"""`--cache DIR`: a layer around per-unit evaluation that reuses the result of every input
unit seen before. Whatever a worker adds to its Partial for one unit (the TraceReports,
the per-trace pieces the sinks asked for, the input failures) is kept as one entry,
keyed by the unit's bytes and names and by the run's fingerprint: the policies'
canonical form, the ARH version, the plugin distributions' versions and every option
that reaches a result. A hit replays the entry into the Partial; a miss is evaluated as
without cache and stored. Reports are byte-identical either way (see docs/cache.md).

The unit is one JSONL line, one file or one session file; consecutive JSONL lines that
are batches of one span export (or an unreadable line next to one) are one unit, as they
are read together. A line is looked up before it is decoded: an entry marked `alone`
(a line that is neither a batch nor unreadable, whose result cannot depend on the lines
next to it) is replayed at once; any other line is decoded to find its neighbours.
Run-level sections are fed from the replayed report (TraceView(report, None)); a section
that reads the trace too (such as `coverage`) is fed the summary of each trace its entry
keeps (SectionSpec.summarise). A run caches only if every section is one or the other."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import msgspec

from ..inputs import (
    LineRange,
    Location,
    RawUnit,
    SessionFile,
    Unit,
    is_url,
    open_binary,
    read_line_range,
)
from ..io import Failure
from ..reading import read_local
from .cache_entry import Entry, decode_entry, encode_entry, moved, new_entry
from .cache_key import fingerprint, piece_key
from .cache_store import CacheUnavailable, Store, entry_size, open_store
from .documents import STREAM_MIN_BYTES
from .exports import batch_or_bad, kinds_joined
from .partial import Partial, PartialBuilder
from .plan import Accumulator, CacheOptions, CacheSpec, SectionSpec, TraceView, WorkPlan
from .process import UnitProcessor, no_cyclic_gc

__all__ = ["CacheUnavailable", "CachedProcessor", "attach", "cacheable", "finish"]

_BLOCK = 1 << 20


def cacheable(plan: WorkPlan) -> bool:
    """Whether results of this plan can be replayed: every section is built from reports
    or from per-trace summaries."""
    return all(spec.report_only or spec.summarise for spec in plan.needs.sections)


class _Recorder:
    """In place of a section that reads the trace, while a miss is evaluated: each
    trace's summary, in order (never merged: they go to the unit's entry)."""

    def __init__(self, summarise: Any) -> None:
        self.summarise = summarise
        self.items: list[bytes] = []

    def add(self, view: TraceView) -> None:
        self.items.append(self.summarise(view))

    def merge(self, later: Accumulator) -> None:
        self.items.extend(_recorded(later))

    def finish(self) -> None:
        return None


def _recorders(sections: tuple[SectionSpec, ...]) -> tuple[SectionSpec, ...]:
    return tuple(
        SectionSpec(spec.key, functools.partial(_Recorder, spec.summarise))
        for spec in sections
        if spec.summarise is not None
    )


def attach(plan: WorkPlan, options: CacheOptions) -> WorkPlan:
    """The plan with its cache, once the cache is known to be writable; raises
    CacheUnavailable (the run then goes on without it)."""
    if not cacheable(plan):
        raise CacheUnavailable("this run's report sections cannot be cached")
    open_store(options.location).check_writable()
    # Workers (a pool's, Dask's) may run elsewhere: a local path goes to them absolute.
    where = options.location if is_url(options.location) else os.path.abspath(options.location)
    return replace(plan, cache=CacheSpec(where, fingerprint(plan)))


def finish(options: CacheOptions, written: int) -> None:
    """After a run that wrote `written` bytes of entries: evict least recently used
    entries beyond the size bound."""
    open_store(options.location).trim(options.max_size, written)


@dataclass(slots=True)
class _Lines:
    """Consecutive JSONL lines of one file read together (batches of a span export and
    the unreadable lines next to them): the units, their keys (None: not cacheable),
    the last line's kind (batch_or_bad) and an entry already found for a single line."""

    units: list[Unit]
    keys: list[bytes] | None
    last: bool | None
    found: Entry | None = None


class CachedProcessor:
    """UnitProcessor.process_all with each unit looked up first."""

    def __init__(self, plan: WorkPlan, spec: CacheSpec) -> None:
        self.plan = plan
        self.spec = spec
        self.store: Store = open_store(spec.location)
        needs = plan.needs
        # Misses are evaluated into a builder that keeps what an entry holds.
        recorders = _recorders(needs.sections)
        self.sections = [spec.key for spec in recorders]
        self.record = replace(plan, needs=replace(needs, keep_reports=True, sections=recorders))
        self.inner = UnitProcessor(self.record)
        self.names = tuple(piece.name for piece in needs.pieces)
        self.keys = tuple(piece_key(piece) for piece in needs.pieces)
        self.key_list = list(self.keys)
        self.by_key = dict(zip(self.keys, self.names, strict=True))
        # Every piece is made from the report alone: a moved line's can be made again.
        self.movable = all(piece.report_only for piece in needs.pieces)
        self._base: tuple[tuple[str, str], Any] | None = None
        self.builder = PartialBuilder(plan)  # the chunk's, while process_all runs

    def process_all(self, units: Iterable[Unit]) -> Partial:
        self.builder = builder = PartialBuilder(self.plan)
        size = 0
        pending: _Lines | None = None
        with no_cyclic_gc():
            for part in self._parts(units):
                if isinstance(part, RawUnit) and part.line is not None and part.data is not None:
                    size += len(part.data)
                    pending = self._line(part, pending)
                elif isinstance(part, Failure) and part.line is not None:
                    pending = self._pend(pending, part, None, False, None)
                else:
                    if pending is not None:
                        self._flush(pending)
                        pending = None
                    size += self._whole(part)
            if pending is not None:
                self._flush(pending)
        partial = builder.partial
        partial.size = size
        return partial

    def _line(self, unit: RawUnit, pending: _Lines | None) -> _Lines | None:
        assert unit.data is not None and unit.line is not None
        content = self._line_key(unit.source_path, unit.hint, unit.data)
        entry = self._get(content)
        if entry is not None and entry.alone and entry.movable:
            if pending is not None:
                self._flush(pending)
            self._replay(entry, at=unit.line)
            return None
        # An entry that cannot move is kept under its bytes and its line number.
        key = hashlib.sha256(b"%s%d" % (content, unit.line)).digest()
        entry = self._get(key)
        if entry is not None and entry.alone:
            if pending is not None:
                self._flush(pending)
            self._replay(entry)
            return None
        kind = batch_or_bad(unit.data)
        if kind is None:  # alone: read by itself
            if pending is not None:
                self._flush(pending)
            self._evaluate([unit], key, True, content)
            return None
        return self._pend(pending, unit, key, kind, entry)

    def _pend(
        self, pending: _Lines | None, unit: Unit, key: bytes | None, kind: bool, found: Entry | None
    ) -> _Lines:
        """A line that may be read with the lines next to it: joined to `pending` or not."""
        joined = (
            pending is not None
            and pending.units[-1].source_path == unit.source_path
            and kinds_joined(pending.last, kind)
        )
        if pending is None or not joined:
            if pending is not None:
                self._flush(pending)
            return _Lines([unit], None if key is None else [key], kind, found)
        pending.units.append(unit)
        pending.keys = None if key is None or pending.keys is None else [*pending.keys, key]
        pending.last, pending.found = kind, None
        return pending

    def _flush(self, lines: _Lines) -> None:
        if lines.keys is None:
            self._evaluate(lines.units, None, False)
            return
        if len(lines.keys) == 1:
            key = lines.keys[0]
        else:
            group = hashlib.sha256(self.spec.fingerprint + b"lines")
            for one in lines.keys:
                group.update(one)
            key = group.digest()
        entry = lines.found if len(lines.keys) == 1 else self._get(key)
        if entry is not None:
            self._replay(entry)
        else:
            self._evaluate(lines.units, key, False)

    def _line_key(self, source: str, hint: str, data: bytes) -> bytes:
        """A JSONL line's key: its file's name, format hint and bytes, not its number (a
        line inserted above it keeps its entry when the entry can move, Entry.movable;
        one that cannot is kept under this key and its number)."""
        base = self._base
        if base is None or base[0] != (source, hint):
            start = hashlib.sha256(self.spec.fingerprint)
            start.update(msgspec.msgpack.encode(("line", source, hint)))
            self._base = base = ((source, hint), start)
        key = base[1].copy()
        key.update(data)
        return key.digest()

    def _get(self, key: bytes) -> Entry | None:
        payload = self.store.get(key.hex())
        return None if payload is None else decode_entry(payload, self.sections)

    def _replay(self, entry: Entry, cached: bool = True, at: int | None = None) -> None:
        builder = self.builder
        for failure in entry.failures:
            builder.fail(failure)
        rows = entry.summaries or [[]] * len(entry.reports)
        shift = 0 if at is None or at == entry.line else at - entry.line
        if not shift and entry.names == self.key_list and builder.tallied(entry.sections):
            for tally, texts, row in zip(entry.tallies, entry.pieces, rows, strict=True):
                builder.add_tallied(tally, texts, row)
        else:
            names = [self.by_key.get(name, "") for name in entry.names]
            for index, (texts, row) in enumerate(zip(entry.pieces, rows, strict=True)):
                summaries = dict(zip(entry.sections, row, strict=True)) if row else None
                report = entry.report(index)
                if shift:  # made at another line: its lines moved, its pieces made again
                    builder.add(moved(report, shift), None, None, summaries)
                else:
                    builder.add(report, None, dict(zip(names, texts, strict=True)), summaries)
        if cached:
            builder.partial.cached += len(entry.reports)

    def _evaluate(
        self, units: list[Unit], key: bytes | None, alone: bool, content: bytes | None = None
    ) -> None:
        """Units read and judged as without cache; their entry stored under `key` (or
        `content`, the key without the line number, when the entry can move)."""
        mini = PartialBuilder(self.record)
        self.inner.process_into(units, mini)
        made = mini.partial
        pieces = [made.pieces[name] for name in self.names]
        texts = [list(row) for row in zip(*pieces, strict=True)] if pieces else []
        texts = texts or [[]] * len(made.reports)
        made_by = [_recorded(made.sections[key]) for key in self.sections]
        summaries = [list(row) for row in zip(*made_by, strict=True)] if made_by else []
        if key is not None and not any(f.message.startswith("cannot read") for f in made.failures):
            entry = self._entry(units, alone, made, texts, summaries)
            if entry is not None:
                self._put(content if entry.movable and content is not None else key, entry)
        builder = self.builder
        for failure in made.failures:
            builder.fail(failure)
        rows = summaries or [[]] * len(made.reports)
        for report, row_texts, row in zip(made.reports, texts, rows, strict=True):
            by_key = dict(zip(self.sections, row, strict=True)) if row else None
            builder.add(report, None, dict(zip(self.names, row_texts, strict=True)), by_key)

    def _entry(
        self,
        units: list[Unit],
        alone: bool,
        made: Partial,
        texts: list[list[str]],
        summaries: list[list[bytes]],
    ) -> Entry | None:
        line = _first_line(units)
        try:
            entry = new_entry(
                alone,
                made.reports,
                self.key_list,
                texts,
                made.failures,
                line=line,
                movable=self.movable,
            )
        except OverflowError:
            # An integer beyond 64 bits (in a finding, an outcome) has no msgpack form:
            # that unit is judged again next time, never an internal error.
            return None
        if self.sections:
            entry.sections, entry.summaries = self.sections, summaries
        return entry

    def _put(self, key: bytes, entry: Entry) -> None:
        # A full or read-only cache: the run goes on without this entry.
        with contextlib.suppress(OSError, OverflowError):
            payload = encode_entry(entry)
            self.store.put(key.hex(), payload)
            self.builder.partial.stored += entry_size(payload)

    def _parts(self, units: Iterable[Unit]) -> Iterator[Unit]:
        for unit in units:
            if isinstance(unit, LineRange):
                yield from read_line_range(unit, self.plan.max_input_bytes)
            else:
                yield unit

    def _whole(self, unit: Unit) -> int:
        """A whole file, a session file, a document from stdin or a failure: its size."""
        key = hashlib.sha256(self.spec.fingerprint)
        key.update(msgspec.msgpack.encode((type(unit).__name__, unit.source_path)))
        key.update(msgspec.msgpack.encode(getattr(unit, "hint", "")))
        size: int | None = None
        if isinstance(unit, RawUnit):
            unit, size = self._file(unit, key)
        elif isinstance(unit, SessionFile) and unit.path is not None:
            size = _hashed(unit.path, key)
        elif isinstance(unit, SessionFile):  # from standard input: its lines came along
            for number, raw in unit.lines:
                key.update(msgspec.msgpack.encode((number, raw)))
            size = unit.size
        if size is None:
            self._evaluate([unit], None, False)
            return 0
        entry = self._get(key.digest())
        if entry is not None:
            self._replay(entry)
        else:
            self._evaluate([unit], key.digest(), False)
        return size

    def _file(self, unit: RawUnit, key: Any) -> tuple[RawUnit, int | None]:
        data, path = unit.data, unit.path
        if data is None and isinstance(path, str):
            try:
                data = read_local(path, self.plan.max_input_bytes, STREAM_MIN_BYTES)
            except OSError:
                return unit, None  # the processor reports it
            if data is not None:
                unit = RawUnit(unit.source_path, data, None, path, unit.hint)
        if data is None:
            assert path is not None
            return unit, _hashed(path, key)
        key.update(data)
        return unit, len(data)


def _first_line(units: list[Unit]) -> int:
    line = getattr(units[0], "line", None) if units else None
    return -1 if line is None else int(line)


def _recorded(state: Accumulator) -> list[bytes]:
    assert isinstance(state, _Recorder)
    return state.items


def _hashed(path: Location, key: Any) -> int | None:
    """The size of a file too big to hold (or behind a URL), hashed as it is read; None
    when it cannot be read (the processor then reports it)."""
    size = 0
    try:
        with open_binary(path) as handle:
            while block := handle.read(_BLOCK):
                key.update(block)
                size += len(block)
    except OSError:
        return None
    return size
