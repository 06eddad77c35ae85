"""The renderer declaration: a pure function from a report model to text, named in the
registry and imported only when a run asks for its format."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import msgspec

RenderFn = Callable[[Any, "RenderOptions"], str]

# What the console shows per trace (`--show`): every trace, the failing ones, or only
# the summary. The file formats always hold every trace.
SHOW_ALL = "all"
SHOW_FAILURES = "failures"
SHOW_SUMMARY = "summary"
SHOW_MODES = (SHOW_ALL, SHOW_FAILURES, SHOW_SUMMARY)


class RenderOptions(msgspec.Struct, frozen=True):
    """What a renderer may know besides the report: never a clock or the environment."""

    tool_version: str = "0"
    color: bool = False
    show: str = SHOW_ALL  # console renderers only (SHOW_MODES)


class Renderer(msgspec.Struct, frozen=True):
    """`kind` is "run" (a RunReport) or "compare" (a Comparison). `target` is the render
    function, or "module:function" in this package, imported on first use (a run
    imports only the formats it writes)."""

    name: str
    suffix: str
    kind: str
    description: str
    target: RenderFn | str
    # True when the output points at lines in the trace files (TraceReport.step_lines).
    needs_positions: bool = False
    # True when the output shows the traces themselves (the HTML trajectory view):
    # `render` gives it from the report alone, without them; a caller that has the
    # traces streams (TraceReport, Trace) pairs through the format's writer.
    needs_traces: bool = False

    def render(self, model: Any, options: RenderOptions) -> str:
        """The text of `model` in this format."""
        return self.function()(model, options)

    def function(self) -> RenderFn:
        """The render function (importing its module if need be)."""
        if not isinstance(self.target, str):
            return self.target
        module, name = self.target.split(":")
        fn: RenderFn = getattr(importlib.import_module(f"{__package__}.{module}"), name)
        return fn
