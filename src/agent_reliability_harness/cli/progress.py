"""A progress line on stderr: only on a terminal, only once a run lasts more than a moment.
It is a sink of the run (fed each Partial), so it never holds anything."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from ..pipeline import Needs, Partial, RunResult

DELAY_S = 0.75  # quick runs never show a bar
REFRESH_S = 0.1
_WIDTH = 24


class Progress:
    """Redraws one status line in place; `clear()` before anything else is printed."""

    needs = Needs()

    def __init__(
        self,
        stream: TextIO,
        total_bytes: int | None,
        enabled: bool,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.total = total_bytes or None
        self.enabled = enabled
        self.clock = clock
        self.start = clock()
        self.next_draw = self.start + DELAY_S
        self.traces = 0
        self.done_bytes = 0
        self.shown = False

    @classmethod
    def for_stream(cls, stream: TextIO, paths: list[str], wanted: bool) -> Progress:
        """A bar on `stream` when it is a terminal and output is wanted (sized by the
        inputs' bytes when they can be counted up front)."""
        isatty = getattr(stream, "isatty", None)
        shown = wanted and bool(isatty and isatty())
        if not shown:
            return cls(stream, None, False)
        from ..adapters import walk_suffixes  # noqa: PLC0415
        from ..inputs import total_bytes  # noqa: PLC0415

        return cls(stream, total_bytes(paths, walk_suffixes()), True)

    def update(self, traces: int, size: int) -> None:
        self.traces += traces
        self.done_bytes += size
        if not self.enabled:
            return
        now = self.clock()
        if now >= self.next_draw:
            self.next_draw = now + REFRESH_S
            self._draw(now)

    def line(self, now: float) -> str:
        elapsed = max(now - self.start, 1e-9)
        rate = f"{self.traces / elapsed:,.0f} traces/s, {self.done_bytes / elapsed / 1e6:.1f} MB/s"
        if self.total:
            share = min(1.0, self.done_bytes / self.total)
            filled = int(share * _WIDTH)
            bar = "#" * filled + "-" * (_WIDTH - filled)
            return f"[{bar}] {share:4.0%}  {self.traces:,} traces  {rate}"
        return f"{self.traces:,} traces  {rate}"

    def _draw(self, now: float) -> None:
        self.stream.write("\r\033[K" + self.line(now))
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False

    def add(self, partial: Partial) -> None:
        self.update(partial.traces, partial.size)

    def finish(self, result: RunResult) -> bool:
        self.clear()
        return True
