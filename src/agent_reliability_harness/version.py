"""The package version, read once from the installed package metadata (single source)."""

from __future__ import annotations

from importlib import metadata

try:
    __version__ = metadata.version("agent-reliability-harness")
except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare source tree
    __version__ = "0+unknown"
