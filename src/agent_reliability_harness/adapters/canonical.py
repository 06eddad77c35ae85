"""The "arh" format: canonical traces, as one object or an array of them (identity)."""

from __future__ import annotations

from typing import Any

from ..errors import AdapterError
from ..models.common import type_name
from .base import Adapter


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


ADAPTER = Adapter(
    name="arh",
    description="canonical ARH traces (TRACE-SPEC.md): one object or an array",
    detect=detect,
    convert=convert,
)
