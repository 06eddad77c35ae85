"""The package version: the single source, read by the build (pyproject.toml) and at run time."""

from __future__ import annotations

__version__ = "1.0.0"
# The name on PyPI (pyproject.toml `name`), for install hints (`pip install 'arh-harness[yaml]'`).
DISTRIBUTION = "arh-harness"
