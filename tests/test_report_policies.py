"""Every report names the policy that judged each trace and shows the run's policy
warnings (issue 14 item 2); SARIF says the run did not succeed when an input could not
be read, and the Markdown headline says why a run failed (issue 17 part 7).

The policy warnings come as the run section `policy_warnings` (a list of {"source",
"path", "message"}); here it is built by the test and handed to the pipeline."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from junit2htmlreport import parser as junit2html
from junitparser import JUnitXml

from agent_reliability_harness import pipeline
from agent_reliability_harness.api import load_policies, load_policy
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.models.report import Section
from agent_reliability_harness.render import RenderOptions, file_renderers
from helpers import ROOT, SAMPLES

POLICIES = str(SAMPLES / "policies")
TRACES = str(SAMPLES / "traces")
WARNINGS = [
    {"source": "samples/policies/10-refunds.json", "path": "sequence.forbiden_tools",
     "message": "unknown key (did you mean 'forbidden_tools'?)"},
    {"source": None, "path": "budgets.max_total_cost", "message": "unknown key @octocat #1"},
]  # fmt: skip


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, None))
    return code, out.getvalue(), err.getvalue()


def _run_all(tmp_path: Path, policies: list[str], paths: list[str], warnings: bool) -> Path:
    """Every run format of one run through the pipeline; the warnings section given."""
    policy = load_policies(policies)
    targets = [(r, str(tmp_path / f"report{r.suffix}")) for r in file_renderers("run")]
    context = pipeline.OutputContext(io.StringIO(), Streams(io.StringIO(), io.StringIO(), None),
                                     RenderOptions("test"))  # fmt: skip
    sinks = pipeline.output_sinks(targets, context)
    sections = [Section("policy_warnings", WARNINGS)] if warnings else []
    pipeline.run(paths, policy, sinks, sections=sections)
    return tmp_path


@pytest.fixture(scope="module")
def several(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """samples/ judged by the three policies of samples/policies, with policy warnings."""
    return _run_all(tmp_path_factory.mktemp("several"), [POLICIES], [TRACES], warnings=True)


def _judged(folder: Path) -> dict[str, str]:
    report = json.loads((folder / "report.json").read_text())
    return {r["trace_id"]: r["policy_id"] for r in report["reports"]}


def test_the_json_report_holds_the_warnings_section(several: Path) -> None:
    report = json.loads((several / "report.json").read_text())
    assert report["policy_warnings"] == WARNINGS
    assert len(set(_judged(several).values())) == 3


def test_markdown_names_the_policies_and_shows_the_warnings(several: Path) -> None:
    text = (several / "report.md").read_text()
    assert text.startswith(
        "## ARH report: policies `support-refunds`, `support-order-status`, `support-default`\n"
    )
    assert "**Policy warnings (2):**" in text
    assert "- samples/policies/10-refunds.json: policy sequence.forbiden\\_tools: unknown" in text
    assert "@\u2060octocat \\#\u20601" in text
    for trace_id, policy in _judged(several).items():
        block = text.split(f"`{trace_id}`", 1)[1].split("\n\n", 2)
        # a failing trace's block says it on its second line; a passed one, in its row
        assert f"`{policy}`" in block[1] or f"`{policy}`" in block[0], trace_id


def test_junit_has_the_policy_per_testcase_and_warnings_in_system_out(several: Path) -> None:
    path = several / "report.xml"
    suite = next(iter(JUnitXml.fromfile(str(path))))
    assert suite.name == "arh policies support-refunds, support-order-status, support-default"
    judged = _judged(several)
    root = ET.parse(path).getroot()
    cases = root.findall(".//testcase")
    assert [c.get("name") for c in cases] == list(judged)
    for case in cases:
        (prop,) = case.findall("./properties/property")
        assert (prop.get("name"), prop.get("value")) == ("arh.policy_id", judged[case.get("name")])
    out = root.find("./testsuite/system-out")
    assert out is not None and out.text is not None
    assert out.text.splitlines() == [
        "policy warning: samples/policies/10-refunds.json: policy sequence.forbiden_tools: "
        "unknown key (did you mean 'forbidden_tools'?)",
        "policy warning: policy budgets.max_total_cost: unknown key @octocat #1",
    ]
    # A second consumer reads the testcase properties too.
    read = junit2html.Junit(str(path))
    by_case = {c.name: {p.name: p.value for p in c.properties} for c in read.suites[0].all()}
    assert by_case == {t: {"arh.policy_id": p} for t, p in judged.items()}


def test_sarif_names_the_policy_per_result_and_notifies_the_warnings(several: Path) -> None:
    log = json.loads((several / "report.sarif").read_text())
    run = log["runs"][0]
    assert run["properties"] == {
        "policy_id": "support-refunds, support-order-status, support-default",
        "policy_ids": ["support-refunds", "support-order-status", "support-default"],
    }
    judged = _judged(several)
    assert run["results"]
    for result in run["results"]:
        assert result["properties"]["policy_id"] == judged[result["properties"]["trace_id"]]
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is True  # warnings are not failures
    notes = invocation["toolExecutionNotifications"]
    assert [n["level"] for n in notes] == ["warning", "warning"]
    assert notes[0]["message"]["text"].startswith("samples/policies/10-refunds.json: policy ")
    assert notes[0]["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "samples/policies/10-refunds.json",
        "uriBaseId": "%SRCROOT%",
    }
    assert "locations" not in notes[1]


def test_html_shows_the_policies_and_the_warnings(several: Path) -> None:
    text = (several / "report.html").read_text()
    index = json.loads(text.split('id="arh-index">', 1)[1].split("</script>", 1)[0])
    assert index["policies"] == ["support-refunds", "support-order-status", "support-default"]
    assert index["policy_warnings"] == WARNINGS
    assert {r["id"]: r["policy"] for r in index["traces"]} == _judged(several)
    assert "<title>ARH report: policies support-refunds, support-order-status" in text


def test_one_policy_without_warnings_adds_nothing(tmp_path: Path) -> None:
    folder = _run_all(tmp_path, [str(SAMPLES / "policy.json")], [TRACES], warnings=False)
    assert "policy_warnings" not in (folder / "report.json").read_text()
    md = (folder / "report.md").read_text()
    assert md.startswith("## ARH report: policy `refund-support-v1`\n")
    assert "· policy" not in md and "Policy warnings" not in md
    assert "<system-out>policy warning" not in (folder / "report.xml").read_text()
    run = json.loads((folder / "report.sarif").read_text())["runs"][0]
    assert run["properties"] == {"policy_id": "refund-support-v1"}
    assert "invocations" not in run
    index = (folder / "report.html").read_text()
    assert '"policies"' not in index and '"policy_warnings"' not in index


# ---- unreadable inputs ---------------------------------------------------------------


def _mixed(tmp_path: Path, extra: list[str]) -> dict[str, Any]:
    sarif, md = tmp_path / "r.sarif", tmp_path / "r.md"
    policy = str(ROOT / "tests" / "data" / "samples" / "policy.json")
    code, _, _ = _cli(["validate", "--policy", policy, *extra, "--sarif-out", str(sarif),
                       "--md-out", str(md), "--quiet"])  # fmt: skip
    return {"code": code, "sarif": json.loads(sarif.read_text()), "md": md.read_text()}


def test_an_unreadable_input_fails_the_sarif_run_and_the_markdown_says_why(tmp_path: Path) -> None:
    good = str(SAMPLES / "traces" / "refund-ok.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    out = _mixed(tmp_path, [good, str(bad), str(tmp_path / "missing.json")])
    assert out["code"] == 1
    (invocation,) = out["sarif"]["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    notes = invocation["toolExecutionNotifications"]
    assert [n["level"] for n in notes] == ["error", "error"]
    assert notes[0]["message"]["text"].endswith("bad.json: invalid JSON: Expecting property name "
                                                "enclosed in double quotes (line 1, column 2).")  # fmt: skip
    headline = out["md"].splitlines()[2]
    assert headline == (
        "**Run failed:** 2 inputs could not be read; 1 of 1 traces passed, average score 100.00."
    )
    one = _mixed(tmp_path, [good, str(bad)])
    assert one["md"].splitlines()[2].startswith("**Run failed:** 1 input could not be read; 1 of")
    fine = _mixed(tmp_path, [good])
    assert fine["md"].splitlines()[2] == (
        "**Run passed:** 1 of 1 traces passed, average score 100.00."
    )
    assert "invocations" not in fine["sarif"]["runs"][0]


def test_console_names_each_traces_policy() -> None:
    _, out, _ = _cli(["validate", "--policy", POLICIES, TRACES])
    heads = [line for line in out.splitlines() if line.startswith("[")]
    assert any(h.endswith("policy support-refunds") for h in heads)
    assert any(h.endswith("policy support-order-status") for h in heads)


def test_sch007_shows_the_value() -> None:
    policy = load_policy(str(SAMPLES / "policy.json"))
    run = pipeline.ReportSink()
    pipeline.run([TRACES], [policy], [run])
    assert run.run is not None
    messages = [
        f.message for r in run.run.reports for f in r.findings if f.rule_id == "ARH-SCH-007"
    ]
    assert messages == [
        "argument 'currency' of tool 'issue_refund' is not one of the allowed values (got \"GBP\")"
    ]
