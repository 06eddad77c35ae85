"""The HTML report in a real browser: Debian's chromium driven by Playwright.

Opens pages written by the streaming writer from disk (file://), clicks, filters,
searches and types as a person would, and keeps screenshots in
build/artifacts/html/ (printed at the end of the run). Locally the tests skip when
chromium or playwright is missing; under CI they fail instead, so they always run there.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from html_helpers import OPTIONS, evaluated, run_of, streamed_html

from agent_reliability_harness import pipeline
from agent_reliability_harness.api import load_policies, load_policy, validate_paths
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.compare import compare
from agent_reliability_harness.models.report import Section
from agent_reliability_harness.pipeline import documents
from agent_reliability_harness.render import RenderOptions, file_renderers
from agent_reliability_harness.render.html_report import render_compare_html
from helpers import IN_CI

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("ARH_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = ROOT / "build" / "artifacts" / "html"
# As root and without network: no sandbox, and no background connections to refuse.
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
pytestmark = pytest.mark.usefixtures("at_repo_root")


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401, PLC0415
    except ImportError:
        return "the playwright package is missing: pip install -e '.[test-browser]'"
    if not Path(CHROMIUM).exists():
        return f"no chromium at {CHROMIUM}: apt-get install chromium (or set ARH_CHROMIUM)"
    return None


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    reason = _missing()
    if reason:
        if IN_CI:
            pytest.fail(f"browser tests must run in CI: {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright  # noqa: PLC0415

    with sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=CHROMIUM,
            headless=True,
            args=ARGS,
            viewport={"width": 1280, "height": 860},
            color_scheme="light",
        )
        yield context
        context.close()


@pytest.fixture(scope="module")
def shots() -> Iterator[list[Path]]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    taken: list[Path] = []
    yield taken
    if taken:
        print("\nHTML report screenshots:\n" + "\n".join(f"  {p}" for p in taken))


class Page:
    """One open page, with what it logged and whether it ever tried to run injected code."""

    def __init__(self, browser: Any, path: Path, shots: list[Path], prefix: str = "") -> None:
        self.page = browser.new_page()
        self.shots = shots
        self.prefix = prefix
        self.console: list[str] = []
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", self._dialog)
        self.page.goto(path.as_uri())
        self.page.wait_for_selector("body[data-ready='1']")
        assert not self.errors, self.errors

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def row(self, trace_id: str) -> Any:
        return self.page.locator(".list .row", has=self.page.get_by_text(trace_id, exact=True))

    def visible_ids(self) -> list[str]:
        return [t.strip() for t in self.page.locator(".list .row .rid").all_inner_texts()]

    def search(self, text: str) -> None:
        self.page.fill("input[type=search]", text)
        self.page.wait_for_selector(f"body[data-searched={json.dumps(text.lower())}]")

    def shot(self, name: str, full_page: bool = True) -> None:
        path = ARTIFACTS / f"{self.prefix + '-' if self.prefix else ''}{name}.png"
        self.page.evaluate("window.scrollTo(0, 0)")  # the trace list is sticky
        self.page.screenshot(path=str(path), full_page=full_page)
        self.shots.append(path)

    def close(self) -> None:
        assert not self.errors, self.errors
        self.page.close()


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="\n")
    return path


def _cli(args: list[str]) -> int:
    return main(args, Streams(io.StringIO(), io.StringIO(), None))


def _cli_page(tmp_path: Path, name: str, args: list[str]) -> Path:
    """A page written by `arh validate --html-out` itself (through the pipeline)."""
    path = tmp_path / name
    _cli(["validate", *args, "--html-out", str(path), "--quiet"])
    return path


@pytest.fixture(params=["writer", "cli"])
def samples_page(
    request: pytest.FixtureRequest, browser: Any, shots: list[Path], tmp_path: Path
) -> Iterator[Page]:
    """The samples' page as the writer makes it from (report, trace) pairs, and as the CLI
    writes it: every test on it runs on both."""
    if request.param == "cli":
        path = _cli_page(tmp_path, "samples.html", ["--policy", "samples/policy.json",
                                                    "samples/traces"])  # fmt: skip
    else:
        html = streamed_html("samples/policy.json", ["samples/traces"])
        path = _write(tmp_path, "samples.html", html)
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
    path = _write(
        tmp_path, "samples.html", streamed_html("samples/policy.json", ["samples/traces"])
    )
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
    source = _write(tmp_path, "long.json", json.dumps(trace))
    path = _write(tmp_path, "long.html", streamed_html("samples/policy.json", [str(source)]))
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
    path = _write(
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
    path = _write(tmp_path, "compare.html", render_compare_html(comparison, traces, OPTIONS))
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
        _cli(["validate", "--policy", f"{data}/policy.json", f"{data}/{side}", "--json-out",
              str(tmp_path / f"{side}.json"), "--quiet"])  # fmt: skip
    target = tmp_path / "compare.html"
    _cli(["compare", "--baseline", str(tmp_path / "baseline.json"), "--candidate",
          str(tmp_path / "candidate.json"), "--html-out", str(target), "--quiet"])  # fmt: skip
    page = Page(browser, target, shots)
    p = page.page
    assert "without the candidate's traces" in p.inner_text(".summary .banner")
    p.locator(".list .row").first.click()
    assert "without the traces themselves" in p.inner_text(".pane-detail")
    page.shot("compare-from-reports")
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
    source = _write(tmp_path, "huge.json", json.dumps(
        {"trace_id": "huge", "agent_name": "a", "workflow": "refund", "steps": steps}))  # fmt: skip
    monkeypatch.setattr(documents, "STREAM_MIN_BYTES", 1_000)  # streamed, as a big file is
    target = _cli_page(tmp_path, "huge.html", ["--policy", "samples/policy.json", str(source)])
    page = Page(browser, target, shots)
    p = page.page
    page.row("huge").click()
    assert "Trajectory (12,001 steps)" in p.inner_text(".pane-detail")
    assert "2,001 more steps not embedded" in p.inner_text(".pane-detail")
    page.shot("huge-trace-bounded-timeline", full_page=False)
    page.close()
