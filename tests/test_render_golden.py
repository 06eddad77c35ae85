"""Golden files for the CI renderers; regenerate with ARH_UPDATE_GOLDEN=1 and review the diff."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_reliability_harness.models.report import RunReport
from agent_reliability_harness.render import RenderOptions, get_renderer

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = [
    (run, name) for run in ("samples", "mixed", "agents") for name in ("md", "junit", "sarif")
] + [("agents", "console"), ("agents", "json")]  # policy v1.2: each finding's agent, every format
CASES += [("claims", name) for name in ("md", "sarif", "json")]  # v1.3: the call a claim checked


@pytest.mark.parametrize(("run", "name"), CASES)
def test_matches_golden(
    run: str, name: str, report_of: Callable[[str], RunReport], options: RenderOptions
) -> None:
    renderer = get_renderer("run", name)
    text = renderer.render(report_of(run), options)
    path = GOLDEN / name / f"{run}{renderer.suffix}"
    if os.environ.get("ARH_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    assert text.encode("utf-8") == path.read_bytes(), f"{path} is stale (ARH_UPDATE_GOLDEN=1)"


@pytest.mark.parametrize(("run", "name"), CASES)
def test_two_renders_are_identical(
    run: str, name: str, report_of: Callable[[str], RunReport], options: RenderOptions
) -> None:
    renderer = get_renderer("run", name)
    assert renderer.render(report_of(run), options) == renderer.render(report_of(run), options)
