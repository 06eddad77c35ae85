"""The package version: the single source, read by the build (pyproject.toml) and at run time."""

from __future__ import annotations

__version__ = "1.0.0"
