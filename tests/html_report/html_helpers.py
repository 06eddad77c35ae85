"""Build HTML reports from trace files, as the CLI's streaming sink will: one
(TraceReport, Trace) pair at a time through HtmlReportWriter."""

from __future__ import annotations

import io
from collections.abc import Sequence

from agent_reliability_harness.api import LoadedTrace, iter_traces, load_policy
from agent_reliability_harness.engine import Evaluator
from agent_reliability_harness.models.report import (
    InputFailure,
    RunReport,
    SummaryBuilder,
    TraceReport,
)
from agent_reliability_harness.models.trace import Trace
from agent_reliability_harness.render import RenderOptions
from agent_reliability_harness.render.html_report import EmbedLimits, HtmlReportWriter

OPTIONS = RenderOptions(tool_version="0.0.0-test")


def evaluated(
    policy_path: str, paths: Sequence[str]
) -> tuple[str, list[tuple[TraceReport, Trace]], list[InputFailure]]:
    """(policy_id, (report, trace) pairs in input order, unreadable inputs)."""
    policy = load_policy(policy_path)
    evaluator = Evaluator(policy)
    pairs: list[tuple[TraceReport, Trace]] = []
    failures: list[InputFailure] = []
    for item in iter_traces(paths):
        if isinstance(item, LoadedTrace):
            report = evaluator.evaluate(
                item.trace, item.source_path, item.source_line, item.step_lines
            )
            pairs.append((report, item.trace))
        else:
            failures.append(item)
    return policy.policy_id, pairs, failures


def run_of(
    policy_id: str, pairs: Sequence[tuple[TraceReport, Trace]], failures: Sequence[InputFailure]
) -> RunReport:
    return RunReport.build(policy_id, tuple(r for r, _ in pairs), tuple(failures))


def streamed_html(policy_path: str, paths: Sequence[str], limits: EmbedLimits | None = None) -> str:
    """The page written pair by pair, failures as they come, then the summary."""
    policy_id, pairs, failures = evaluated(policy_path, paths)
    out = io.StringIO()
    writer = HtmlReportWriter(out, policy_id, OPTIONS, limits)
    summary = SummaryBuilder()
    for report, trace in pairs:
        writer.add(report, trace)
        summary.add(report)
    for failure in failures:
        writer.add_failure(failure)
    writer.finish(summary.build())
    return out.getvalue()
