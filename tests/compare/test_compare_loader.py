"""The report loader: what a baseline must hold, what it may omit, and the error for each flaw."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cmp_helpers import DATA, finding, report, trace

from agent_reliability_harness import ReportError
from agent_reliability_harness.api import load_policy, validate_paths
from agent_reliability_harness.models.baseline import load_report, parse_report, read_report
from agent_reliability_harness.models.common import Severity


def test_our_own_report_round_trips() -> None:
    run = validate_paths([str(DATA / "baseline")], load_policy(str(DATA / "policy.json")))
    loaded = parse_report(json.loads(json.dumps(run.to_dict())))
    assert loaded.policy_id == run.policy_id
    assert [r.trace_id for r in loaded.reports] == [r.trace_id for r in run.reports]
    for ours, back in zip(run.reports, loaded.reports, strict=True):
        assert back.passed == ours.passed
        assert back.score == ours.score
        assert back.total_latency_ms == ours.total_latency_ms
        assert back.total_cost_usd == ours.total_cost_usd
        assert [f.to_dict() for f in back.findings] == [f.to_dict() for f in ours.findings]
    assert loaded.summary.failed_traces == run.summary.failed_traces


def test_v01_report_without_rule_ids() -> None:
    data = {
        "summary": {"total_traces": 1, "passed_traces": 0, "failed_traces": 1, "average_score": 80},
        "reports": [
            {
                "trace_id": "t1",
                "agent_name": "a",
                "workflow": "w",
                "score": 80,
                "passed": False,
                "total_latency_ms": 10,
                "total_cost_usd": 0.1,
                "findings": [
                    {"severity": "error", "category": "budget", "message": "m", "step_id": None}
                ],
            }
        ],
    }
    run = parse_report(data)
    assert run.reports[0].findings[0].rule_id is None
    assert run.reports[0].score == 80.0
    assert run.reports[0].total_tokens is None


def test_foreign_report_with_extra_keys_and_few_optional_keys() -> None:
    data = {
        "tool": {"name": "other-harness", "version": "9.9"},
        "generated_at": "2026-01-01T00:00:00Z",
        "reports": [
            {
                "trace_id": "t1",
                "score": 100,
                "passed": True,
                "findings": [
                    {
                        "rule_id": "ARH-SCH-005",
                        "severity": "warning",
                        "category": "schema",
                        "fingerprint": "abc",
                        "links": ["x"],
                    }
                ],
                "duration_s": 1.5,
            }
        ],
    }
    run = parse_report(data)
    only = run.reports[0]
    assert (only.agent_name, only.workflow, only.policy_id) == ("", "", "")
    assert only.total_latency_ms is None and only.total_cost_usd is None
    assert only.findings[0].message == ""
    assert only.findings[0].step_id is None
    assert only.findings[0].severity is Severity.WARNING


def test_empty_rule_id_counts_as_absent() -> None:
    run = parse_report(report(trace("t", [finding(rule_id="")])))
    assert run.reports[0].findings[0].rule_id is None


def test_report_level_policy_id_is_the_default() -> None:
    data = report(trace("t"))
    del data["reports"][0]["policy_id"]
    assert parse_report(data).reports[0].policy_id == "p1"


def _with(path: str, value: Any) -> dict[str, Any]:
    """A valid report with one field (dotted path, `-` = delete) replaced."""
    data = report(trace("a"), trace("b", [finding(), finding(step_id=None)]))
    keys = path.split(".")
    target: Any = data
    for key in keys[:-1]:
        target = target[int(key)] if key.isdigit() else target[key]
    last = keys[-1]
    if value == "-":
        del target[last]
    elif last.isdigit():
        target[int(last)] = value
    else:
        target[last] = value
    return data


MALFORMED = [
    ("reports", "-", "reports: is required"),
    ("reports", {"a": 1}, "reports: must be an array (got object)"),
    ("reports.1", "x", "reports[1]: must be an object (got string)"),
    ("reports.1.trace_id", "-", "reports[1].trace_id: is required"),
    ("reports.1.trace_id", 7, "reports[1].trace_id: must be a string (got number)"),
    ("reports.1.passed", "-", "reports[1].passed: is required"),
    ("reports.1.passed", "yes", "reports[1].passed: must be a boolean (got string)"),
    ("reports.1.score", "-", "reports[1].score: is required"),
    ("reports.1.score", 101, "reports[1].score: must be a number between 0 and 100 (got 101)"),
    ("reports.1.score", True, "reports[1].score: must be a number between 0 and 100"),
    ("reports.1.score", "90", "reports[1].score: must be a number between 0 and 100 (got '90')"),
    ("reports.1.findings", "-", "reports[1].findings: is required"),
    ("reports.1.findings", {}, "reports[1].findings: must be an array (got object)"),
    ("reports.1.findings.0", 3, "reports[1].findings[0]: must be an object (got number)"),
    (
        "reports.1.findings.0.severity",
        "fatal",
        "reports[1].findings[0].severity: must be one of error, warning, info (got 'fatal')",
    ),
    ("reports.1.findings.0.severity", "-", "reports[1].findings[0].severity: is required"),
    ("reports.1.findings.1.category", "-", "reports[1].findings[1].category: is required"),
    ("reports.1.findings.1.category", "", "reports[1].findings[1].category: must not be empty"),
    ("reports.1.findings.0.rule_id", 12, "reports[1].findings[0].rule_id: must be a string"),
    ("reports.1.findings.0.step_id", 1, "reports[1].findings[0].step_id: must be a string"),
    ("reports.1.findings.0.message", [], "reports[1].findings[0].message: must be a string"),
    ("reports.1.total_latency_ms", -5, "reports[1].total_latency_ms: must be a finite number"),
    ("reports.1.total_cost_usd", "cheap", "reports[1].total_cost_usd: must be a finite number"),
    ("reports.1.total_tokens", 1.5, "reports[1].total_tokens: must be an integer >= 0"),
    ("reports.1.citation_coverage", 2, "reports[1].citation_coverage: must be a number between"),
    ("reports.1.agent_name", 5, "reports[1].agent_name: must be a string or null"),
    ("schema_version", "2", "schema_version: report declares unsupported schema_version '2'"),
    ("schema_version", True, "schema_version: must be a string (got boolean)"),
    ("schema_version", [1], "schema_version: must be a string (got array)"),
    ("policy_id", 3, "policy_id: must be a string or null"),
]


@pytest.mark.parametrize(("path", "value", "message"), MALFORMED)
def test_malformed_report_names_the_field(path: str, value: Any, message: str) -> None:
    with pytest.raises(ReportError) as caught:
        parse_report(_with(path, value))
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize("value", [[], "text", 3, None])
def test_top_level_must_be_an_object(value: Any) -> None:
    with pytest.raises(ReportError, match="a report must be a JSON object"):
        parse_report(value)


def test_duplicate_trace_id_is_named() -> None:
    data = report(trace("a"), trace("dup-1"), trace("b"), trace("dup-1"))
    with pytest.raises(ReportError) as caught:
        parse_report(data)
    assert str(caught.value) == (
        "reports[3].trace_id: duplicate trace_id 'dup-1' (first at reports[1])"
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"reports": [', "base.json: invalid JSON: Expecting value"),
        (b"\xff\xfe{}", "base.json: not valid UTF-8: byte 0xff at offset 0"),
        (b"[" * 100_000 + b"]" * 100_000, "base.json: invalid JSON: nesting is too deep"),
        (b'{"reports": [], "x": NaN}', "base.json: invalid JSON: NaN is not valid JSON"),
        (b"", "base.json: invalid JSON"),
        (b'{"reports": "\\ud800"}', "base.json: invalid JSON: a string contains a lone"),
    ],
)
def test_undecodable_bytes(data: bytes, message: str) -> None:
    with pytest.raises(ReportError) as caught:
        read_report(data, "base.json")
    assert str(caught.value).startswith(message)


def test_bom_is_accepted() -> None:
    text = json.dumps(report(trace("a"))).encode()
    assert read_report(b"\xef\xbb\xbf" + text, "x").reports[0].trace_id == "a"


def test_deeply_nested_expected_value_is_kept_as_data() -> None:
    nested: Any = "leaf"
    for _ in range(200):
        nested = [nested]
    run = parse_report(report(trace("a", [finding(expected=nested)])))
    assert run.reports[0].findings[0].expected == nested


def test_load_report_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "base.json"
    path.write_text(json.dumps(report(trace("a", [finding(severity="bad")]))))
    with pytest.raises(ReportError, match=r"base\.json: reports\[0\]\.findings\[0\]\.severity"):
        load_report(path)
    with pytest.raises(ReportError, match="cannot read"):
        load_report(tmp_path / "missing.json")


def test_long_or_odd_values_stay_on_one_line() -> None:
    data = report(trace("a", [finding(severity="x\n" * 100)]))
    with pytest.raises(ReportError) as caught:
        parse_report(data)
    assert "\n" not in str(caught.value)
    assert len(str(caught.value)) < 200


@pytest.mark.parametrize("version", ["1", "1.4", "0.1", "0.1.3", 1, 0.1, None])
def test_readable_schema_versions(version: Any) -> None:
    data = report(trace("a"), schema_version=version)
    assert parse_report(data).reports[0].trace_id == "a"
