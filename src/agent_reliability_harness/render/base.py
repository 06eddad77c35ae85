"""The renderer declaration: a pure function from a report model to text."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class RenderOptions:
    """What a renderer may know besides the report: never a clock or the environment."""

    tool_version: str = "0"
    color: bool = False


@dataclass(frozen=True, slots=True)
class Renderer:
    """`kind` is "run" (a RunReport) or "compare" (a Comparison)."""

    name: str
    suffix: str
    kind: str
    description: str
    render: Callable[[Any, RenderOptions], str]
    # True when the output points at lines in the trace files (TraceReport.step_lines).
    needs_positions: bool = False
    # True when the output shows the traces themselves (the HTML trajectory view):
    # `render` gives it from the report alone, without them; a caller that has the
    # traces streams (TraceReport, Trace) pairs through the format's writer.
    needs_traces: bool = False
