"""The "arh" format: canonical traces, as one object or an array of them (identity)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...errors import AdapterError
from ...models.common import type_name
from .base import Adapter, Evidence


def _is_trace_like(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and "steps" in value
        and ("trace_id" in value or "agent_name" in value or "workflow" in value)
    )


def detect(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value) and all(_is_trace_like(v) for v in value)
    return _is_trace_like(value)


def convert(value: Any, name_hint: str) -> list[Any]:
    if isinstance(value, list):
        return list(value)
    if isinstance(value, dict):
        return [value]
    raise AdapterError(f"expected a trace object or an array of traces (got {type_name(value)})")


def explicit(value: Any, name_hint: str, claimants: Callable[[Any], list[Adapter]]) -> list[Any]:
    """`--format arh`: the traces as given (the parser says what is wrong with them), unless
    no item has `steps`: then the document holds no canonical trace at all and is refused
    as such, naming the transcript format it looks like."""
    items = value if isinstance(value, list) else [value]
    if isinstance(value, dict) and "steps" in value and not _is_trace_like(value):
        # `steps` without any trace label: a transcript format's own (an ATIF trajectory)?
        names = [a.name for a in claimants(value)]
        if names:
            raise AdapterError(
                f"not an arh transcript: it looks like {names[0]}; pass --format {names[0]}"
            )
    if items and not any(isinstance(v, dict) and "steps" in v for v in items[:1000]):
        names = [a.name for a in claimants(value)]
        why = 'not an arh transcript: no canonical trace (no "steps")'
        if names:
            looks = names[0] if len(names) == 1 else "one of " + ", ".join(names)
            why += f", and it looks like {looks}; pass --format {names[0]}"
        raise AdapterError(why)
    return convert(value, name_hint)


ADAPTER = Adapter(
    name="arh",
    description="canonical ARH traces (TRACE-SPEC.md): one object or an array",
    detect=detect,
    convert=convert,
    family="core",
    evidence=Evidence(marks=("steps", "trace_id", "agent_name", "workflow"), own=True),
)
