"""Policy v1.2 multi-agent traces in the HTML report, in a real browser (see
test_html_browser.py): each step shows its agent, a step sits under the step it ran under
(`parent_step_id`), and a finding of an agent entry names its agent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import Page, write
from html_helpers import streamed_html

pytestmark = pytest.mark.usefixtures("at_repo_root")

AGENTS = ("tests/data/agents/policy.json", ["tests/data/agents/traces"])


@pytest.fixture
def agents_page(browser: Any, shots: list[Path], tmp_path: Path) -> Iterator[Page]:
    page = Page(browser, write(tmp_path, "agents.html", streamed_html(*AGENTS)), shots, "writer")
    yield page
    page.close()


def test_children_nest_under_their_parent_step(agents_page: Page) -> None:
    page = agents_page.page
    agents_page.row("handoff-1").click()
    # r1..r3 ran under o2 (#step-1); w1 under o3 (#step-5), and w2 under w1 (#step-6).
    nested = "#step-1 > ol.children > li.step"
    assert page.locator(nested).evaluate_all("cards => cards.map(c => c.id)") == [
        "step-2",
        "step-3",
        "step-4",
    ]
    assert page.locator("#step-6 > ol.children > #step-7").count() == 1
    assert page.locator("#step-5 > ol.children > #step-6").count() == 1
    assert page.locator("#step-5 > ol.children > #step-8").count() == 1  # x1, under o3
    # Steps without a parent stay at the top of the timeline, in trace order.
    top = page.locator(".pane-detail ol.timeline:not(.children) > li.step")
    assert top.evaluate_all("cards => cards.map(c => c.id)") == [
        "step-0",
        "step-1",
        "step-5",
        "step-9",
    ]
    agents_page.shot("agents-nested-trajectory")


def test_each_step_and_agent_finding_shows_its_agent(agents_page: Page) -> None:
    page = agents_page.page
    agents_page.row("handoff-1").click()
    # A step without `agent` is the trace's agent_name's.
    assert page.inner_text("#step-0 > .step-head .agent") == "agent orchestrator"
    assert page.inner_text("#step-3 > .step-head .agent") == "agent researcher"
    card = page.locator("#step-3 > .finding")
    assert "ARH-SCH-001" in card.inner_text()
    assert card.locator(".agent").inner_text() == "researcher"
    # The forbidden call is a top-level finding: no agent on it.
    assert page.locator("#step-7 > .finding .agent").count() == 0


def test_a_single_agent_trace_shows_no_agents(
    browser: Any, shots: list[Path], tmp_path: Path
) -> None:
    html = streamed_html("samples/policy.json", ["samples/traces"])
    page = Page(browser, write(tmp_path, "samples.html", html), shots, "writer")
    try:
        page.row("flow-fail-0008").click()
        assert page.page.locator(".step-head .agent").count() == 0
        assert page.page.locator("ol.children").count() == 0
    finally:
        page.close()
