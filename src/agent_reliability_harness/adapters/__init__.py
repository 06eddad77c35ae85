"""Adapters: recorded formats -> canonical trace objects (docs/adapters.md).

The public surface of the adapters stage, laid out as:
- `core/`: the machinery (the Adapter and Evidence declarations, the registry, format
  plugins, one-pass detection, selection and refusals, the TraceBuilder);
- the format families: `coding/` (coding-agent CLIs), `providers/` (provider SDK and
  protocol messages), `tracing/` (tracing exports), `frameworks/` (agent frameworks),
  `harnesses/` (benchmark harnesses), one module per format.
A document is read in one pass: core/read.py asks core/detect.py for every format's
claim (each once), picks once, converts once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..io import TRACE_SUFFIXES
from .core.base import Adapter, Evidence
from .core.detect import CONSOLE_SPANS
from .core.exports import EXPORT_MARKERS, export_kind, merge_exports
from .core.plugins import plugins
from .core.read import (
    AUTO,
    Identity,
    checked,
    claimants,
    convert_session,
    detect,
    envelope_of,
    format_names,
    session_format,
    session_formats,
    to_canonical,
)
from .core.registry import ADAPTERS, BY_NAME, ENVELOPES

# Binary container formats: file suffix -> the reader that decodes such a file into
# documents (the first adapter declaring a suffix owns it; otel-genai and openinference
# share one protobuf reader). Directory walks pick up every declared suffix.
FILE_READERS: dict[str, Callable[[bytes], list[Any]]] = {}
for _adapter in ADAPTERS:
    if _adapter.read_file is not None:
        for _suffix in _adapter.suffixes:
            FILE_READERS.setdefault(_suffix, _adapter.read_file)


def walk_suffixes() -> tuple[str, ...]:
    """The file suffixes a directory walk picks up: `.json`, `.jsonl` and every suffix the
    formats declare, plugin formats' included (read when asked)."""
    every = (*ADAPTERS, *plugins().formats)
    return tuple(dict.fromkeys((*TRACE_SUFFIXES, *(x for a in every for x in a.suffixes))))


WALK_SUFFIXES: tuple[str, ...] = tuple(
    dict.fromkeys((*TRACE_SUFFIXES, *(x for a in ADAPTERS for x in a.suffixes)))
)


class _Choices(tuple[str, ...]):
    """`--format`'s choices: `auto`, the built-in formats, and any installed plugin format
    (its name read from its entry point when a name is not a built-in one)."""

    def __contains__(self, name: object) -> bool:
        return tuple.__contains__(self, name) or name in format_names()


FORMAT_CHOICES: tuple[str, ...] = _Choices((AUTO, *BY_NAME))

if TYPE_CHECKING:
    from .core.builder import TraceBuilder


def __getattr__(name: str) -> Any:
    """`TraceBuilder`, what a format (a plugin's too) maps with, imported when asked."""
    if name == "TraceBuilder":
        from .core.builder import TraceBuilder  # noqa: PLC0415 - not on the canonical path

        return TraceBuilder
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ADAPTERS",
    "AUTO",
    "BY_NAME",
    "CONSOLE_SPANS",
    "ENVELOPES",
    "EXPORT_MARKERS",
    "FILE_READERS",
    "FORMAT_CHOICES",
    "WALK_SUFFIXES",
    "Adapter",
    "Evidence",
    "Identity",
    "TraceBuilder",
    "checked",
    "claimants",
    "convert_session",
    "detect",
    "envelope_of",
    "export_kind",
    "format_names",
    "merge_exports",
    "session_format",
    "session_formats",
    "to_canonical",
    "walk_suffixes",
]
