"""A lazy front for SourceIndex with the same methods and answers: outputs are kept as
JSON text, a window of them at a time, and `resolve` reads into an exact SourceIndex
only the windows that may hold something a question asks about.

Most outputs never matter: a unit can only be tainted or grounded by a source that holds
it. A window whose JSON is *plain* (screen.py: ASCII, every string verbatim, single
spaces, no string that may hold JSON, no number in exponent form) holds every folded
text of its outputs, up to ASCII case, so a case-insensitive literal search over it
tells which asked units it may hold. Windows that are not plain are always read. The
answers are the exact index's own, built from fewer sources that cannot change them
(tests/algorithms/test_dataflow_store.py checks both against each other).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Mapping
from fnmatch import fnmatchcase
from typing import Any

import msgspec

from .index import DataflowOptions, GroundedResult, Resolution, SinkResult, SourceIndex
from .literals import LiteralSearch
from .screen import Screen
from .units import fold, grounded_leaves, value_units

# Outputs per window: what one unscreenable window or one literal hit costs to read.
WINDOW = 256
# Literals per RE2 set when screening windows: each set is one pass over every window,
# and sets of literals compile to small automata (measured: 20,000 literals of 32 bytes
# in 6 sets of 128 KB pass 25 MB of windows in 0.3 s; in 41 sets of 16 KB, 2.1 s).
_BATCH = (4096, 128 * 1024)
_NEVER = 1 << 62
_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode


# An output as added: (position, output, untrusted, step id, tool).
Record = tuple[int, Any, bool, str, str]
# A sink question: (position, arguments, checked names or None, step id, tool).
SinkQuestion = tuple[int, Mapping[str, Any], Collection[str] | None, str, str]


class _Window:
    """Outputs in trace order: their positions and untrusted flags, their JSON (or the
    values themselves when msgspec cannot write them), what the screen found, and the
    step ids and tools of those that may hold taint (for `SourceStore.source`)."""

    __slots__ = ("blob", "labels", "positions", "screen", "untrusted", "values")

    def __init__(self, records: list[Record], screen: Screen, marked_only: bool) -> None:
        self.positions = array("q", [r[0] for r in records])
        self.untrusted = bytearray([r[2] for r in records])
        values = [r[1] for r in records]
        self.values: list[Any] | None = None
        self.blob = b""
        try:
            self.blob = _encode(values)
        except Exception:  # a value JSON cannot hold (a lone surrogate, a huge int): keep it
            self.values = values
        self.screen = screen.window(self.blob) if self.values is None else None
        # With markers, taint can only come from a marked window; without, only from an
        # untrusted output.
        taint = self.screen is None or self.screen.marked if marked_only else any(self.untrusted)
        self.labels = [(r[3], r[4]) for r in records] if taint else None

    def outputs(self) -> list[Any]:
        if self.values is not None:
            return self.values
        decoded: list[Any] = _decode(self.blob)
        return decoded


class SourceStore:
    """SourceIndex's interface (`add_input`, `add_output`, `ask_sink`, `ask_grounded`,
    `resolve`), with outputs given in ascending position order, and `add_outputs` /
    `ask_sinks` for many at once. `screen` holds the options' markers. Outputs and sink
    questions carry a step id and a tool name: `source` and `sink_labels` give them."""

    def __init__(self, options: DataflowOptions, screen: Screen) -> None:
        self.options = options
        self._screen = screen
        self._windows: list[_Window] = []
        self._pending: list[Record] = []
        self._inputs: list[str] = []
        self._sinks: list[SinkQuestion] = []
        self._grounded: list[tuple[int, str, Any]] = []
        self._globs = tuple(fold(g) for g in options.trusted_values)

    def add_input(self, text: str) -> None:
        self._inputs.append(text)

    def add_output(
        self, position: int, output: Any, untrusted: bool, step_id: str = "", tool: str = ""
    ) -> None:
        self.add_outputs([(position, output, untrusted, step_id, tool)])

    def add_outputs(self, records: list[Record]) -> None:
        """Many `add_output`, as records."""
        self._pending += records
        if len(self._pending) >= WINDOW:
            self._flush(len(self._pending) // WINDOW * WINDOW)

    def ask_sink(
        self,
        position: int,
        arguments: Mapping[str, Any] | None,
        checked: Collection[str] | None,
        step_id: str = "",
        tool: str = "",
    ) -> None:
        self._sinks.append((position, arguments or {}, checked, step_id, tool))

    def ask_sinks(self, asked: list[SinkQuestion]) -> None:
        """Many `ask_sink`; arguments may not be None."""
        self._sinks += asked

    def ask_grounded(self, position: int, name: str, value: Any) -> None:
        self._grounded.append((position, name, value))

    def source(self, position: int) -> tuple[str, str]:
        """(step id, tool) of the output added at `position`, a taint source."""
        self._flush(len(self._pending))
        starts = [w.positions[0] for w in self._windows]
        window = self._windows[bisect_right(starts, position) - 1]
        assert window.labels is not None
        return window.labels[bisect_left(window.positions, position)]

    def _flush(self, count: int) -> None:
        """Make windows of the first `count` pending outputs."""
        marked_only = self.options.untrusted_if is not None
        pending = self._pending
        for start in range(0, count, WINDOW):
            records = pending[start : min(count, start + WINDOW)]
            self._windows.append(_Window(records, self._screen, marked_only))
        del pending[:count]

    def _first_taint(self) -> int:
        """No output before this position can hold taint (a lower bound)."""
        marked = self.options.untrusted_if is not None
        for window in self._windows:
            if not marked:
                if any(window.untrusted):
                    return window.positions[window.untrusted.index(1)]
            elif window.screen is None or window.screen.marked:
                return window.positions[0]
        return _NEVER

    def _wanted(self) -> dict[str, int]:
        """Each literal a window must hold to matter, with the last position asking it."""
        wanted: dict[str, int] = {}
        first_taint = self._first_taint()
        minimum = self.options.min_value_length
        for position, arguments, checked, _, _ in self._sinks:
            if position <= first_taint:
                continue
            for name, value in arguments.items():
                if checked is None or name in checked:
                    for unit in value_units(value, minimum):
                        if not any(fnmatchcase(unit.text, g) for g in self._globs):
                            _want(wanted, unit.text, unit.number, position)
        for position, _, value in self._grounded:
            for unit in grounded_leaves(value):
                _want(wanted, unit.text, unit.number, position)
        return wanted

    def _needed(self) -> list[_Window]:
        """The windows that may hold a wanted literal before a position asking it."""
        wanted = self._wanted()
        if not wanted:
            return []
        literals = sorted(wanted)
        last = max(wanted.values())
        search = LiteralSearch(literals, case_sensitive=False, batch=_BATCH)
        needed = []
        for window in self._windows:
            start = window.positions[0]
            if start >= last:
                break
            screen = window.screen
            plain = screen is not None and screen.plain
            if not plain or any(wanted[literals[i]] > start for i in search.occurring(window.blob)):
                needed.append(window)
        return needed

    def answers(self) -> tuple[list[tuple[int, SinkResult]], tuple[GroundedResult, ...]]:
        """The answers SourceIndex gives, the sinks only where a unit is tainted: (index
        of the sink question in asking order, its result), and every grounded answer."""
        self._flush(len(self._pending))
        index = SourceIndex(self.options)
        for text in self._inputs:
            index.add_input(text)
        for window in self._needed():
            for position, untrusted, output in zip(
                window.positions, window.untrusted, window.outputs(), strict=True
            ):
                index.add_output(position, output, bool(untrusted))
        # A sink asked before any output that may hold taint has no tainted unit: only
        # the others go to the index.
        first_taint = self._first_taint()
        asked = [k for k, sink in enumerate(self._sinks) if sink[0] > first_taint]
        for k in asked:
            position, arguments, checked, _, _ = self._sinks[k]
            index.ask_sink(position, arguments, checked)
        for position, name, value in self._grounded:
            index.ask_grounded(position, name, value)
        found = index.resolve()
        tainted = [
            (k, result) for k, result in zip(asked, found.sinks, strict=True) if result.tainted
        ]
        return tainted, found.grounded

    def sink_count(self) -> int:
        return len(self._sinks)

    def resolve(self) -> Resolution:
        """The answers SourceIndex gives for every source and question added so far."""
        tainted, grounded = self.answers()
        sinks = [SinkResult(sink[0], ()) for sink in self._sinks]
        for k, result in tainted:
            sinks[k] = result
        return Resolution(tuple(sinks), grounded)

    def sink_label(self, k: int) -> tuple[str, str, Mapping[str, Any]]:
        """(step id, tool, arguments) of the k-th sink question."""
        _, arguments, _, step_id, tool = self._sinks[k]
        return step_id, tool, arguments


def _want(wanted: dict[str, int], text: str, number: int | float | None, position: int) -> None:
    # A number occurs as a JSON number or a numeral equal by value: either way its
    # integer digits are written out (a plain window has no exponent form).
    key = text if number is None else str(int(abs(number)))
    if wanted.get(key, -1) < position:
        wanted[key] = position
