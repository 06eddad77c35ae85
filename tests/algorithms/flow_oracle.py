"""A naive reference for the data-flow index: every question scans every earlier source
with plain substring tests, exactly as section 6 words it. Units, texts and regions come
from the (separately tested) extraction functions; only the index logic is redone."""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from agent_reliability_harness.dataflow import (
    DataflowOptions,
    Unit,
    fold,
    grounded_leaves,
    output_texts,
    taint_regions,
    value_units,
)


@dataclass
class Source:
    position: int
    trusted: bool
    texts: list[str]
    numbers: list[Any]
    regions: list[tuple[str, int]] = field(default_factory=list)  # (text, marker)
    taint_whole: bool = False


def numerals(text: str) -> list[Any]:
    out = []
    i = 0
    while i < len(text):
        if not text[i].isdigit() or not text[i].isascii():
            i += 1
            continue
        j = i
        while j < len(text) and text[j] in "0123456789":
            j += 1
        if j + 1 < len(text) and text[j] == "." and text[j + 1] in "0123456789":
            j += 1
            while j < len(text) and text[j] in "0123456789":
                j += 1
        raw = text[i:j]
        value: Any = float(raw) if "." in raw else int(raw)
        if i >= 1 and text[i - 1] == "-" and (i == 1 or not text[i - 2].isalnum()):
            value = -value
        out.append(value)
        i = j
    return out


def holds(unit: Unit, texts: list[str], numbers: list[Any]) -> bool:
    if unit.number is None:
        return any(unit.text in t for t in texts)
    return any(n == unit.number for n in numbers) or any(unit.number in numerals(t) for t in texts)


def build(options: DataflowOptions, events: list[tuple[Any, ...]]) -> list[Source]:
    sources = []
    for event in events:
        if event[0] == "input":
            found = output_texts(event[1])
            sources.append(Source(-1, True, found.texts, found.numbers))
        elif event[0] == "output":
            _, position, value, untrusted = event
            found = output_texts(value)
            if options.untrusted_if is None:
                sources.append(
                    Source(position, not untrusted, found.texts, found.numbers, [], untrusted)
                )
                continue
            regions = [
                r
                for t in found.searched
                for r in taint_regions(t, options.untrusted_if, options.taint_window)
            ]
            trusted = not regions and not untrusted
            sources.append(Source(position, trusted, found.texts, found.numbers, regions))
    return sources


def naive(options: DataflowOptions, events: list[tuple[Any, ...]]) -> dict[str, Any]:
    sources = build(options, events)
    globs = [fold(g) for g in options.trusted_values]
    markers = options.untrusted_if or ()
    sinks, grounded = [], []
    for event in events:
        if event[0] == "sink":
            _, position, arguments, checked = event
            earlier = [s for s in sources if s.position < position]
            tainted = []
            for name in sorted(arguments or {}):
                if checked is not None and name not in checked:
                    continue
                hits = []
                for unit in value_units(arguments[name], options.min_value_length):
                    if any(fnmatchcase(unit.text, g) for g in globs):
                        continue
                    if any(s.trusted and holds(unit, s.texts, s.numbers) for s in earlier):
                        continue
                    taint = []
                    for s in earlier:
                        if s.taint_whole and holds(unit, s.texts, s.numbers):
                            taint.append((s.position, -1))
                        taint.extend(
                            (s.position, m) for text, m in s.regions if holds(unit, [text], [])
                        )
                    if taint:
                        pos, m = min(taint)
                        hits.append((unit.text, pos, markers[m].pattern if m >= 0 else None))
                if hits:
                    tainted.append((name, hits))
            sinks.append((position, tainted))
        elif event[0] == "grounded":
            _, position, name, value = event
            earlier = [s for s in sources if s.position < position]
            missing = next(
                (
                    u.text
                    for u in grounded_leaves(value)
                    if not any(holds(u, s.texts, s.numbers) for s in earlier)
                ),
                None,
            )
            grounded.append((position, name, missing))
    return {"sinks": sinks, "grounded": grounded}
