"""What the HTML report embeds: JSON made safe inside <script> and the compact trace body.

Trace text is untrusted. Everything taken from a trace leaves this module as JSON
in which `<`, `>`, `&`, U+2028/U+2029 and lone surrogates are \\u-escaped, so it can
neither close its <script type="application/json"> block nor break UTF-8 output.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ...models.common import Severity
from ...models.report import Finding, TraceReport
from ...models.trace import Step, Trace, parse_trace

_UNSAFE = re.compile("[<>&\u2028\u2029\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def script_json(value: Any) -> str:
    """Compact JSON text that is inert inside a <script type="application/json"> element.

    NaN and infinities cannot occur (the parsers refuse them), and JSON.parse would
    refuse them too, so they are an error here rather than a silently broken report.
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return _UNSAFE.sub(_escape, text)


# Steps are embedded as arrays in this field order (trailing nulls dropped); the page
# reads the order from the document, so it is stated once, here.
STEP_FIELDS = (
    "step_id",
    "type",
    "tool_name",
    "arguments",
    "output",
    "text",
    "latency_ms",
    "cost_usd",
    "input_tokens",
    "output_tokens",
    "status",
    "error",
    "citations",
    "requires_grounding",
    "metadata",
    # Trace v1.2: the agent that took the step and the step it ran under (the page
    # nests a step under its parent).
    "agent",
    "parent_step_id",
)
# "t"/"m": the step type in one letter; 10k traces of 20 steps save ~3 MB.
_TYPE_CODE = {"tool_call": "t", "model_response": "m"}


@dataclass(frozen=True, slots=True)
class EmbedLimits:
    """Bounds on what one trace adds to the report; past them, text is cut visibly.

    A string longer than `max_string_chars` keeps its head and gains a note with its
    full length; steps past `max_steps`, or past `max_trace_chars` of embedded JSON,
    are left out and counted. The JSON report and the trace files keep everything.
    """

    max_string_chars: int = 100_000
    max_steps: int = 10_000
    max_trace_chars: int = 10_000_000


def _cut_text(text: str, limit: int) -> str:
    return f"{text[:limit]}\u2026 [cut here: {len(text):,} characters in all]"


def _cut(value: Any, limit: int, counter: list[int]) -> Any:
    """`value` with every string over `limit` characters cut; counter[0] counts the cuts."""
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        counter[0] += 1
        return _cut_text(value, limit)
    if isinstance(value, dict):
        return {_cut(k, limit, counter): _cut(v, limit, counter) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_cut(item, limit, counter) for item in value]
    return value


def _step_row(step: Step) -> list[Any]:
    row: list[Any] = [
        step.step_id,
        _TYPE_CODE[step.type.value],
        step.tool_name,
        step.arguments,
        step.output,
        step.text,
        step.latency_ms,
        step.cost_usd,
        step.input_tokens,
        step.output_tokens,
        # `ok` is the default; only an error status is written.
        "error" if step.status.value == "error" else None,
        step.error,
        list(step.citations) or None,
        True if step.requires_grounding else None,
        step.metadata or None,
        step.agent,
        step.parent_step_id,
    ]
    while row and row[-1] is None:
        row.pop()
    return row


class StepFitter:
    """The embedded steps of a trace, fitted to the limits a chunk of steps at a time, so
    that a trace too big to hold (streamed) gets the same bounded timeline as one read
    whole: `trace_body` of the whole trace and `body` after every chunk are equal."""

    def __init__(self, limits: EmbedLimits) -> None:
        self.limits = limits
        self.texts: list[str] = []
        self.used = 0
        self.cuts = [0]
        self.omitted = 0

    def add(self, steps: Iterable[Step]) -> None:
        """The next steps of the trace, in order."""
        for step in steps:
            if self.omitted:
                self.omitted += 1
                continue
            self._fit(_step_row(step))

    def _fit(self, row: list[Any]) -> None:
        limits = self.limits
        text = script_json(row)
        if len(text) > limits.max_string_chars:
            text = script_json(_cut(row, limits.max_string_chars, self.cuts))
        if len(self.texts) >= limits.max_steps or self.used + len(text) > limits.max_trace_chars:
            self.omitted = 1  # this step and every later one
            return
        self.texts.append(text)
        self.used += len(text) + 1

    def body(self, trace: Trace) -> str:
        """The embedded trace: `trace`'s labels (its steps are those added) and the steps."""
        return _assemble(
            trace, self.limits, "[" + ",".join(self.texts) + "]", self.omitted, self.cuts[0]
        )


