"""`--cache DIR`: a layer around per-unit evaluation that reuses the result of every input
unit seen before. Whatever a worker adds to its Partial for one unit (the TraceReports,
the per-trace pieces the sinks asked for, the input failures) is kept as one entry,
keyed by the unit's bytes and names and by the run's fingerprint: the policies'
canonical form, the ARH version, the plugin distributions' versions and every option
that reaches a result. A hit replays the entry into the Partial; a miss is evaluated as
without cache and stored. Reports are byte-identical either way (see docs/cache.md).

The unit is one JSONL line, one file or one session file; consecutive JSONL lines that
are batches of one span export (or an unreadable line next to one) are one unit, as they
are read together. Run-level sections are fed from the replayed report
(TraceView(report, None)), so a run caches only if every section says `report_only`."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import msgspec

from ..inputs import LineRange, Location, RawUnit, SessionFile, Unit, open_binary, read_line_range
from ..io import Failure
from ..models.report import InputFailure, TraceReport
from ..reading import read_local
from .cache_key import fingerprint
from .cache_store import CacheUnavailable, Store, open_store
from .documents import STREAM_MIN_BYTES
from .exports import has_marker, lines_joined
from .partial import Partial, PartialBuilder
from .plan import CacheSpec, Needs, PieceSpec, WorkPlan
from .process import UnitProcessor, no_cyclic_gc

# The most bytes a cache keeps by default (`--cache-max-size`); least recently used
# entries are evicted at the end of a run that goes over.
DEFAULT_MAX_SIZE = 1 << 30
_BLOCK = 1 << 20


@dataclass(frozen=True, slots=True)
class CacheOptions:
    """Where the cache is (a directory or an fsspec URL) and how big it may grow."""

    location: str
    max_size: int = DEFAULT_MAX_SIZE


class Entry(msgspec.Struct, array_like=True, gc=False):
    """What one unit added to its Partial: reports, their pieces (in the plan's piece
    order) and input failures."""

    reports: list[TraceReport]
    pieces: list[list[str]]
    failures: list[InputFailure]


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(Entry)


def cacheable(plan: WorkPlan) -> bool:
    """Whether results of this plan can be replayed: every section is built from reports."""
    return all(spec.report_only for spec in plan.needs.sections)


def stored_pieces(plan: WorkPlan) -> tuple[PieceSpec, ...]:
    """The per-trace pieces an entry keeps: those that need the trace itself."""
    return tuple(piece for piece in plan.needs.pieces if not piece.report_only)


def attach(plan: WorkPlan, options: CacheOptions) -> WorkPlan:
    """The plan with its cache, once the cache is known to be writable; raises
    CacheUnavailable (the run then goes on without it)."""
    if not cacheable(plan):
        raise CacheUnavailable("this run's report sections cannot be cached")
    open_store(options.location).check_writable()
    return replace(plan, cache=CacheSpec(options.location, fingerprint(plan)))


def finish(options: CacheOptions) -> None:
    """After a run: evict least recently used entries beyond the size bound."""
    open_store(options.location).trim(options.max_size)


def make_processor(plan: WorkPlan) -> UnitProcessor | CachedProcessor:
    """The processor of a plan: cached when the plan has a cache."""
    return UnitProcessor(plan) if plan.cache is None else CachedProcessor(plan, plan.cache)


@dataclass(slots=True)
class _Group:
    """Units read together, and their key (None: never cached)."""

    units: list[Unit]
    key: Any | None
    size: int = 0
    export: bool = field(default=False)  # the last line may be a batch of an export


class CachedProcessor:
    """UnitProcessor.process_all with each unit looked up first."""

    def __init__(self, plan: WorkPlan, spec: CacheSpec) -> None:
        self.plan = plan
        self.spec = spec
        self.store: Store = open_store(spec.location)
        # Misses are evaluated into a builder that keeps what an entry holds.
        # the pieces made from the trace are kept in entries; the others are made again
        # from the report by the builder, as for a trace evaluated here.
        needs = plan.needs
        kept = stored_pieces(plan)
        self.record = replace(plan, needs=Needs(kept, keep_reports=True, positions=needs.positions))
        self.inner = UnitProcessor(self.record)
        self.names = tuple(piece.name for piece in kept)

    def process_all(self, units: Iterable[Unit]) -> Partial:
        builder = PartialBuilder(self.plan)
        size = 0
        with no_cyclic_gc():
            for group in self._groups(units):
                size += self._one(group, builder)
        partial = builder.partial
        partial.size = size
        return partial

    def _one(self, group: _Group, builder: PartialBuilder) -> int:
        key = None if group.key is None else group.key.hexdigest()
        if key is not None:
            entry = self._get(key)
            if entry is not None:
                self._replay(entry, builder)
                builder.partial.cached += len(entry.reports)
                return group.size
        mini = PartialBuilder(self.record)
        start = self.inner.reader.size
        self.inner.process_into(group.units, mini)
        made = mini.partial
        texts = _by_report(made.pieces, self.names, len(made.reports))
        entry = Entry(made.reports, texts, made.failures)
        if key is not None and not any(f.message.startswith("cannot read") for f in made.failures):
            # A full or read-only cache: the run goes on without this entry.
            with contextlib.suppress(OSError):
                self.store.put(key, _ENCODER.encode(entry))
        self._replay(entry, builder)
        return self.inner.reader.size - start

    def _get(self, key: str) -> Entry | None:
        payload = self.store.get(key)
        if payload is None:
            return None
        try:
            entry = _DECODER.decode(payload)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None
        if len(entry.pieces) != len(entry.reports):
            return None
        if any(len(texts) != len(self.names) for texts in entry.pieces):
            return None
        return entry

    def _replay(self, entry: Entry, builder: PartialBuilder) -> None:
        for failure in entry.failures:
            builder.fail(failure)
        names = self.names
        for report, texts in zip(entry.reports, entry.pieces, strict=True):
            builder.add(report, None, dict(zip(names, texts, strict=True)))

    def _groups(self, units: Iterable[Unit]) -> Iterator[_Group]:
        line: _Group | None = None  # the JSONL lines being gathered
        for part in self._parts(units):
            if isinstance(part, RawUnit) and part.line is not None and part.data is not None:
                marked = has_marker(part.data)
                if line is not None and _joins(line, part, marked):
                    _add_line(line, part, marked)
                    continue
                if line is not None:
                    yield line
                line = _Group([], self._key(part, "lines"))
                _add_line(line, part, marked)
                continue
            if isinstance(part, Failure) and part.line is not None:
                # A JSONL line that cannot be read: read along with the lines next to it
                # (a span export beside it is refused with it), never cached.
                if line is None or part.source_path != line.units[-1].source_path:
                    if line is not None:
                        yield line
                    line = _Group([], None)
                line.units.append(part)
                line.key = None
                line.export = True
                continue
            if line is not None:
                yield line
                line = None
            yield self._whole(part)
        if line is not None:
            yield line

    def _parts(self, units: Iterable[Unit]) -> Iterator[Unit]:
        for unit in units:
            if isinstance(unit, LineRange):
                yield from read_line_range(unit, self.plan.max_input_bytes)
            else:
                yield unit

    def _key(self, unit: Unit, kind: str) -> Any:
        key = hashlib.sha256(self.spec.fingerprint)
        hint = getattr(unit, "hint", "")
        key.update(msgspec.msgpack.encode((kind, unit.source_path, hint)))
        return key

    def _whole(self, unit: Unit) -> _Group:
        """A whole file, a session file, a document from stdin or a failure."""
        if isinstance(unit, RawUnit):
            return self._file(unit)
        if isinstance(unit, SessionFile):
            key = self._key(unit, "session")
            if unit.path is None:
                for number, raw in unit.lines:
                    key.update(msgspec.msgpack.encode((number, raw)))
                return _Group([unit], key, unit.size)
            return self._streamed(unit, unit.path, key)
        return _Group([unit], None)

    def _file(self, unit: RawUnit) -> _Group:
        key = self._key(unit, "file")
        data, path = unit.data, unit.path
        if data is None and isinstance(path, str):
            try:
                data = read_local(path, self.plan.max_input_bytes, STREAM_MIN_BYTES)
            except OSError:
                return _Group([unit], None)  # the processor reports it
            if data is not None:
                unit = RawUnit(unit.source_path, data, None, path, unit.hint)
        if data is None:
            assert path is not None
            return self._streamed(unit, path, key)
        key.update(data)
        return _Group([unit], key, len(data))

    def _streamed(self, unit: Unit, path: Location, key: Any) -> _Group:
        """A file too big to hold (or behind a URL), hashed as it is read."""
        size = 0
        try:
            with open_binary(path) as handle:
                while block := handle.read(_BLOCK):
                    key.update(block)
                    size += len(block)
        except OSError:
            return _Group([unit], None)
        return _Group([unit], key, size)


def _joins(group: _Group, unit: RawUnit, marked: bool) -> bool:
    """Whether a JSONL line is read with the lines before it (lines_joined, checked only
    when one of the two may be a batch of a span export)."""
    last = group.units[-1]
    if not isinstance(last, RawUnit) or last.source_path != unit.source_path:
        return group.export and last.source_path == unit.source_path
    if not (marked or group.export):
        return False
    assert last.data is not None and unit.data is not None
    return lines_joined(last.data, unit.data)


def _add_line(group: _Group, unit: RawUnit, marked: bool) -> None:
    assert unit.data is not None
    group.units.append(unit)
    group.export = marked
    group.size += len(unit.data)
    if group.key is not None:
        group.key.update(msgspec.msgpack.encode((unit.line, unit.data)))


def _by_report(pieces: dict[str, list[str]], names: tuple[str, ...], count: int) -> list[list[str]]:
    """Each report's pieces, in the plan's order (the Partial holds them by piece)."""
    columns = [pieces[name] for name in names]
    return [list(texts) for texts in zip(*columns, strict=True)] if columns else [[]] * count
