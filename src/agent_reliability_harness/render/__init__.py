"""RENDERERS: output formats by kind ("run" or "compare") and name.

A new format is one module plus one entry here; the CLI builds its
`--<name>-out` flags from this registry.
"""

from __future__ import annotations

from . import (
    compare_console,
    compare_json,
    compare_markdown,
    console,
    html_report,
    json_,
    junit,
    markdown,
    sarif,
)
from .base import Renderer, RenderOptions

_ALL: tuple[Renderer, ...] = (
    console.RENDERER,
    json_.RENDERER,
    markdown.RENDERER,
    junit.RENDERER,
    sarif.RENDERER,
    html_report.RUN_RENDERER,
    compare_console.RENDERER,
    compare_json.RENDERER,
    compare_markdown.RENDERER,
    html_report.COMPARE_RENDERER,
)

RENDERERS: dict[str, dict[str, Renderer]] = {}
for _renderer in _ALL:
    RENDERERS.setdefault(_renderer.kind, {})[_renderer.name] = _renderer


def get_renderer(kind: str, name: str) -> Renderer:
    """The renderer of this kind and name; KeyError if there is none."""
    return RENDERERS[kind][name]


def file_renderers(kind: str) -> tuple[Renderer, ...]:
    """Renderers of a kind that write files (`--<name>-out`), in registry order."""
    return tuple(r for r in RENDERERS.get(kind, {}).values() if r.name != "console")


__all__ = ["RENDERERS", "RenderOptions", "Renderer", "file_renderers", "get_renderer"]
