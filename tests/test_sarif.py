"""SARIF renderer: rules, one result per finding, fingerprints, locations and GitHub's limits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from msgspec.structs import replace

from agent_reliability_harness.engine import Evaluator
from agent_reliability_harness.models.common import Severity
from agent_reliability_harness.models.policy import Policy
from agent_reliability_harness.models.report import Finding, RunReport
from agent_reliability_harness.models.trace import Trace
from agent_reliability_harness.render import RenderOptions, sarif
from agent_reliability_harness.rules import all_rules
from helpers import IN_CI

pytestmark = pytest.mark.usefixtures("at_repo_root")  # inputs are read by relative path

SCHEMA = (
    Path(__file__).resolve().parent.parent
    / ".tools/node_modules/@microsoft/sarif-multitool-linux/sarif-2.1.0.json"
)


def _log(run: RunReport, options: RenderOptions | None = None) -> dict[str, Any]:
    return json.loads(sarif.render_run(run, options or RenderOptions(tool_version="9.9.9")))


def test_driver_lists_every_rule(samples_run: RunReport) -> None:
    """Every v1/v1.1 rule; a newer rule only when the log reports it (see below)."""
    driver = _log(samples_run)["runs"][0]["tool"]["driver"]
    assert driver["name"] == "arh" and driver["version"] == "9.9.9"
    assert driver["informationUri"].startswith("https://")
    listed = [r for r in all_rules() if r.since == "1"]
    assert [r["id"] for r in driver["rules"]] == [r.rule_id for r in listed]
    for descriptor, rule in zip(driver["rules"], listed, strict=True):
        assert descriptor["help"]["text"].startswith(rule.remediation.rstrip("."))
        assert descriptor["helpUri"].endswith("docs/rules.md#" + rule.rule_id.lower())
        assert descriptor["defaultConfiguration"]["level"] in {"error", "warning", "note"}
        assert len(descriptor["name"]) <= 255
        assert len(descriptor["shortDescription"]["text"]) <= 1024
        assert len(descriptor["fullDescription"]["text"]) <= 1024


def test_a_newer_rule_is_listed_when_reported() -> None:
    """A v1.2 rule's finding adds its descriptor after the v1/v1.1 ones; ruleIndex finds it."""
    trace = {
        "trace_id": "t",
        "agent_name": "a",
        "workflow": "w",
        "steps": [
            {"step_id": "s1", "type": "tool_call", "tool_name": "b"},
            {"step_id": "s2", "type": "tool_call", "tool_name": "b"},
        ],
    }
    policy = Policy.from_dict(
        {
            "policy_id": "p",
            "allow_unlisted_tools": True,
            "error_handling": {"max_identical_repeats": 1},
        }
    )
    run = RunReport.build("p", (Evaluator(policy).evaluate(Trace.from_dict(trace)),))
    log = _log(run)["runs"][0]
    ids = [r["id"] for r in log["tool"]["driver"]["rules"]]
    assert ids == [r.rule_id for r in all_rules() if r.since == "1"] + ["ARH-FLW-006"]
    (result,) = log["results"]
    assert result["ruleIndex"] == len(ids) - 1


def test_one_result_per_finding_with_rule_index(samples_run: RunReport) -> None:
    run = _log(samples_run)["runs"][0]
    findings = [(r, f) for r in samples_run.reports for f in r.findings]
    assert len(run["results"]) == len(findings)
    rules = run["tool"]["driver"]["rules"]
    for result, (report, finding) in zip(run["results"], findings, strict=True):
        assert result["ruleId"] == finding.rule_id
        assert rules[result["ruleIndex"]]["id"] == finding.rule_id
        assert (
            result["level"]
            == {"error": "error", "warning": "warning", "info": "note"}[finding.severity.value]
        )
        assert report.trace_id in result["message"]["text"]
    fingerprints = [r["partialFingerprints"][sarif.FINGERPRINT_KEY] for r in run["results"]]
    assert len(set(fingerprints)) == len(fingerprints)


def _result(run: dict[str, Any], trace_id: str, rule_id: str) -> dict[str, Any]:
    return next(
        r
        for r in run["results"]
        if r["ruleId"] == rule_id and r["properties"]["trace_id"] == trace_id
    )


