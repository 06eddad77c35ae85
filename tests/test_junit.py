"""JUnit renderer: junitparser reads the JSON report's counts; XML-forbidden text is made safe."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
from junitparser import Error, Failure, JUnitXml

from agent_reliability_harness.models.common import Severity
from agent_reliability_harness.models.report import Finding, RunReport, TraceReport
from agent_reliability_harness.render import RenderOptions, get_renderer, junit
from agent_reliability_harness.render._escape import xml_clean


def _load(text: str, tmp_path: Path) -> JUnitXml:
    path = tmp_path / "report.xml"
    path.write_text(text, encoding="utf-8")
    return JUnitXml.fromfile(str(path))


@pytest.mark.parametrize("run_name", ["samples", "mixed", "live"])
def test_junitparser_counts_match_json_report(
    run_name: str, report_of: Callable[[str], RunReport], tmp_path: Path
) -> None:
    run = report_of(run_name)
    data = json.loads(get_renderer("run", "json").render(run, RenderOptions()))
    xml = _load(junit.render_run(run, RenderOptions()), tmp_path)
    suites = list(xml)
    assert len(suites) == 1
    suite = suites[0]
    summary = data["summary"]
    inputs = len(data["input_errors"])
    assert suite.tests == summary["total_traces"] + inputs
    assert suite.failures == summary["failed_traces"]
    assert suite.errors == inputs
    cases = [c for c in suite if c.classname != junit.INPUT_CLASSNAME]
    assert [c.name for c in cases] == [xml_clean(r["trace_id"]) for r in data["reports"]]
    for case, report in zip(cases, data["reports"], strict=True):
        # Characters XML cannot hold are spelled \uXXXX (the mixed run has an ESC).
        assert case.classname == xml_clean(f"{report['agent_name']}.{report['workflow']}")
        failures = [r for r in case.result if isinstance(r, Failure)]
        assert len(failures) == (0 if report["passed"] else 1)
        if failures:
            errors = [f for f in report["findings"] if f["severity"] == "error"]
            assert all(f["rule_id"] in failures[0].text for f in errors)
    errored = [c for c in suite if c.classname == junit.INPUT_CLASSNAME]
    assert all(isinstance(c.result[0], Error) for c in errored)
    assert len(errored) == inputs


def test_forbidden_characters_replaced_and_markup_escaped() -> None:
    nasty = 'a\x00b\x1bc\x7f\ufffe\ud800 <x> & "q" ]]> \t\r\n'
    finding = Finding("ARH-SAF-001", Severity.ERROR, "safety", nasty, step_id=nasty, step_index=0)
    warning = Finding("ARH-SCH-005", Severity.WARNING, "schema", nasty, step_id=None)
    report = TraceReport(
        trace_id=nasty,
        agent_name=nasty,
        workflow=nasty,
        policy_id=nasty,
        score=0.0,
        passed=False,
        total_latency_ms=None,
        total_cost_usd=None,
        total_tokens=None,
        citation_coverage=None,
        source_path=nasty,
        findings=(finding, warning),
    )
    text = junit.render_run(RunReport.build(nasty, (report,)), RenderOptions())
    text.encode("utf-8")  # no lone surrogates left
    root = ET.fromstring(text)  # well-formed XML 1.0
    case = root.find("testsuite/testcase")
    assert case is not None
    name = case.get("name")
    assert name is not None and "\\u0000" in name and "\\u001b" in name and "\\ud800" in name
    assert "\t" in name and "\n" in name  # kept through attribute normalisation
    assert "\x7f" in name  # allowed (if discouraged) in XML 1.0
    failure = case.find("failure")
    assert failure is not None and failure.text is not None and "<x> &" in failure.text
    out = case.find("system-out")
    assert out is not None and out.text is not None and "warning: ARH-SCH-005" in out.text
