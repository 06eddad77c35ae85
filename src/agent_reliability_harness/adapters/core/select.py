"""Refuse instead of guessing: how much of a document an adapter mapped, and which format
reads it best.

An explicit format that maps no step, or fewer items than it had to note, is refused;
`auto` converts every claiming format and keeps the one that maps clearly the most.
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from typing import Any

import msgspec

from ...errors import AdapterError
from .base import Adapter

# How many distinct note issues a refusal names before "...".
_SHOWN_ISSUES = 3


class Coverage(msgspec.Struct, frozen=True):
    """What one conversion made of a document, summed over the traces it produced."""

    traces: int
    steps: int
    mapped: int
    noted: int
    issues: tuple[tuple[str, int], ...]  # (issue, count), most frequent first
    skipped: int = 0

    @property
    def empty(self) -> bool:
        """The document holds nothing at all (no item mapped, noted or skipped)."""
        return self.steps == 0 and self.mapped == 0 and self.noted == 0 and self.skipped == 0

    @property
    def score(self) -> int:
        return self.mapped - self.noted

    def refusal(self) -> str | None:
        """Why this reading must not be judged (no step, or most items dropped), or None.
        "Most" is by coverage: fewer items mapped than noted."""
        if self.empty or (self.steps > 0 and self.mapped >= self.noted):
            return None
        total = self.mapped + self.noted
        if self.steps == 0 and self.noted == 0 and self.mapped > 0:  # not "N of N mapped"
            items = "item mapped is" if self.mapped == 1 else f"{self.mapped} items mapped are"
            text = f"no step mapped: the {items} inputs or labels, no model turn or tool call"
            skipped = f"; {self.skipped} skipped as bookkeeping" if self.skipped else ""
            return text + skipped
        text = f"{self.mapped} of {total} items mapped"
        if self.issues:
            shown = ", ".join(f"{issue} ({n})" for issue, n in self.issues[:_SHOWN_ISSUES])
            more = ", ..." if len(self.issues) > _SHOWN_ISSUES else ""
            text += f"; noted: {shown}{more}"
        if self.skipped:
            text += f"; {self.skipped} skipped as bookkeeping"
        if self.steps == 0 and (self.mapped > 0 or self.skipped > 0):
            return f"no step mapped; {text}"
        return text


def coverage(traces: list[Any]) -> Coverage:
    """The coverage of converted traces, from their `metadata.adapter` records."""
    steps = mapped = noted = skipped = 0
    issues: Counter[str] = Counter()
    for trace in traces:
        if not isinstance(trace, dict):
            continue
        trace_steps = trace.get("steps")
        count = len(trace_steps) if isinstance(trace_steps, list) else 0
        steps += count
        record = _adapter_record(trace)
        notes = record.get("notes")
        notes = notes if isinstance(notes, list) else []
        recorded = record.get("mapped")
        mapped += recorded if isinstance(recorded, int) and recorded >= 0 else count
        noted += len(notes)
        issues.update(str(n.get("issue")) for n in notes if isinstance(n, dict))
        counts = record.get("skipped")
        if isinstance(counts, dict):
            skipped += sum(n for n in counts.values() if isinstance(n, int) and n > 0)
    ranked = tuple(sorted(issues.items(), key=lambda kv: (-kv[1], kv[0])))
    return Coverage(len(traces), steps, mapped, noted, ranked, skipped)


def _adapter_record(trace: dict[str, Any]) -> dict[str, Any]:
    metadata = trace.get("metadata")
    record = metadata.get("adapter") if isinstance(metadata, dict) else None
    return record if isinstance(record, dict) else {}


def checked(adapter: Adapter, traces: list[Any]) -> list[Any]:
    """The traces of an explicitly chosen format, or AdapterError when it cannot read the
    document (see Coverage.refusal); a document with nothing in it holds no trace."""
    found = coverage(traces)
    if found.empty:
        return []
    why = found.refusal()
    if why is not None:
        raise AdapterError(f"{not_format(adapter)}: {why}")
    return _with_content(traces)


def explicit(
    adapter: Adapter, value: Any, name_hint: str, rivals: list[Adapter], owns: bool
) -> list[Any]:
    """The traces of an explicitly chosen format (`checked`). A document that carries none
    of the format's own markers (`owns`: `Adapter.owns`) while other formats claim it (`rivals`)
    is read only when the format reads it exactly as the best of them does (a wire shape
    they share: docs/adapters.md); otherwise it is refused, naming the format it looks
    like. Without rivals, a document of plain messages is the user's to name."""
    if owns:
        try:
            return checked(adapter, adapter.convert(value, name_hint))
        except AdapterError as exc:
            raise _pointed(exc, rivals, value, name_hint) from None
    if not rivals:
        try:
            traces = adapter.convert(value, name_hint)
            return checked(adapter, traces)
        except AdapterError as exc:  # nothing in it says it is this format
            raise _nearest(adapter, exc, value) from None
    names = [a.name for a in rivals]
    theirs: list[Any] | None = None
    with contextlib.suppress(AdapterError):
        theirs = select(rivals, value, name_hint)
        names = _sources(theirs) or names
    try:
        ours: list[Any] | None = checked(adapter, adapter.convert(value, name_hint))
    except AdapterError:
        if theirs is None:  # no format reads it: what is wrong with it, as this one sees it
            raise
        ours = None
    if ours is not None and (theirs is None or _reading(ours, True) == _reading(theirs, True)):
        return ours
    looks = names[0] if len(names) == 1 else "one of " + ", ".join(names)
    raise AdapterError(
        f"{not_format(adapter)}: no {adapter.name} marker found, and it looks like {looks}; "
        f"pass --format {names[0]}"
    )


