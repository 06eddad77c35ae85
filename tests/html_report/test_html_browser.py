"""The HTML report in a real browser: Debian's chromium driven by Playwright.

Opens pages written by the streaming writer and by the CLI from disk (file://), clicks, filters,
searches and types as a person would, and keeps screenshots in
build/artifacts/html/ (printed at the end of the run). Locally the tests skip when
chromium or playwright is missing; under CI they fail instead, so they always run there.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import Page, cli_page, write
from html_helpers import OPTIONS, evaluated, run_of, streamed_html

from agent_reliability_harness.api import load_policy, validate_paths
from agent_reliability_harness.compare import compare
from agent_reliability_harness.render.html_report import render_compare_html

pytestmark = pytest.mark.usefixtures("at_repo_root")


@pytest.fixture(params=["writer", "cli"])
def samples_page(
    request: pytest.FixtureRequest, browser: Any, shots: list[Path], tmp_path: Path
) -> Iterator[Page]:
    """The samples' page as the writer makes it from (report, trace) pairs, and as the CLI
    writes it: every test on it runs on both."""
    if request.param == "cli":
        path = cli_page(tmp_path, "samples.html", ["--policy", "samples/policy.json",
                                                    "samples/traces"])  # fmt: skip
    else:
        html = streamed_html("samples/policy.json", ["samples/traces"])
        path = write(tmp_path, "samples.html", html)
    page = Page(browser, path, shots, request.param)
    yield page
    page.close()


def test_failing_trace_shows_its_findings_on_their_steps(samples_page: Page) -> None:
    page = samples_page.page
    assert page.inner_text(".filters .count") == "9 traces of 9"
    samples_page.shot("samples-overview")
    samples_page.row("flow-fail-0008").click()
    assert page.inner_text("#trace-title").endswith("flow-fail-0008")
    step = page.locator("#step-3")  # the fourth step, s4: search_kb failed, never retried
    assert "search_kb" in step.inner_text()
    finding = step.locator(".finding")
    assert "ARH-FLW-001" in finding.inner_text()
    assert "tool 'search_kb' failed and was never called again" in finding.inner_text()
    assert "Fix:" in finding.inner_text()
    assert "ARH-FLW-003" in page.locator("#step-2 .finding").inner_text()
    assert page.locator("#step-0 .finding").count() == 0
    page.get_by_role("button", name="step #4 s4").click()
    samples_page.shot("samples-failing-trace")
    samples_page.row("refund-ok-0001").click()
    assert page.inner_text("#trace-title").endswith("refund-ok-0001")
    assert page.locator(".pane-detail .finding").count() == 0
    assert "No findings" in page.inner_text(".pane-detail")
    samples_page.shot("samples-passing-trace")


def test_trace_level_findings_sit_at_the_top(samples_page: Page) -> None:
    page = samples_page.page
    samples_page.row("budget-fail-0004").click()
    top = page.locator(".pane-detail > .finding")
    assert "ARH-BUD-002" in top.first.inner_text()
    assert page.locator(".timeline .finding").count() == 2  # two slow steps


def test_filters_by_severity_rule_verdict_and_category(samples_page: Page) -> None:
    page = samples_page.page
    page.check("label:has-text('warning') input")
    assert samples_page.visible_ids() == ["schema-fail-0003"]
    samples_page.shot("samples-filter-warning")
    page.uncheck("label:has-text('warning') input")
    page.select_option("select[aria-label=rule]", label="ARH-BUD-001")
    assert samples_page.visible_ids() == ["budget-fail-0004"]
    page.select_option("select[aria-label=rule]", label="any rule")
    page.select_option("select[aria-label=verdict]", label="passed")
    assert samples_page.visible_ids() == ["refund-ok-0001", "retry-ok-0002"]
    page.select_option("select[aria-label=verdict]", label="any verdict")
    page.select_option("select[aria-label=category]", label="sequence")
    assert samples_page.visible_ids() == ["sequence-fail-0007"]
    page.select_option("select[aria-label=category]", label="any category")
    page.select_option("select[aria-label=order]", label="lowest score first")
    assert samples_page.visible_ids()[:2] == ["schema-fail-0003", "budget-fail-0004"]
    assert page.inner_text(".filters .count") == "9 traces of 9"


def test_search_finds_ids_and_trace_contents(samples_page: Page) -> None:
    samples_page.search("budget-fail")
    assert samples_page.visible_ids() == ["budget-fail-0004"]
    samples_page.search("ORD-7001")  # an argument value: found in the trace body
    assert samples_page.visible_ids() == ["flow-fail-0008"]
    samples_page.search("was never called again")  # a finding message
    assert samples_page.visible_ids() == ["flow-fail-0008"]
    samples_page.search("no such text anywhere")
    assert samples_page.visible_ids() == []
    samples_page.search("")
    assert len(samples_page.visible_ids()) == 9


def test_keyboard_moves_opens_and_searches(samples_page: Page) -> None:
    page = samples_page.page
    active = "document.activeElement && document.activeElement.id"
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.type") == "search"
    page.keyboard.press("Escape")
    assert page.evaluate(active) == "row-0"
    page.keyboard.press("j")
    page.keyboard.press("j")
    assert page.evaluate(active) == "row-2"
    page.keyboard.press("k")
    assert page.evaluate(active) == "row-1"
    page.keyboard.press("ArrowDown")
    assert page.evaluate(active) == "row-2"
    page.keyboard.press("Enter")
    ids = samples_page.visible_ids()
    assert page.inner_text("#trace-title").endswith(ids[2])
    assert page.locator(".row.selected").count() == 1
    focus = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert focus != "none", "the focused row shows a focus ring"


def test_dark_mode_follows_the_system(browser: Any, shots: list[Path], tmp_path: Path) -> None:
    path = write(tmp_path, "samples.html", streamed_html("samples/policy.json", ["samples/traces"]))
    page = Page(browser, path, shots)
    light = page.page.evaluate("getComputedStyle(document.body).backgroundColor")
    page.page.emulate_media(color_scheme="dark")
    dark = page.page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert light == "rgb(255, 255, 255)" and dark != light
    page.row("sequence-fail-0007").click()
    page.shot("samples-dark-failing-trace")
    page.close()


def test_long_output_is_cut_with_its_length_and_expands(
    browser: Any, shots: list[Path], tmp_path: Path
) -> None:
    trace = {
        "trace_id": "long-output",
        "agent_name": "a",
        "workflow": "w",
        "steps": [
            {"step_id": "s1", "type": "tool_call", "tool_name": "search_kb",
             "arguments": {"query": "q"}, "output": "line of output\n" * 400},
            {"step_id": "s2", "type": "model_response", "text": "Done."},
        ],
    }  # fmt: skip
    source = write(tmp_path, "long.json", json.dumps(trace))
    path = write(tmp_path, "long.html", streamed_html("samples/policy.json", [str(source)]))
    page = Page(browser, path, shots)
    page.row("long-output").click()
    output = page.page.locator("#step-0 .field", has_text="output")
    assert "showing 2,000 of 6,000 characters" in output.inner_text()
    assert len(output.locator("pre").inner_text()) < 2100
    output.get_by_role("button", name="show all").click()
    assert output.locator("pre").text_content() == trace["steps"][0]["output"]
    page.close()


def test_hostile_trace_runs_no_script_and_shows_its_text(
    browser: Any, shots: list[Path], tmp_path: Path
) -> None:
    source = json.loads(Path("tests/data/html/xss.json").read_text(encoding="utf-8"))
    path = write(
        tmp_path, "xss.html", streamed_html("samples/policy.json", ["tests/data/html/xss.json"])
    )
    page = Page(browser, path, shots)
    p = page.page
    row = p.locator(".list .row").first
    assert row.locator(".rid").inner_text() == source["trace_id"]
    row.hover()
    row.click()
    assert p.locator("#trace-title .mono").inner_text() == source["trace_id"]
    for details in p.locator("details").all():
        details.locator("summary").click()
    for node in p.locator(".pane-detail pre, .pane-detail .finding").all():
        node.hover()
        node.click()
    text = p.inner_text(".pane-detail")
    for literal in (
        source["agent_name"],
        source["workflow"],
        source["task_id"],
        source["steps"][0]["tool_name"],
        source["steps"][0]["arguments"]["html"],
        source["steps"][1]["error"],
        source["steps"][2]["text"],
        source["steps"][2]["citations"][0],
        "tool '<script>window.__xss=9</script>' is not in allowed_tools",
    ):
        assert literal in text, literal
    page.search("</script><script>window.__xss=11")
    assert len(page.visible_ids()) == 1
    page.shot("xss-trace")
    assert p.evaluate("window.__xss") is None
    assert page.dialogs == []
    # Nothing from the trace became an element: no images, frames, SVG or foreign links.
    hostile = "img, iframe, svg, object, embed, a:not([href^='https://github.com/'])"
    assert p.locator(f"#app :is({hostile})").count() == 0
    assert p.locator("script").count() == 3  # one trace block, the index, the page's code
    assert not [m for m in page.console if "Content Security Policy" in m], page.console
    page.close()


def test_compare_page_shows_new_fixed_and_unchanged(
    browser: Any, shots: list[Path], tmp_path: Path
) -> None:
    data = "tests/compare/data"
    policy = load_policy(f"{data}/policy.json")
    baseline = validate_paths([f"{data}/baseline"], policy)
    _, pairs, failures = evaluated(f"{data}/policy.json", [f"{data}/candidate"])
    comparison = compare(baseline, run_of(policy.policy_id, pairs, failures))
    traces = {report.trace_id: trace for report, trace in pairs}
    path = write(tmp_path, "compare.html", render_compare_html(comparison, traces, OPTIONS))
    page = Page(browser, path, shots)
    p = page.page
    assert "Gate (regressions): failed" in p.inner_text(".summary")
    p.select_option("select[aria-label=change]", label="new findings")
    with_new = page.visible_ids()
    expected = [t.trace_id for t in comparison.traces if t.new_findings]
    assert with_new == expected and with_new
    page.row(with_new[0]).click()
    assert p.locator(".pane-detail .badge.new").count() >= 1
    page.shot("compare-new-findings")
    p.select_option("select[aria-label=change]", label="fixed findings")
    fixed = [t.trace_id for t in comparison.traces if t.resolved_findings]
    assert page.visible_ids() == fixed and fixed
    page.row(fixed[0]).click()
    assert "Fixed since the baseline" in p.inner_text(".pane-detail")
    page.shot("compare-fixed-findings")
    page.close()