@pytest.mark.parametrize(
    "case",
    [
        ("schema-fail-0003", "ARH-SCH-001", "tests/data/samples/traces/batch.jsonl", 1, "s3"),
        (
            "sequence-fail-0007",
            "ARH-SEQ-002",
            "tests/data/samples/traces/sequence-flow-fail.json",
            12,
            "s3",
        ),
        (
            "flow-fail-0008",
            "ARH-FLW-001",
            "tests/data/samples/traces/sequence-flow-fail.json",
            31,
            "s4",
        ),
        (
            "grounding-fail-0006",
            "ARH-GRD-002",
            "tests/data/samples/traces/grounding-fail.json",
            1,
            None,
        ),
    ],
)
def test_locations(samples_run: RunReport, case: tuple[str, str, str, int, str | None]) -> None:
    trace_id, rule_id, uri, line, name = case
    run = _log(samples_run)["runs"][0]
    location = _result(run, trace_id, rule_id)["locations"][0]
    physical = location["physicalLocation"]
    assert physical["artifactLocation"] == {"uri": uri, "uriBaseId": sarif.SRCROOT}
    assert physical["region"] == {"startLine": line}
    logical = location["logicalLocations"][0]
    entry = run["logicalLocations"][logical["index"]]
    assert entry["fullyQualifiedName"] == logical["fullyQualifiedName"]
    if name is None:
        assert entry["name"] == trace_id
    else:
        assert entry["name"] == name
        assert run["logicalLocations"][entry["parentIndex"]]["name"] == trace_id


def test_step_regions_point_at_step_objects(samples_run: RunReport) -> None:
    for report in samples_run.reports:
        lines = Path(report.source_path or "").read_text(encoding="utf-8").splitlines()
        for finding in report.findings:
            if finding.step_index is None or report.source_path.endswith(".jsonl"):  # type: ignore[union-attr]
                continue
            text = lines[report.step_lines[finding.step_index] - 1]
            assert text.lstrip().startswith("{")
            assert (
                f'"step_id": "{finding.step_id}"'
                in text + lines[report.step_lines[finding.step_index]]
            )


def test_without_positions_results_point_at_line_one(samples_run: RunReport) -> None:
    unlocated = tuple(replace(r, source_line=None, step_lines=()) for r in samples_run.reports)
    results = _log(RunReport.build("p", unlocated))["runs"][0]["results"]
    assert {r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results} == {1}


def test_identical_findings_get_distinct_fingerprints(samples_run: RunReport) -> None:
    report = samples_run.reports[0]
    twice = replace(report, findings=(report.findings[0], report.findings[0]))
    results = _log(RunReport.build("p", (twice,)))["runs"][0]["results"]
    first, second = (r["partialFingerprints"] for r in results)
    assert first[sarif.FINGERPRINT_KEY] == sarif.fingerprint(report.trace_id, report.findings[0])
    assert first[sarif.FINGERPRINT_KEY] != second[sarif.FINGERPRINT_KEY]
    assert first["primaryLocationLineHash"].endswith(":1")
    assert second["primaryLocationLineHash"].endswith(":2")


def test_result_cap_keeps_the_most_severe(
    samples_run: RunReport, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sarif, "MAX_RESULTS", 3)
    warning = Finding("ARH-SCH-005", Severity.WARNING, "schema", "w", step_id="s1", step_index=0)
    report = samples_run.reports[0]
    noisy = replace(report, findings=(warning, *report.findings[:4]))
    run = _log(RunReport.build("p", (noisy,)))["runs"][0]
    assert [r["level"] for r in run["results"]] == ["error"] * 3
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert "2 lower-severity results were left out" in notes[-1]["message"]["text"]


def test_stdin_and_absolute_paths(samples_run: RunReport) -> None:
    report = samples_run.reports[0]
    stdin = replace(report, source_path="<stdin>")
    absolute = replace(report, source_path="/data/my traces/a.json")
    results = _log(RunReport.build("p", (stdin, absolute)))["runs"][0]["results"]
    count = len(report.findings)
    assert "physicalLocation" not in results[0]["locations"][0]
    uri = results[count]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert uri == {"uri": "file:///data/my%20traces/a.json"}


def test_input_errors_become_notifications(mixed_run: RunReport) -> None:
    run = _log(mixed_run)["runs"][0]
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert len(notes) == len(mixed_run.input_errors)
    assert notes[0]["locations"][0]["physicalLocation"]["region"] == {"startLine": 2}


@pytest.mark.parametrize("run_name", ["samples", "mixed", "live"])
def test_valid_against_sarif_schema(run_name: str, report_of: Any) -> None:
    if not SCHEMA.exists():
        if IN_CI:
            pytest.fail(f"{SCHEMA} is missing: run `make setup` (installs .tools)")
        pytest.skip("SARIF schema not installed (make setup installs .tools)")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.validate(_log(report_of(run_name)), schema)