def trace_body(trace: Trace | Mapping[str, Any], limits: EmbedLimits) -> str:
    """The trace as embedded: labels the index already holds are left out."""
    if not isinstance(trace, Trace):
        trace = parse_trace(trace)
    rows = [_step_row(step) for step in trace.steps]
    whole = script_json(rows)
    # Within every limit, the whole array is what the fitter would join step by step
    # (compact JSON of a list is its elements' joined by ","), in one encoder call.
    if len(whole) <= min(limits.max_string_chars, limits.max_trace_chars) and (
        len(rows) <= limits.max_steps
    ):
        return _assemble(trace, limits, whole, 0, 0)
    fitter = StepFitter(limits)
    fitter.add(trace.steps)
    return fitter.body(trace)


def _assemble(
    trace: Trace, limits: EmbedLimits, steps_text: str, omitted: int, step_cuts: int
) -> str:
    """The body: the trace's labels (cut to the limits), what was left out, the steps."""
    head: dict[str, Any] = {}
    if trace.schema_version != "1":
        head["schema_version"] = trace.schema_version
    if trace.source is not None:
        head["source"] = trace.source
    if trace.inputs:
        head["inputs"] = [[item.role, item.text] for item in trace.inputs]
    if trace.outcome is not None:
        head["outcome"] = trace.outcome
    if trace.metadata:
        head["metadata"] = trace.metadata
    cuts = [0]
    if head:
        head = _cut(head, limits.max_string_chars, cuts)
    if omitted:
        head["steps_omitted"] = omitted
    if cuts[0] + step_cuts:
        head["strings_cut"] = cuts[0] + step_cuts
    prefix = script_json(head)[:-1]
    return prefix + ("," if head else "") + '"steps":' + steps_text + "}"


def finding_value(finding: Finding) -> dict[str, Any]:
    """A finding as the page shows it; `step_index` pins it to its step."""
    out = finding.to_dict()
    if finding.step_index is not None:
        out["step_index"] = finding.step_index
    if finding.source_step_index is not None:
        out["source_step_index"] = finding.source_step_index
    return out


def severity_counts(findings: Iterable[Finding]) -> list[int]:
    """[errors, warnings, infos]."""
    counts = [0, 0, 0]
    for finding in findings:
        counts[finding.severity.rank] += 1
    return counts


def report_index(report: TraceReport, task_id: str | None) -> dict[str, Any]:
    """The compact row that drives the trace list, its filters and the quick search."""
    return {
        "id": report.trace_id,
        "pass": report.passed,
        "score": report.score,
        "policy": report.policy_id,
        "task": task_id,
        "agent": report.agent_name,
        "workflow": report.workflow,
        "source": report.source_path,
        "sev": severity_counts(report.findings),
        "rules": sorted({f.rule_id for f in report.findings if f.rule_id}),
        "cats": sorted({f.category for f in report.findings}),
    }


def report_detail(report: TraceReport) -> dict[str, Any]:
    """What the trace view adds to its index row: totals, category scores, findings."""
    return {
        "total_latency_ms": report.total_latency_ms,
        "total_cost_usd": report.total_cost_usd,
        "total_tokens": report.total_tokens,
        "citation_coverage": report.citation_coverage,
        "category_scores": dict(report.category_scores),
        "findings": [finding_value(f) for f in report.findings],
    }


def task_of(report: TraceReport, trace: Trace | Mapping[str, Any] | None) -> str | None:
    """The task a run attempts: the trace's task_id, or the report's once it carries one."""
    if isinstance(trace, Trace):
        return trace.task_id
    if isinstance(trace, Mapping):
        value = trace.get("task_id")
        return value if isinstance(value, str) else None
    value = getattr(report, "task_id", None)
    return value if isinstance(value, str) else None


SEVERITIES = tuple(s.value for s in Severity)
