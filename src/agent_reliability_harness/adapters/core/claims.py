"""What each format's documents carry and never carry, read from the formats' declared
evidence (Evidence in core/base.py): what contradicts a claim, and the format a document
no format claims comes closest to, with what it lacks of it.

A marker is a key (`action`), a key with its value(s) (`type=human|ai`), or a key whose
text matches a pattern (`text~^\\[[^\\]]+\\] Result:`), looked for in the document, its
items, the items of its arrays and its objects, one level down (the first 200 of each).
Only markers no plain chat message carries count toward closeness, so a conversation of
plain text messages is close to no format. A format's claim is decided by its `detect`
(core/detect.py); these say why a document is not claimed, or not a format's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from .base import Adapter
from .registry import TRANSCRIPTS

# The built-in formats' markers, in registry order (ties go to the earlier format).
MARKS: dict[str, tuple[str, ...]] = {row.name: row.marks for row in TRANSCRIPTS}
# Markers that alone say nothing (plain chat messages and common bookkeeping carry them):
# a format is close to a document only when it has one of its other markers.
_COMMON = frozenset(
    {"messages", "id", "source", "type=user|assistant", "result", "timestamp", "schema_version"}
)
_SCANNED = 200  # items looked at per array


class Seen:
    """The keys, the `key=value` pairs of short text values, and the texts by key of the
    objects looked at: the document (or its items), and their arrays' items and object
    values, one level down."""

    __slots__ = ("keys", "texts")

    def __init__(self, value: Any) -> None:
        self.keys: set[str] = set()
        self.texts: dict[str, list[str]] = {}
        tops = value[:_SCANNED] if isinstance(value, list) else [value]
        for top in tops:
            if not isinstance(top, dict):
                continue
            self._take(top)
            for inner in top.values():
                if isinstance(inner, dict):
                    self._take(inner)
                elif isinstance(inner, list):
                    for item in inner[:_SCANNED]:
                        if isinstance(item, dict):
                            self._take(item)

    def _take(self, found: dict[str, Any]) -> None:
        self.keys.update(found)
        for key, text in found.items():
            if isinstance(text, str):
                self.keys.add(f"{key}={text}")
                self.texts.setdefault(key, []).append(text)

    def shows(self, mark: str) -> bool:
        """Whether the objects looked at show the marker."""
        return self.found(mark) is not None

    def found(self, mark: str) -> str | None:
        """What of the marker the objects looked at show (`type=thinking` of the marker
        `type=tool_call|thinking`), or None."""
        key, tilde, pattern = mark.partition("~")
        if tilde:
            search = _compiled(pattern).search
            hits = (search(text) for text in self.texts.get(key, ()))
            hit = next((h for h in hits if h is not None), None)
            return None if hit is None else f"{key}={hit.group(0)}"
        return next((need for need in sorted(_needs(mark)) if need in self.keys), None)


@lru_cache(maxsize=64)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


@lru_cache(maxsize=1024)
def _needs(mark: str) -> frozenset[str]:
    """What the document must show for a marker: its key, or one of its `key=value`."""
    key, _, values = mark.partition("=")
    return frozenset(f"{key}={v}" for v in values.split("|")) if values else frozenset((key,))


def contradiction(adapter: Adapter, seen: Seen) -> str | None:
    """What the document shows of the format's `against` markers (the first), or None."""
    for mark in adapter.evidence.against:
        found = seen.found(mark)
        if found is not None:
            return found
    return None


def line_contradiction(adapter: Adapter, line: Any) -> str | None:
    """The first `against` marker one line of a session file shows at its top level."""
    against = adapter.evidence.against
    if not against or not isinstance(line, dict):
        return None
    seen = Seen.__new__(Seen)
    seen.keys, seen.texts = set(), {}
    seen._take(line)
    return contradiction(adapter, seen)


def _shown(marks: Iterable[str]) -> str:
    return ", ".join(f"'{m}'" for m in marks)


def never_writes(adapter: Adapter, mark: str) -> str:
    """Why a claim was withdrawn: "it has 'X', which F never writes"."""
    return f"it has {_shown([mark])}, which {adapter.name} never writes"


def closest(value: Any, among: tuple[str, ...] | None = None) -> str | None:
    """Where a document comes closest to a format (`among` those, or all, plugins
    included): "closest is 'X' (has 'a') but it lacks 'b'" (or "but it has 'c', which X
    never writes"), or None when it has no format's own marker. Most markers found wins;
    of equals, the earlier format in the registry."""
    from .plugins import formats  # noqa: PLC0415 - the registry with any plugin formats

    seen = Seen(value)
    best: tuple[int, Adapter, list[str], list[str]] | None = None
    for adapter in formats()[1:]:
        if among is not None and adapter.name not in among:
            continue
        marks = adapter.evidence.marks
        has = [mark for mark in marks if seen.shows(mark)]
        if not any(m not in _COMMON for m in has):
            continue
        if best is None or len(has) > best[0]:
            best = (len(has), adapter, has, [m for m in marks if m not in has])
    if best is None:
        return None
    _, adapter, has, lacks = best
    against = contradiction(adapter, seen)
    if against is not None:
        why = never_writes(adapter, against)
    else:
        why = f"it lacks {_shown(lacks)}" if lacks else f"its shape is not {adapter.name}'s"
    return f"closest is '{adapter.name}' (has {_shown(has)}) but {why}"
