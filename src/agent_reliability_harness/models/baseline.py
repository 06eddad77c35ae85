"""Reading a JSON report (ours, an older v0.1 one, or another tool's) back into a RunReport.

Lenient about what compare does not need, precise about what it does: every
error names the field as a path such as `reports[3].findings[0].severity`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import msgspec

from ..errors import InputError, ReportError
from ..io import decode_bytes, decode_json, display_path
from ..reading import read_input
from .common import (
    SUPPORTED_MAJOR,
    Severity,
    finite_non_negative,
    is_number,
    located,
    show,
    string_problem,
)
from .common import type_name as _type_name
from .policy_warnings import POLICY_WARNINGS
from .report import Finding, RunReport, Section, TraceReport

_SEVERITIES = {s.value: s for s in Severity}
_SEVERITY_CHOICES = ", ".join(s.value for s in Severity)
_READABLE_MAJORS = ("0", SUPPORTED_MAJOR)


def _show(value: object) -> str:
    return show(value, 60)


def _bad(where: str, what: str) -> ReportError:
    return ReportError(located(where, what))


def _field(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _required(data: dict[str, Any], key: str, where: str) -> Any:
    if key not in data or data[key] is None:
        raise _bad(f"{where}.{key}", "is required")
    return data[key]


def _req_str(data: dict[str, Any], key: str, where: str) -> str:
    value = _required(data, key, where)
    problem = string_problem(value, required=True)
    if problem is not None:
        raise _bad(f"{where}.{key}", problem)
    return str(value)


def _opt_str(data: dict[str, Any], key: str, where: str, default: str | None) -> str | None:
    value = data.get(key)
    if value is None:
        return default
    problem = string_problem(value)
    if problem is not None:
        raise _bad(_field(where, key), problem)
    return str(value)


def _total(value: Any) -> bool:
    """A run total as ARH writes it: an integer >= 0 of any size (exact sums may exceed
    the float range and 2**63), or a finite float >= 0. What ARH writes, it reads back."""
    if isinstance(value, bool) or not is_number(value):
        return False
    if isinstance(value, float):
        return math.isfinite(value) and value >= 0
    return bool(value >= 0)


def _opt_amount(data: dict[str, Any], key: str, where: str) -> float | int | None:
    value = data.get(key)
    if value is None:
        return None
    if not _total(value):
        raise _bad(f"{where}.{key}", f"must be a finite number >= 0 or null (got {_show(value)})")
    assert isinstance(value, int | float)
    return value


def _score(data: dict[str, Any], where: str) -> float:
    value = _required(data, "score", where)
    try:
        number = finite_non_negative(value)
    except ValueError:
        number = -1
    if number < 0 or number > 100:
        raise _bad(f"{where}.score", f"must be a number between 0 and 100 (got {_show(value)})")
    return float(number)


def _opt_tokens(data: dict[str, Any], where: str) -> int | None:
    value = data.get("total_tokens")
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer() and _total(value):
        value = int(value)
    if not isinstance(value, int) or not _total(value):
        raise _bad(f"{where}.total_tokens", f"must be an integer >= 0 or null (got {_show(value)})")
    return value


def _opt_outcome(data: dict[str, Any], where: str) -> dict[str, Any] | None:
    value = data.get("outcome")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _bad(f"{where}.outcome", f"must be an object or null (got {_type_name(value)})")
    return value


def _coverage(data: dict[str, Any], where: str) -> float | None:
    value = data.get("citation_coverage")
    if value is None:
        return None
    try:
        number = finite_non_negative(value)
    except ValueError:
        number = -1
    if number < 0 or number > 1:
        raise _bad(
            f"{where}.citation_coverage",
            f"must be a number between 0 and 1 or null (got {_show(value)})",
        )
    return float(number)


def _rule_id(data: dict[str, Any], where: str) -> str | None:
    """v0.1 reports have no rule_id; null and "" mean the same (matched in compare's 2nd pass)."""
    value = data.get("rule_id")
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise _bad(f"{where}.rule_id", f"must be a string or null (got {_type_name(value)})")
    return value


def parse_finding(data: Any, where: str) -> Finding:
    """One finding object; `where` is its path (e.g. `reports[0].findings[2]`)."""
    if not isinstance(data, dict):
        raise _bad(where, f"must be an object (got {_type_name(data)})")
    raw_severity = _required(data, "severity", where)
    severity = _SEVERITIES.get(raw_severity) if isinstance(raw_severity, str) else None
    if severity is None:
        raise _bad(
            f"{where}.severity", f"must be one of {_SEVERITY_CHOICES} (got {_show(raw_severity)})"
        )
    category = _req_str(data, "category", where)
    if not category:
        raise _bad(f"{where}.category", "must not be empty")
    return Finding(
        rule_id=_rule_id(data, where),
        severity=severity,
        category=category,
        message=_opt_str(data, "message", where, "") or "",
        step_id=_opt_str(data, "step_id", where, None),
        expected=data.get("expected"),
        observed=data.get("observed"),
        remediation=_opt_str(data, "remediation", where, None),
        source_step_id=_opt_str(data, "source_step_id", where, None),
        agent=_opt_str(data, "agent", where, None),
    )


def parse_trace_report(data: Any, where: str, policy_id: str) -> TraceReport:
    """One entry of `reports`; `policy_id` is the report-level default for a missing one."""
    if not isinstance(data, dict):
        raise _bad(where, f"must be an object (got {_type_name(data)})")
    trace_id = _req_str(data, "trace_id", where)
    passed = _required(data, "passed", where)
    if not isinstance(passed, bool):
        raise _bad(f"{where}.passed", f"must be a boolean (got {_type_name(passed)})")
    score = _score(data, where)
    raw_findings = _required(data, "findings", where)
    if not isinstance(raw_findings, list):
        raise _bad(f"{where}.findings", f"must be an array (got {_type_name(raw_findings)})")
    findings = tuple(parse_finding(f, f"{where}.findings[{i}]") for i, f in enumerate(raw_findings))
    return TraceReport(
        trace_id=trace_id,
        agent_name=_opt_str(data, "agent_name", where, "") or "",
        workflow=_opt_str(data, "workflow", where, "") or "",
        policy_id=_opt_str(data, "policy_id", where, policy_id) or "",
        score=score,
        passed=passed,
        total_latency_ms=_opt_amount(data, "total_latency_ms", where),
        total_cost_usd=_opt_amount(data, "total_cost_usd", where),
        total_tokens=_opt_tokens(data, where),
        citation_coverage=_coverage(data, where),
        source_path=_opt_str(data, "source_path", where, None),
        findings=findings,
        task_id=_opt_str(data, "task_id", where, None),
        outcome=_opt_outcome(data, where),
    )


def _check_version(value: Any) -> None:
    """Missing, "1.x", or "0.x" (pre-1.0 reports are a subset of v1); a number is read as text."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _bad("schema_version", f"must be a string (got {_type_name(value)})")
    major = str(value).split(".", 1)[0]
    if major not in _READABLE_MAJORS:
        raise _bad(
            "schema_version",
            f"report declares unsupported schema_version {_show(str(value))} "
            f"(this build reads major versions 0 and {SUPPORTED_MAJOR})",
        )


def parse_report(data: Any) -> RunReport:
    """A decoded JSON report -> RunReport; ReportError (with the field's path) if malformed.

    Required: an object with a `reports` array; per report `trace_id` (string,
    unique per policy_id), `passed` (boolean), `score` (0..100) and `findings` (array); per
    finding `severity` and `category`. Everything else is optional, and keys
    this build does not know are ignored. The summary is recomputed.
    """
    if not isinstance(data, dict):
        raise ReportError(f"a report must be a JSON object (got {_type_name(data)})")
    _check_version(data.get("schema_version"))
    policy_id = _opt_str(data, "policy_id", "", "") or ""
    raw = data.get("reports")
    if raw is None:
        raise ReportError("reports: is required (an array of per-trace reports)")
    if not isinstance(raw, list):
        raise ReportError(f"reports: must be an array (got {_type_name(raw)})")
    reports: list[TraceReport] = []
    # One trace_id judged by two policies is two traces (compare matches them per policy);
    # judged twice by one policy, it is a duplicate.
    first_at: dict[tuple[str, str], int] = {}
    for index, item in enumerate(raw):
        where = f"reports[{index}]"
        report = parse_trace_report(item, where, policy_id)
        key = (report.trace_id, report.policy_id)
        if key in first_at:
            raise _bad(
                f"{where}.trace_id",
                f"duplicate trace_id {_show(report.trace_id)} (first at reports[{first_at[key]}])",
            )
        first_at[key] = index
        reports.append(report)
    if not policy_id:
        policy_id = next((r.policy_id for r in reports if r.policy_id), "")
    built = RunReport.build(policy_id, tuple(reports))
    warnings = _policy_warnings(data.get(POLICY_WARNINGS))
    sections = tuple(s for s in (warnings, _coverage_section(data.get("coverage"))) if s)
    return msgspec.structs.replace(built, sections=sections) if sections else built


def _coverage_section(value: Any) -> Section | None:
    """The report's `coverage` section (--coverage, policy v1.2 section 6), kept for
    compare, which reads each `tools` row's `tool` and `calls`."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _bad("coverage", f"must be an object (got {_type_name(value)})")
    tools = value.get("tools", [])
    if not isinstance(tools, list):
        raise _bad("coverage.tools", f"must be an array (got {_type_name(tools)})")
    for index, row in enumerate(tools):
        where = f"coverage.tools[{index}]"
        if not isinstance(row, dict):
            raise _bad(where, f"must be an object (got {_type_name(row)})")
        if not isinstance(row.get("tool"), str):
            raise _bad(f"{where}.tool", "must be a string")
        calls = row.get("calls")
        if not isinstance(calls, int) or isinstance(calls, bool) or calls < 0:
            raise _bad(f"{where}.calls", "must be an integer >= 0")
    return Section("coverage", value)


def _policy_warnings(value: Any) -> Section | None:
    """The report's `policy_warnings` (models/policy_warnings.py), kept so that a compare
    of two reports still shows the candidate's; None when the report has none."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise _bad(POLICY_WARNINGS, f"must be an array (got {_type_name(value)})")
    entries: list[dict[str, Any]] = []
    for index, item in enumerate(value):
        where = f"{POLICY_WARNINGS}[{index}]"
        if not isinstance(item, dict):
            raise _bad(where, f"must be an object (got {_type_name(item)})")
        ids = item.get("policy_ids", [])
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise _bad(f"{where}.policy_ids", "must be an array of strings")
        entries.append(
            {
                "source": _opt_str(item, "source", where, None),
                "path": _opt_str(item, "path", where, "") or "",
                "message": _opt_str(item, "message", where, "") or "",
                "policy_ids": list(ids),
            }
        )
    return Section(POLICY_WARNINGS, entries) if entries else None


def read_report(data: bytes, name: str) -> RunReport:
    """Decode and parse report bytes; every error is prefixed with `name` (the file)."""
    try:
        return parse_report(decode_json(decode_bytes(data)))
    except InputError as exc:
        raise ReportError(f"{name}: {exc}") from None


def load_report(path: str | Path) -> RunReport:
    """Read a JSON report file (a baseline or a candidate); ReportError naming file and field."""
    name = display_path(path)
    try:
        data = read_input(path)
    except InputError as exc:
        raise ReportError(f"{name}: {exc}") from None
    return read_report(data, name)


__all__ = ["load_report", "parse_finding", "parse_report", "parse_trace_report", "read_report"]
