"""What a `--cache` entry holds of one input unit, and how it is read back: its reports,
each with its tally (what the run's summary counts of it), the pieces the sinks asked
for, its input failures and the summaries of sections that read the trace.

A hit on a trace replays its tally and its pieces: its TraceReport is decoded only when
something needs it whole (a sink that keeps reports, a section built from reports, a
line moved), so a cached trace costs a read, not a decode."""

from __future__ import annotations

import msgspec

from ..models.report import InputFailure, TraceReport
from .partial import Tally

__all__ = ["Entry", "decode_entry", "encode_entry", "moved", "new_entry"]


class Entry(msgspec.Struct, array_like=True, gc=False):
    """What one unit added to its Partial: its reports (encoded, decoded when used: a hit
    needs only their tallies) and their tallies, their pieces (`names`: the pieces' keys,
    cache_key.piece_key), its input failures and, per report, its summary for each section
    that keeps one (`sections`: their keys; none: both empty).
    `alone`: one JSONL line whose result does not depend on the lines next to it."""

    alone: bool
    reports: list[msgspec.Raw]
    tallies: list[Tally]
    names: list[str]
    pieces: list[list[str]]
    failures: list[InputFailure]
    sections: list[str] = msgspec.field(default_factory=list)
    summaries: list[list[bytes]] = msgspec.field(default_factory=list)
    # The line the unit started at (JSONL; -1 for a file), and whether its result can be
    # moved to another line: its reports' lines shifted, their pieces made again.
    line: int = -1
    movable: bool = False

    def report(self, index: int) -> TraceReport:
        return _REPORT.decode(self.reports[index])


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(Entry)
_REPORT = msgspec.msgpack.Decoder(TraceReport)


def new_entry(
    alone: bool,
    reports: list[TraceReport],
    names: list[str],
    pieces: list[list[str]],
    failures: list[InputFailure],
    *,
    line: int,
    movable: bool,
) -> Entry:
    """An entry of reports just made (raises OverflowError for an integer beyond 64 bits,
    in a finding or an outcome, which msgpack cannot hold). `movable`: its pieces can be
    made again from its reports (Entry.movable)."""
    encoded = [msgspec.Raw(_ENCODER.encode(report)) for report in reports]
    tallies = [Tally.of(report) for report in reports]
    entry = Entry(alone, encoded, tallies, names, pieces, failures, line=line)
    entry.movable = alone and movable and _movable(entry, reports)
    return entry


def encode_entry(entry: Entry) -> bytes:
    return _ENCODER.encode(entry)


def decode_entry(payload: bytes | memoryview, sections: list[str]) -> Entry | None:
    """The entry in a payload, or None when it is not one made for this run's sections."""
    try:
        entry = _DECODER.decode(payload)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    count = len(entry.reports)
    if len(entry.pieces) != count or len(entry.tallies) != count:
        return None
    if any(len(texts) != len(entry.names) for texts in entry.pieces):
        return None
    if sections and (
        entry.sections != sections
        or len(entry.summaries) != count
        or any(len(row) != len(sections) for row in entry.summaries)
    ):
        return None
    return entry


def _movable(entry: Entry, reports: list[TraceReport]) -> bool:
    """Whether nothing in the entry depends on its line but the reports' positions: no
    input failure (its message names the line) and no trace named after the line (an
    adapter names a trace without an id `<file>-<line>`)."""
    suffix = f"-{entry.line}"
    return not entry.failures and not any(r.trace_id.endswith(suffix) for r in reports)


def moved(report: TraceReport, shift: int) -> TraceReport:
    """The report of a trace `shift` lines further down its file."""
    line = report.source_line
    return msgspec.structs.replace(
        report,
        source_line=None if line is None else line + shift,
        step_lines=tuple(n + shift for n in report.step_lines),
    )
