"""The example format plugin installed once per session (format_helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from format_helpers import install_example


@pytest.fixture(scope="session")
def example_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("format-site")
    install_example(site)
    return site
