"""The HTML report (`--html-out`): a self-contained page to read a run trace by trace.

`HtmlReportWriter` / `HtmlCompareWriter` stream it (`run_fragment` / `compare_fragment`
render one trace's part elsewhere, e.g. in a worker); `render_run_html` and
`render_compare_html` render a whole run (the same bytes). See docs/html-report.md.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...compare.model import Comparison
from ...models.report import RunReport
from ..base import RenderOptions
from .encode import EmbedLimits
from .fragments import TraceFragment, TraceInput, compare_fragment, run_fragment
from .sections import (
    HtmlTable,
    compare_tables,
    run_tables,
    task_change_sections,
    task_sections,
)
from .writer import HtmlCompareWriter, HtmlReportWriter


def render_run_html(
    run: RunReport,
    traces: Iterable[TraceInput] | None = None,
    options: RenderOptions | None = None,
    *,
    limits: EmbedLimits | None = None,
    sections: Sequence[HtmlTable] = (),
) -> str:
    """The page of a whole run; `traces` pairs with `run.reports` in order (None: no
    trace bodies, so the page shows findings without a timeline)."""
    out = io.StringIO()
    writer = HtmlReportWriter(out, run.policy_id, options, limits)
    bodies = iter(traces) if traces is not None else None
    for report in run.reports:
        writer.add(report, next(bodies, None) if bodies is not None else None)
    writer.finish(run.summary, run.input_errors, (*run_tables(run.sections), *sections))
    return out.getvalue()


def render_compare_html(
    comparison: Comparison,
    traces: Mapping[str, TraceInput] | None = None,
    options: RenderOptions | None = None,
    *,
    limits: EmbedLimits | None = None,
    sections: Sequence[HtmlTable] = (),
) -> str:
    """The page of a comparison; `traces` maps trace_id to the candidate's trace."""
    out = io.StringIO()
    writer = HtmlCompareWriter(out, options, limits)
    for item in comparison.traces:
        writer.add(item, (traces or {}).get(item.trace_id))
    writer.finish(
        comparison.gate,
        comparison.baseline,
        comparison.candidate,
        comparison.summary_dict(),
        (*compare_tables(comparison), *sections),
    )
    return out.getvalue()


def render_run(report: Any, options: RenderOptions) -> str:
    """The page of a run from its report alone (no trace bodies: no timelines)."""
    return render_run_html(report, None, options)


def render_compare(comparison: Any, options: RenderOptions) -> str:
    """The page of a comparison from the comparison alone (no trace bodies)."""
    return render_compare_html(comparison, None, options)


__all__ = [
    "EmbedLimits",
    "HtmlCompareWriter",
    "HtmlReportWriter",
    "HtmlTable",
    "TraceFragment",
    "TraceInput",
    "compare_fragment",
    "compare_tables",
    "render_compare",
    "render_compare_html",
    "render_run",
    "render_run_html",
    "run_fragment",
    "run_tables",
    "task_change_sections",
    "task_sections",
]
