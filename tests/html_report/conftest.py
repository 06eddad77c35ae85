"""Fixtures of the browser tests: one chromium per module, and the screenshots kept."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import ARGS, ARTIFACTS, CHROMIUM, missing

from helpers import IN_CI


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    reason = missing()
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