def _pointed(exc: AdapterError, rivals: list[Adapter], value: Any, name_hint: str) -> AdapterError:
    """A refusal of a document that carries the format's markers, pointing to the format
    that reads it (an OpenInference export under `--format otel-genai`), if one does."""
    try:
        theirs = select(rivals, value, name_hint) if rivals else []
    except AdapterError:
        theirs = []
    names = _sources(theirs)
    if not names:
        return exc
    return AdapterError(f"{exc}; it looks like {names[0]}; pass --format {names[0]}")


def _nearest(adapter: Adapter, exc: AdapterError, value: Any) -> AdapterError:
    """A refusal of a document no format claims, with the format it comes closest to and
    what it lacks of it (adapters/core/claims.py), when it has any format's own marker."""
    from .claims import closest  # noqa: PLC0415 - only to refuse

    text = str(exc)
    if not text.startswith(not_format(adapter)):
        text = f"{not_format(adapter)}: {text}"
    near = closest(value)
    return AdapterError(f"{text}; {near}" if near is not None else text)


def not_format(adapter: Adapter) -> str:
    """ "not a(n) X transcript", how a refusal under a format begins."""
    return f"not {_article(adapter.name)} {adapter.name} transcript"


def _sources(traces: list[Any]) -> list[str]:
    found = (t.get("source") for t in traces if isinstance(t, dict))
    return list(dict.fromkeys(s for s in found if isinstance(s, str)))


def foreign(adapter: Adapter, owner: Adapter) -> AdapterError:
    """An explicit format given a document in another format's envelope (a tau-bench
    results file, a SWE-agent trajectory, a session's lines): it would half-read it."""
    return AdapterError(
        f"{not_format(adapter)}: it is {_article(owner.name)} {owner.name} document; "
        f"pass --format {owner.name}"
    )


def _with_content(traces: list[Any]) -> list[Any]:
    """Of several traces, those that hold anything besides bookkeeping records (a span
    export's trace of HTTP spans alone is no agent run)."""
    if len(traces) < 2:
        return traces
    kept = [t for t in traces if not _only_bookkeeping(coverage([t]))]
    return kept or traces


def _only_bookkeeping(found: Coverage) -> bool:
    return found.steps == 0 and found.mapped == 0 and found.noted == 0


class _Candidate(msgspec.Struct, frozen=True):
    adapter: Adapter
    traces: list[Any]
    coverage: Coverage


def select(claimants: list[Adapter], value: Any, name_hint: str) -> list[Any]:
    """Convert with every claiming format (registry order) and keep the clear best; an
    AdapterError names the candidates when none can read the document or two read it
    equally well but differently. One claimant costs one conversion (its errors stand)."""
    if len(claimants) == 1:
        (adapter,) = claimants
        traces = adapter.convert(value, name_hint)
        found = coverage(traces)
        why = None if found.empty else found.refusal()
        if why is not None:
            raise AdapterError(
                f"unrecognised input format: it looks like {adapter.name}, but {why}; "
                "pass --format if it is another format"
            )
        return [] if found.empty else _with_content(traces)
    readings: list[_Candidate] = []
    failures: list[str] = []
    for adapter in claimants:
        try:
            traces = adapter.convert(value, name_hint)
        except AdapterError as exc:
            failures.append(f"as {adapter.name}: {exc}")
            continue
        found = coverage(traces)
        if found.empty:
            return []
        why = found.refusal()
        if why is None:
            readings.append(_Candidate(adapter, traces, found))
        else:
            failures.append(f"as {adapter.name}: {why}")
    if not readings:
        raise AdapterError(
            "unrecognised input format: no candidate format reads it ("
            + "; ".join(failures)
            + "); pass --format"
        )
    best = max(readings, key=lambda c: c.coverage.score)  # first of equals: registry order
    rivals = [
        c
        for c in readings
        if c is not best
        and c.coverage.score == best.coverage.score
        and _reading(c.traces) != _reading(best.traces)
    ]
    if rivals:
        names = ", ".join(c.adapter.name for c in [best, *rivals])
        raise AdapterError(
            f"ambiguous input format: {names} each map {best.coverage.mapped} items of it, "
            "differently; pass --format with one of them"
        )
    return _with_content(best.traces)


_JUDGED = ("type", "tool_name", "arguments", "text", "output", "status", "error")
# What else a verdict reads: budgets, citations, trusted inputs, labels (a shared wire
# shape must give all of them, not only the same steps).
_MEASURED = ("input_tokens", "output_tokens", "latency_ms", "cost_usd", "citations")
_TRACE_FIELDS = ("inputs", "task_id", "outcome")


def _reading(traces: list[Any], whole: bool = False) -> list[Any]:
    """What the rules judge in converted traces: each step's kind, tool, arguments, text,
    output and status (labels, citations and metadata aside); `whole`: also each step's
    measures and the trace's inputs and labels."""
    keys = (*_JUDGED, *_MEASURED) if whole else _JUDGED
    shape: list[Any] = []
    for trace in traces:
        if not isinstance(trace, dict):
            continue
        if whole:
            shape.append(json.dumps([trace.get(k) for k in _TRACE_FIELDS], sort_keys=True))
        steps = trace.get("steps")
        for step in steps if isinstance(steps, list) else []:
            if isinstance(step, dict):
                shape.append(json.dumps([step.get(k) for k in keys], sort_keys=True, default=str))
    return shape


def _article(name: str) -> str:
    return "an" if name[:1] in "aeiou" or name == "mcp" else "a"
