"""What one scan of a window of outputs, as msgspec writes them to JSON, tells the source
store (store.py): whether the JSON is *plain*, and whether an injection marker may
match in it.

A plain window is ASCII and has no backslash (every string is written verbatim), no two
spaces in a row, no string that starts (after spaces) with `[` or `{` (none may hold
JSON), and no number in exponent form (every number is written with its integer digits,
which is also its decimal form, or holds it). Its JSON then holds each folded text of
its outputs, up to ASCII case, between two quotes, but for one leading or trailing
space: the texts folding removes. Markers are searched there the way `PatternSet`
screens delimited text, which finds every match inside one piece; a marker anchored
with `^` or `$` needs the pieces without such spaces.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..patterns import PatternSet

# Probes searched in the markers' scan: what keeps a window from being plain, then the
# spaces folding strips at the ends of a string.
_NOT_PLAIN = (r'" *[\[{]', "[0-9][e][-+0-9]", "  ")
_EDGE_SPACE = ('" ', ' "')
_QUOTE = b'"'


class WindowScreen(NamedTuple):
    plain: bool  # the JSON holds every folded text (see the module docstring)
    marked: bool  # a marker may match in some output string (always, when not plain)


class Screen:
    """Made once per policy from the `untrusted_if` patterns (None or empty: none)."""

    __slots__ = ("_anchored", "_probes", "_set")

    def __init__(self, markers: Sequence[str] | None) -> None:
        probes = (*_NOT_PLAIN, *_EDGE_SPACE)
        self._probes = PatternSet(probes)
        self._set = PatternSet(tuple(markers), probes=probes) if markers else None
        self._anchored = any("^" in m or "$" in m for m in markers or ())

    def window(self, blob: bytes) -> WindowScreen:
        if not blob.isascii() or b"\\" in blob:
            return WindowScreen(False, True)
        markers = self._set
        may, found = (True, None) if markers is None else markers.screen(blob, _QUOTE)
        if found is None:  # no markers, or a scan of changed text: probe on its own
            found = frozenset(self._probes.matches(blob.decode("ascii")))
        if any(i < len(_NOT_PLAIN) for i in found):
            return WindowScreen(False, True)
        if markers is None:
            return WindowScreen(True, False)
        edges = any(i >= len(_NOT_PLAIN) for i in found)
        return WindowScreen(True, may or (self._anchored and edges))
