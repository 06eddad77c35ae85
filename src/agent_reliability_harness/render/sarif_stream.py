"""The SARIF log written a trace at a time: the bytes of `sarif.render_run`, from
per-trace fragments made where the trace is judged (and kept in `--cache` entries, so a
cached trace costs a read, not a render).

A trace's fragment (`trace_fragment`) holds, per finding, its result already laid out as
JSON (as `sarif._result` makes it, indented as an element of `results`) with holes for
what only the whole run knows: the rule's index in the catalogue, the logical
locations' indexes, and the fingerprints (made for the results written; they count
the occurrences of the same (trace id, rule, category, step) in earlier traces too).
`SarifWriter` fills the holes in input order, applies the
results cap and lays out the log around them (`sarif.log_of`).

A fragment is three lines' worth: a header (JSON: the trace id and each finding's
severity rank), the rows (JSON: per finding its key, occurrence and logical locations;
the logical locations' keys) and the texts of the results and logical locations, as
%-format templates (`%` doubled, a hole is `%s`: filled by one `%`), joined by ITEM.
JSON text holds no control character but whitespace (a string holds its own escaped),
so ITEM occurs in no text, and the texts are read back by splitting, not by decoding.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, cast

import msgspec

from ..models.report import RunReport, TraceReport
from . import sarif
from .base import RenderOptions
from .json_ import dumps, element

# Placeholders: integers no report holds (a line number or an index this large cannot
# be), each written after its key, so the text `"key": N` occurs nowhere else (a string
# holding it has its quotes escaped).
_BASE = 4_611_686_018_427_380_000
_RULE, _DIGEST, _LINE_HASH, _PARENT, _RESULTS, _LOGICAL = (_BASE + n for n in range(6))
_INDEX = _BASE + 10  # + the reference's position in the result
_DEPTH = 4  # results and logicalLocations elements: log > runs > run > array > element
_ITEM = "  " * _DEPTH
_HOLES = (
    f'"ruleIndex": {_RULE}',
    f'"index": {_INDEX}',
    f'"index": {_INDEX + 1}',
    f'"{sarif.FINGERPRINT_KEY}": {_DIGEST}',
    f'"primaryLocationLineHash": {_LINE_HASH}',
)

ITEM = "\x1e"
_RULE_HOLE = '"ruleIndex": %s'

LogicalKey = tuple[Any, ...]


class _Holes(sarif._LogicalLocations):
    """Logical locations of one result: placeholders, and the keys they stand for."""

    def __init__(self) -> None:
        super().__init__()
        self.keys: list[list[Any]] = []

    def reference(
        self, report: TraceReport, step_index: int | None, step_id: str | None
    ) -> dict[str, Any]:
        found = super().reference(report, step_index, step_id)
        if step_index is None or step_id is None:
            self.keys.append(["trace", report.trace_id])
        else:
            self.keys.append(["step", report.trace_id, step_index, step_id])
        found["index"] = _INDEX + len(self.keys) - 1
        return found


def _split(text: str) -> list[str]:
    """The text around each placeholder that occurs in it (its key kept, its value out)."""
    parts: list[str] = []
    for hole in _HOLES:
        head, found, text = text.partition(hole)
        if found:
            parts.append(head + hole.rsplit(" ", 1)[0] + " ")
        else:
            text = head
    return [*parts, text]


def trace_fragment(report: TraceReport) -> str:
    """The trace's results as a fragment ("" for a trace without findings)."""
    if not report.findings:
        return ""
    seen: dict[tuple[str | None, str, str | None], int] = {}
    rows: list[list[Any]] = []
    results: list[dict[str, Any]] = []
    entries: list[dict[str, Any]] = []
    keys: list[list[Any]] = []
    known: set[tuple[Any, ...]] = set()
    for finding in report.findings:
        key = (finding.rule_id, finding.category, finding.step_id)
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        holes = _Holes()
        result = sarif._result(
            report, finding, occurrence, _rule_hole(finding.rule_id), holes, digest=None
        )
        result["partialFingerprints"] = {
            sarif.FINGERPRINT_KEY: _DIGEST,
            "primaryLocationLineHash": _LINE_HASH,
        }
        results.append(result)
        for entry_key, entry in zip(holes._index, holes.entries, strict=True):
            if entry_key not in known:
                known.add(entry_key)
                keys.append(list(entry_key))
                entries.append(_parented(entry))
        rows.append([*key, occurrence, holes.keys])
    texts = [_template(_split(text)) for text in _items(results)]
    if entries:  # every result has one at least
        texts += [_template(text.split(str(_PARENT))) for text in _items(entries)]
    ranks = "".join(str(finding.severity.rank) for finding in report.findings)
    head = msgspec.json.encode([report.trace_id, ranks]).decode()
    meta = msgspec.json.encode([rows, keys]).decode()
    return f"{head}\n{meta}\n{ITEM.join(texts)}"


