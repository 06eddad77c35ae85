"""The HTML report in a real browser, as the CLI and the pipeline write it: the run's policy
warnings and policies at the top, a compare page made from reports alone, a huge trace
streamed a chunk of steps at a time (screenshots in build/artifacts/html/)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from browser import Page, cli, cli_page, write

from agent_reliability_harness import pipeline
from agent_reliability_harness.api import load_policies
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.models.report import Section
from agent_reliability_harness.pipeline import documents
from agent_reliability_harness.render import RenderOptions, file_renderers

pytestmark = pytest.mark.usefixtures("at_repo_root")


def test_policy_warnings_and_several_policies_show_at_the_top(
    browser: Any, shots: list[Path], tmp_path: Path
) -> None:
    """Policy warnings come as the `policy_warnings` run section (built here)."""
    warnings = [
        {"source": "samples/policies/10-refunds.json", "path": "sequence.forbiden_tools",
         "message": "unknown key (did you mean 'forbidden_tools'?)"},
    ]  # fmt: skip
    target = tmp_path / "warned.html"
    html = next(r for r in file_renderers("run") if r.name == "html")
    context = pipeline.OutputContext(
        io.StringIO(), Streams(io.StringIO(), io.StringIO(), None), RenderOptions("test")
    )
    sinks = pipeline.output_sinks([(html, str(target))], context)
    pipeline.run(["samples/traces"], load_policies(["samples/policies"]), sinks,
                 sections=[Section("policy_warnings", warnings)])  # fmt: skip
    page = Page(browser, target, shots)
    p = page.page
    box = p.locator(".summary .warnings")
    assert "1 policy warning" in box.inner_text()
    assert "samples/policies/10-refunds.json: policy sequence.forbiden_tools: unknown key" in (
        box.inner_text()
    )
    top = p.inner_text("header.top")
    assert "policies support-refunds, support-order-status, support-default" in top
    p.select_option("select[aria-label=policy]", label="support-order-status")
    shown = page.visible_ids()
    assert shown == [
        "budget-fail-0004",
        "safety-fail-0005",
        "retry-ok-0002",
        "completion-fail-0009",
    ]
    page.row(page.visible_ids()[0]).click()
    assert "policy support-order-status" in p.inner_text(".pane-detail .facts")
    page.shot("policy-warnings")
    page.close()


def test_compare_from_reports_says_it_has_no_timelines(
    browser: Any, shots: list[Path], tmp_path: Path
) -> None:
    data = "tests/compare/data"
    for side in ("baseline", "candidate"):
        cli(["validate", "--policy", f"{data}/policy.json", f"{data}/{side}", "--json-out",
              str(tmp_path / f"{side}.json"), "--quiet"])  # fmt: skip
    target = tmp_path / "compare.html"
    cli(["compare", "--baseline", str(tmp_path / "baseline.json"), "--candidate",
          str(tmp_path / "candidate.json"), "--html-out", str(target), "--quiet"])  # fmt: skip
    page = Page(browser, target, shots)
    p = page.page
    assert "without the candidate's traces" in p.inner_text(".summary .banner")
    p.locator(".list .row").first.click()
    assert "without the traces themselves" in p.inner_text(".pane-detail")
    page.shot("compare-from-reports")
    page.close()


def test_compare_page_shows_the_candidates_policy_warnings(
    browser: Any, shots: list[Path], tmp_path: Path
) -> None:
    """From a real policy file with a typo, through `arh compare --policy --html-out`."""
    data = "tests/compare/data"
    policy = json.loads(Path(f"{data}/policy.json").read_text())
    policy.setdefault("sequence", {})["forbiden_tools"] = ["x"]
    typo = tmp_path / "typo.json"
    typo.write_text(json.dumps(policy))
    cli(["validate", "--policy", f"{data}/policy.json", f"{data}/baseline", "--json-out",
         str(tmp_path / "baseline.json"), "--quiet"])  # fmt: skip
    target = tmp_path / "compare-warned.html"
    cli(["compare", "--baseline", str(tmp_path / "baseline.json"), "--policy", str(typo),
         f"{data}/candidate", "--html-out", str(target), "--quiet"])  # fmt: skip
    page = Page(browser, target, shots)
    p = page.page
    box = p.inner_text(".summary .warnings")
    assert "1 policy warning" in box
    assert f"{typo}: policy sequence.forbiden_tools: unknown key" in box
    assert p.locator(".summary .banner").count() == 0  # made with the candidate's traces
    page.shot("compare-policy-warnings")
    page.close()


def test_a_huge_streamed_trace_shows_a_bounded_timeline(
    browser: Any, shots: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps = [
        {"step_id": f"s{n}", "type": "tool_call", "tool_name": "lookup_order",
         "arguments": {"order_id": "ORD-1234"}, "output": {"n": n}}
        for n in range(12_000)
    ]  # fmt: skip
    steps.append({"step_id": "end", "type": "model_response", "text": "done"})
    source = write(tmp_path, "huge.json", json.dumps(
        {"trace_id": "huge", "agent_name": "a", "workflow": "refund", "steps": steps}))  # fmt: skip
    monkeypatch.setattr(documents, "STREAM_MIN_BYTES", 1_000)  # streamed, as a big file is
    target = cli_page(tmp_path, "huge.html", ["--policy", "samples/policy.json", str(source)])
    page = Page(browser, target, shots)
    p = page.page
    page.row("huge").click()
    assert "Trajectory (12,001 steps)" in p.inner_text(".pane-detail")
    assert "2,001 more steps not embedded" in p.inner_text(".pane-detail")
    page.shot("huge-trace-bounded-timeline", full_page=False)
    page.close()


def test_the_coverage_table_shows_each_allowed_tool(
    browser: Any, shots: list[Path], tmp_path: Path
) -> None:
    """`--coverage`: a table per allowed tool (calls, traces, arguments, rules fired)."""
    path = cli_page(
        tmp_path,
        "coverage.html",
        ["--policy", "samples/policy.json", "samples/traces", "--coverage"],
    )
    page = Page(browser, path, shots)
    p = page.page
    heading = p.locator("h3", has_text="Tool coverage")
    assert heading.count() == 1
    table = heading.locator("xpath=..").locator("table.data")
    assert table.locator("th").all_inner_texts() == [
        "tool", "calls", "traces", "arguments passed", "declared", "never passed", "rules fired",
    ]  # fmt: skip
    rows = [r.locator("td").all_inner_texts() for r in table.locator("tbody tr").all()]
    assert [r[0] for r in rows] == ["issue_refund", "lookup_order", "search_kb", "send_email"]
    assert rows[1][:5] == ["lookup_order", "10", "9", "1", "1"]
    note = heading.locator("xpath=..").locator("p.note").inner_text()
    assert note.startswith("4 of 4 allowed tools called (100%)")
    unlisted = p.locator("h3", has_text="Tools called but not allowed")
    assert unlisted.count() == 1
    assert unlisted.locator("xpath=..").locator("tbody tr").count() == 2
    page.shot("coverage")
    page.close()
