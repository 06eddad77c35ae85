"""The adapter declaration: a named, pure converter from a recorded format to canonical traces."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Adapter:
    """`detect(value)` says whether a decoded document is in this format; `convert(value,
    name_hint)` returns the canonical trace objects it holds (dicts, parsed later)."""

    name: str
    description: str
    detect: Callable[[Any], bool]
    convert: Callable[[Any, str], list[Any]]
