"""RENDERERS: output formats by name. A new format is one module plus one entry here."""

from __future__ import annotations

from . import console, json_
from .base import Renderer, RenderOptions

RENDERERS: dict[str, Renderer] = {r.name: r for r in (console.RENDERER, json_.RENDERER)}


def file_renderers(kind: str) -> tuple[Renderer, ...]:
    """Renderers of a kind that write files (`--<name>-out`), in registry order."""
    return tuple(r for r in RENDERERS.values() if r.kind == kind and r.name != "console")


__all__ = ["RENDERERS", "RenderOptions", "Renderer", "file_renderers"]
