"""Adapters registry: recorded formats -> canonical trace objects.

ADAPTERS is ordered; `auto` detection tries them in that order and the first
match wins, so more specific formats come first.
"""

from __future__ import annotations

from typing import Any

from ..errors import AdapterError
from . import canonical
from .base import Adapter

ADAPTERS: tuple[Adapter, ...] = (canonical.ADAPTER,)
BY_NAME: dict[str, Adapter] = {a.name: a for a in ADAPTERS}
AUTO = "auto"
FORMAT_CHOICES: tuple[str, ...] = (AUTO, *BY_NAME)


def detect(value: Any) -> Adapter:
    """The first adapter that recognises the document; AdapterError listing formats if none."""
    for adapter in ADAPTERS:
        if adapter.detect(value):
            return adapter
    raise AdapterError(
        "unrecognised input format; expected one of: "
        + ", ".join(BY_NAME)
        + " (pass --format to choose)"
    )


def to_canonical(value: Any, fmt: str = AUTO, name_hint: str = "trace") -> list[Any]:
    """Canonical trace objects held by a decoded document in format `fmt` (or detected)."""
    if fmt == AUTO:
        # A canonical trace (or a list that holds any) is never mistaken for a transcript;
        # malformed canonical traces still reach the parser for a precise error.
        if value == [] or _canonical_shaped(value):
            return canonical.convert(value, name_hint)
        adapter = detect(value)
    else:
        adapter = BY_NAME.get(fmt)  # type: ignore[assignment]
        if adapter is None:
            raise AdapterError(
                f"unknown format '{fmt}'; expected one of: " + ", ".join(FORMAT_CHOICES)
            )
    return adapter.convert(value, name_hint)


_CANONICAL_KEYS = ("trace_id", "steps", "agent_name", "workflow")


def _canonical_shaped(value: Any) -> bool:
    """An object (or array of objects) using canonical top-level keys."""
    items = value if isinstance(value, list) else [value]
    return any(isinstance(v, dict) and any(k in v for k in _CANONICAL_KEYS) for v in items)


__all__ = ["ADAPTERS", "AUTO", "BY_NAME", "FORMAT_CHOICES", "Adapter", "detect", "to_canonical"]
