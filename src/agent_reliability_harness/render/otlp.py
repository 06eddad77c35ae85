"""The verdicts as OTLP/JSON logs (`--otlp-out`, policy v1.2 section 6): an
ExportLogsServiceRequest in the protobuf JSON mapping, with one `gen_ai.evaluation.result`
event per trace (`gen_ai.evaluation.name` = `arh`, `gen_ai.evaluation.score.value` = the
score, `gen_ai.evaluation.score.label` = `pass`/`fail`) and one per finding (name = the
rule ID, label = the severity). An event carries the source's trace id (`traceId`, hex)
when the trace came from an OpenTelemetry, OpenInference, Langfuse or LangSmith/LangChain
source whose trace id is a 128-bit id, so that a backend attaches it to that trace.

Deterministic: no clock is read (the time fields are left at 0, i.e. absent); records come
in input order, a trace's findings in report order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from ..models.report import Finding, RunReport, TraceReport
from .base import RenderOptions

EVENT = "gen_ai.evaluation.result"
EVALUATOR = "arh"
SCOPE = "agent_reliability_harness"
# The sources whose trace ids are the tracing backend's (adapters' `source` names).
TRACED_SOURCES = frozenset({"otel-genai", "openinference", "langfuse", "langchain"})
_HEX_ID = re.compile(r"[0-9a-f]{32}")
# OpenTelemetry severity numbers: INFO, WARN, ERROR.
_SEVERITY = {"info": 9, "warning": 13, "error": 17}


def source_trace_id(source: str | None, trace_id: str) -> str | None:
    """The 32-hex-digit trace id of a traced source (a UUID loses its dashes), else None."""
    if source not in TRACED_SOURCES:
        return None
    text = trace_id.strip().lower().removeprefix("0x").replace("-", "")
    if not _HEX_ID.fullmatch(text) or text == "0" * 32:
        return None
    return text


def _attr(key: str, value: str | float) -> dict[str, Any]:
    if isinstance(value, str):
        return {"key": key, "value": {"stringValue": value}}
    return {"key": key, "value": {"doubleValue": float(value)}}


def _record(
    attributes: list[dict[str, Any]], severity: str, trace_hex: str | None
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "severityNumber": _SEVERITY[severity],
        "severityText": severity.upper(),
        "eventName": EVENT,
        "attributes": attributes,
    }
    if trace_hex is not None:
        record["traceId"] = trace_hex
    return record


def _finding(report: TraceReport, finding: Finding, trace_hex: str | None) -> dict[str, Any]:
    severity = finding.severity.value
    attributes = [
        _attr("gen_ai.evaluation.name", finding.rule_id or "unnamed"),
        _attr("gen_ai.evaluation.score.label", severity),
        _attr("gen_ai.evaluation.explanation", finding.message),
        _attr("arh.trace_id", report.trace_id),
        _attr("arh.policy_id", report.policy_id),
        _attr("arh.category", finding.category),
    ]
    if finding.step_id is not None:
        attributes.append(_attr("arh.step_id", finding.step_id))
    if finding.agent is not None:  # policy v1.2: found by an agents entry
        attributes.append(_attr("arh.agent", finding.agent))
    return _record(attributes, severity, trace_hex)


def trace_records(report: TraceReport, source: str | None) -> list[dict[str, Any]]:
    """The events of one judged trace: its verdict, then one per finding."""
    trace_hex = source_trace_id(source, report.trace_id)
    verdict = _record(
        [
            _attr("gen_ai.evaluation.name", EVALUATOR),
            _attr("gen_ai.evaluation.score.value", report.score),
            _attr("gen_ai.evaluation.score.label", "pass" if report.passed else "fail"),
            _attr("arh.trace_id", report.trace_id),
            _attr("arh.policy_id", report.policy_id),
        ],
        "info" if report.passed else "error",
        trace_hex,
    )
    return [verdict, *(_finding(report, f, trace_hex) for f in report.findings)]


def records_text(report: TraceReport, source: str | None) -> str:
    """A trace's records as JSON texts joined by commas (a piece of the logRecords array)."""
    return ",".join(
        json.dumps(r, ensure_ascii=False, separators=(",", ":"))
        for r in trace_records(report, source)
    )


def document_pieces(pieces: Iterable[str], options: RenderOptions) -> Iterator[str]:
    """The request around the records' pieces (each a comma-joined run of records)."""
    head = {
        "resource": {"attributes": [_attr("service.name", "arh")]},
        "scopeLogs": [{"scope": {"name": SCOPE, "version": options.tool_version}}],
    }
    text = json.dumps({"resourceLogs": [head]}, ensure_ascii=False, separators=(",", ":"))
    yield text[: -len("}]}]}")] + ',"logRecords":['
    first = True
    for piece in pieces:
        if not piece:
            continue
        yield piece if first else "," + piece
        first = False
    yield "]}]}]}\n"


def render_run(report: RunReport, options: RenderOptions) -> str:
    """From a report alone (no traces: no source trace ids)."""
    return "".join(document_pieces((records_text(r, None) for r in report.reports), options))
