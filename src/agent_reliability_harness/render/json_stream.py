"""The JSON report in pieces, byte-identical to json_.render_run, written as results arrive.

`report_fragment` lays out one report exactly as json.dumps(indent=2) does inside the run."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from json.encoder import encode_basestring
from typing import Any

from ..models.report import Finding, InputFailure, Summary, TraceReport

_ELEMENT_INDENT = "    "  # elements of the top-level "reports" / "input_errors" arrays


def _float(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def _value(value: Any, pad: str) -> str:
    """A JSON value at indentation `pad`, as json.dumps(indent=2) nests it."""
    if isinstance(value, str):
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        inner = pad + "  "
        return "[\n" + ",\n".join(inner + _value(item, inner) for item in value) + "\n" + pad + "]"
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        if not value:
            return "{}"
        inner = pad + "  "
        return (
            "{\n"
            + ",\n".join(
                f"{inner}{encode_basestring(k)}: {_value(v, inner)}" for k, v in value.items()
            )
            + "\n"
            + pad
            + "}"
        )
    # Anything unusual (non-string keys, foreign types): the encoder itself, re-indented.
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + pad)


def _scalar(value: Any, pad: str) -> str:
    """`_value` with the common leaf types first (exact types; anything else goes there)."""
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if value is None:
        return "null"
    if kind is float:
        return _float(value)
    if kind is int:
        return int.__repr__(value)
    return _value(value, pad)


# The fixed layout of report_fragment: what json.dumps(indent=2) gives for
# TraceReport.to_dict() inside the "reports" array (tests hold the two equal).
_FIELD = "\n      "
_FINDING = "\n          "


def report_fragment(report: TraceReport) -> str:
    """One trace report as an element of the "reports" array (indented, no comma);
    `_value(report.to_dict(), ...)` laid out directly, field by field."""
    pad = "      "
    parts = [
        "    {",
        _FIELD,
        '"trace_id": ',
        _scalar(report.trace_id, pad),
        ",",
        _FIELD,
        '"agent_name": ',
        _scalar(report.agent_name, pad),
        ",",
        _FIELD,
        '"workflow": ',
        _scalar(report.workflow, pad),
        ",",
        _FIELD,
        '"policy_id": ',
        _scalar(report.policy_id, pad),
        ",",
        _FIELD,
        '"score": ',
        _scalar(report.score, pad),
        ",",
        _FIELD,
        '"passed": ',
        "true" if report.passed else "false",
        ",",
        _FIELD,
        '"total_latency_ms": ',
        _scalar(report.total_latency_ms, pad),
        ",",
        _FIELD,
        '"total_cost_usd": ',
        _scalar(report.total_cost_usd, pad),
        ",",
        _FIELD,
        '"total_tokens": ',
        _scalar(report.total_tokens, pad),
        ",",
        _FIELD,
        '"citation_coverage": ',
        _scalar(report.citation_coverage, pad),
        ",",
        _FIELD,
        '"source_path": ',
        _scalar(report.source_path, pad),
        ",",
        _FIELD,
        '"category_scores": ',
    ]
    scores = report.category_scores
    if scores:
        parts.append("{")
        parts.append(
            ",".join(
                f"\n        {encode_basestring(k)}: {_scalar(v, '        ')}"
                for k, v in scores.items()
            )
        )
        parts.append("\n      },")
    else:
        parts.append("{},")
    parts.append(_FIELD)
    parts.append('"findings": ')
    if report.findings:
        parts.append("[")
        parts.append(",".join(_finding(f) for f in report.findings))
        parts.append("\n      ]\n    }")
    else:
        parts.append("[]\n    }")
    return "".join(parts)


def _finding(finding: Finding) -> str:
    pad = "          "
    parts = [
        "\n        {",
        _FINDING,
        '"rule_id": ',
        _scalar(finding.rule_id, pad),
        ",",
        _FINDING,
        '"severity": ',
        _scalar(finding.severity.value, pad),
        ",",
        _FINDING,
        '"category": ',
        _scalar(finding.category, pad),
        ",",
        _FINDING,
        '"message": ',
        _scalar(finding.message, pad),
        ",",
        _FINDING,
        '"step_id": ',
        _scalar(finding.step_id, pad),
    ]
    for key, value in (
        ('"expected": ', finding.expected),
        ('"observed": ', finding.observed),
        ('"remediation": ', finding.remediation),
    ):
        if value is not None:
            parts.append(",")
            parts.append(_FINDING)
            parts.append(key)
            parts.append(_scalar(value, pad))
    parts.append("\n        }")
    return "".join(parts)


def failure_fragment(failure: InputFailure) -> str:
    """One input failure as an element of the "input_errors" array."""
    return _ELEMENT_INDENT + _value(failure.to_dict(), _ELEMENT_INDENT)


def head(policy_id: str, summary: Summary) -> str:
    """Everything before the first report: schema version, policy and summary."""
    text = json.dumps(
        {"schema_version": "1", "policy_id": policy_id, "summary": summary.to_dict()},
        indent=2,
        ensure_ascii=False,
    )
    return text[: -len("\n}")] + ",\n"


def array_open(key: str, empty: bool) -> str:
    """Text before the elements of a top-level array ("reports" or "input_errors")."""
    return f'  "{key}": [' + ("" if empty else "\n")


def array_close(empty: bool, last: bool) -> str:
    """Text after the elements; `last` closes the whole report."""
    return ("]" if empty else "\n  ]") + ("\n}\n" if last else ",\n")


def assemble(
    policy_id: str, summary: Summary, reports: Iterable[str], failures: Iterable[str]
) -> Iterator[str]:
    """The whole JSON report as text pieces, from element fragments in input order."""
    yield head(policy_id, summary)
    for key, fragments, last in (("reports", reports, False), ("input_errors", failures, True)):
        body = ",\n".join(fragments)
        yield array_open(key, not body)
        yield body
        yield array_close(not body, last)
