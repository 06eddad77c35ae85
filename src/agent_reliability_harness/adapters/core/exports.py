"""Span exports that arrive in batches (one per JSONL line, or a JSON array of OTLP
requests): which export a document is a batch of, and the one export the batches make.
Imports no format module until a span export is joined."""

from __future__ import annotations

from typing import Any

from .detect import CONSOLE_SPANS, scan
from .registry import BY_NAME

# Byte markers of a JSONL line that may be one batch of a span export (see export_kind);
# `"trace_state"` is in every span the OpenTelemetry SDK's console exporter writes.
EXPORT_MARKERS: tuple[bytes, ...] = (
    b'"resourceSpans"',
    b'"object"',
    b'"data"',
    b'"trace_state"',
)
_OTEL = BY_NAME["otel-genai"].name


def export_kind(value: Any) -> str | None:
    """The span-export format of a document ("otel-genai", "openai-agents") or None.
    Such exports arrive in batches (one per JSONL line) that `merge_exports` joins. The
    claims asked are kept for the document's conversion (core/detect.py)."""
    return scan(value, keep=True).export_kind()


def joined_requests(value: Any) -> Any:
    """A JSON array of OTLP export requests as the one export they make, as when the same
    requests are the lines of a JSONL file."""
    if not isinstance(value, list) or not value or not isinstance(value[0], dict):
        return value
    if "resourceSpans" not in value[0] or not all(scan(v).export_kind() == _OTEL for v in value):
        return value
    return merge_exports(_OTEL, value)


def merge_exports(kind: str, values: list[Any]) -> Any:
    """One export holding the batches of `values` (all of span-export `kind`), in order."""
    if kind == CONSOLE_SPANS:
        return list(values)  # one console-exporter span per line
    if kind == _OTEL:
        from ..tracing._otel_shapes import resource_spans  # noqa: PLC0415 - span exports only

        return {"resourceSpans": [rs for v in values for rs in resource_spans(v) or []]}
    items: list[Any] = []
    for value in values:
        items.extend(value["data"] if isinstance(value.get("data"), list) else [value])
    return {"data": items}