def _template(parts: list[str]) -> str:
    """The text around holes as a %-format template."""
    return "%s".join(part.replace("%", "%%") for part in parts)


def _rule_hole(rule_id: str | None) -> dict[str, int]:
    """The rule index map `sarif._result` reads, giving every finding (a v0.1 one without
    a rule ID too) the ruleIndex hole: filled, or dropped, when the catalogue is known."""
    return cast(dict[str, int], {rule_id: _RULE})


def _parented(entry: dict[str, Any]) -> dict[str, Any]:
    return {**entry, "parentIndex": _PARENT} if "parentIndex" in entry else entry


def _items(values: list[dict[str, Any]]) -> list[str]:
    """Each value laid out as an element of a results array (one formatting for all):
    an element starts on a line of its own, `{` at the element's indent."""
    text = element(values, _DEPTH - 1)
    body = text[2 + len(_ITEM) : -len(_ITEM)]  # "[\n" + indent ... "\n" + indent - 2 + "]"
    parts = body.split(",\n" + _ITEM + "{")
    return [part if n == 0 else "{" + part for n, part in enumerate(parts)]


@dataclass
class SarifWriter:
    """Fragments in input order -> the SARIF log's text (`pieces`). A fragment's texts are
    read only when one of its results is written (the cap may leave it out); its rows
    also when its trace id came before (its fingerprints then count the earlier
    occurrences)."""

    metas: list[str] = field(default_factory=list)  # each fragment's rows (JSON)
    texts: list[str] = field(default_factory=list)  # each fragment's texts
    ids: list[str] = field(default_factory=list)  # each fragment's trace id
    ranks: list[str] = field(default_factory=list)
    traces: dict[str, list[int]] = field(default_factory=dict)  # trace id -> fragments
    # Fragments whose fingerprints were recomputed: position -> their rows.
    fixed: dict[int, list[list[Any]]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)  # results so far, by rank
    full: str = "~"  # _may_be_written (above every rank: none is full yet)

    def add(self, fragment: str) -> None:
        if not fragment:
            return
        head, meta, texts = fragment.split("\n", 2)
        trace_id, ranks = msgspec.json.decode(head)
        position = len(self.metas)
        self.metas.append(meta)
        self.texts.append(texts if self._may_be_written(ranks) else "")
        self.ids.append(trace_id)
        self.ranks.append(ranks)
        earlier = self.traces.setdefault(trace_id, [])
        if earlier:
            self.fixed[position] = self._recounted(earlier, meta)
        earlier.append(position)

    def _may_be_written(self, ranks: str) -> bool:
        """Whether a result of the next fragment may be written: once MAX_RESULTS results
        as severe or more came before one, the cap leaves it out (its texts are then not
        kept). `full`: the most severe rank with that many results so far, or above."""
        may = min(ranks) < self.full
        if self.full != "0":
            counts = self.counts
            for rank in ranks:
                counts[rank] = counts.get(rank, 0) + 1
            total = 0
            for rank in sorted(counts):
                total += counts[rank]
                if total >= sarif.MAX_RESULTS:
                    self.full = rank
                    break
        return may

    def _rows(self, position: int) -> list[list[Any]]:
        fixed = self.fixed.get(position)
        if fixed is not None:
            return fixed
        rows: list[list[Any]] = msgspec.json.decode(self.metas[position])[0]
        return rows

    def _recounted(self, earlier: list[int], meta: str) -> list[list[Any]]:
        """The rows of a trace whose id came before, their occurrences counted on."""
        counts: dict[tuple[Any, ...], int] = {}
        for position in earlier:
            for row in self._rows(position):
                key = (row[0], row[1], row[2])
                counts[key] = counts.get(key, 0) + 1
        rows: list[list[Any]] = msgspec.json.decode(meta)[0]
        for row in rows:
            row[3] += counts.get((row[0], row[1], row[2]), 0)
        return rows

    def _selected(self) -> tuple[list[tuple[int, int]], int]:
        """(fragment, result) of each result written, in order, and how many were cut:
        the MAX_RESULTS most severe, the earlier first among equals (as sarif.render_run
        sorts them), found rank by rank."""
        total = sum(len(ranks) for ranks in self.ranks)
        if total <= sarif.MAX_RESULTS:
            return [(f, n) for f, ranks in enumerate(self.ranks) for n in range(len(ranks))], 0
        flat = "".join(self.ranks)
        room, cutoff = sarif.MAX_RESULTS, "0"
        for cutoff in sorted(set(flat)):  # the least severe rank written (some of it)
            if flat.count(cutoff) >= room:
                break
            room -= flat.count(cutoff)
        chosen: list[tuple[int, int]] = []
        for f, ranks in enumerate(self.ranks):
            for n, rank in enumerate(ranks):
                if rank < cutoff or (rank == cutoff and room > 0):
                    chosen.append((f, n))
                    room -= rank == cutoff
        return chosen, total - sarif.MAX_RESULTS

    def pieces(self, run: RunReport, options: RenderOptions) -> Iterator[str]:
        """The log's text: `run` gives everything but the results (it holds none)."""
        chosen, omitted = self._selected()
        rows: list[list[Any]] = []
        entries: dict[LogicalKey, str] = {}
        current, loaded = -1, None
        for fragment, n in chosen:
            if fragment != current:
                current = fragment
                loaded = self._loaded(fragment, entries)
            assert loaded is not None
            rows.append([self.ids[fragment], *loaded[n]])
        rules = sarif._catalogue({row[1] for row in rows}, run.plugins)
        rule_index = {rule.rule_id: position for position, rule in enumerate(rules)}
        logical: dict[LogicalKey, int] = {}
        order: list[LogicalKey] = []
        for row in rows:  # logical locations are numbered as the results refer to them
            for key in row[5]:
                self._index(tuple(key), logical, order)
        results = (self._result(row, rule_index, logical, order) for row in rows)
        texts = [self._entry(entries[key], key, logical) for key in order]
        log = sarif.log_of(
            run,
            options,
            rules,
            omitted=omitted,
            logical=_LOGICAL if texts else None,
            results=_RESULTS,
        )
        text = dumps(log)
        if texts:
            head, _, text = text.partition(f'"logicalLocations": {_LOGICAL}')
            yield head
            yield from _array("logicalLocations", texts)
        head, _, text = text.partition(f'"results": {_RESULTS}')
        yield head
        yield from _array("results", results)
        yield text

    def _loaded(self, position: int, entries: dict[LogicalKey, str]) -> list[list[Any]]:
        """The fragment's rows, each with its text; its logical locations' texts put in
        `entries` (the first text of each key)."""
        rows, keys = msgspec.json.decode(self.metas[position])
        rows = self.fixed.get(position, rows)
        items = self.texts[position].split(ITEM)
        for key, text in zip(keys, items[len(rows) :], strict=True):
            entries.setdefault(tuple(key), text)
        return [[*row, text] for row, text in zip(rows, items, strict=False)]

    def _index(self, key: LogicalKey, logical: dict[LogicalKey, int], order: list[Any]) -> int:
        found = logical.get(key)
        if found is None:
            if key[0] == "step":
                self._index(("trace", key[1]), logical, order)
            found = logical[key] = len(order)
            order.append(key)
        return found

    def _result(
        self,
        row: list[Any],
        rule_index: dict[str, int],
        logical: dict[LogicalKey, int],
        order: list[Any],
    ) -> str:
        trace_id, rule_id, category, step_id, occurrence, keys, _ = row
        text: str = row[6]
        digest = sarif.key_fingerprint(trace_id, rule_id, category, step_id, occurrence)
        values: list[Any] = [self._index(tuple(key), logical, order) for key in keys]
        values += [f'"{digest}"', f'"{digest[:16]}:{occurrence + 1}"']
        position = None if rule_id is None else rule_index.get(rule_id)
        if position is None:  # no rule of the catalogue: no ruleIndex (as sarif._result)
            head, _, tail = text.partition(_RULE_HOLE)
            return _ITEM + (head.rsplit(",\n", 1)[0] + tail) % tuple(values)
        return _ITEM + text % (position, *values)

    def _entry(self, text: str, key: LogicalKey, logical: dict[LogicalKey, int]) -> str:
        holes = text.replace("%%", "").count("%s")  # the parent's index, or none
        return _ITEM + text % ((logical[("trace", key[1])],) if holes else ())


def _array(name: str, items: Iterable[str]) -> Iterator[str]:
    """`"name": [...]` laid out as json.dumps(indent=2) does, one level above the items
    (a piece each: the log is never one string, nor are its results held as a list)."""
    start = f'"{name}": [\n'
    for item in items:
        yield start + item
        start = ",\n"
    yield f'"{name}": []' if start != ",\n" else "\n" + "  " * (_DEPTH - 1) + "]"


__all__ = ["SarifWriter", "trace_fragment"]
