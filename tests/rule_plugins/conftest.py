"""The example plugin installed once per session (tests/rule_plugins/plugin_helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_helpers import install_example


@pytest.fixture(scope="session")
def example_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("example-site")
    install_example(site)
    return site
