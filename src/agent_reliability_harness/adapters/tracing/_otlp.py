"""OTLP span reading shared by the span formats (otel-genai, openinference): the spans of an
export in every shape we accept (OTLP/JSON, protobuf's JSON printing, console-exporter
spans; see _otel_shapes), grouped by trace id, in start-time order, with their times,
status and ids. The formats only interpret attributes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..core.agents import SpanTree
from ..core.common import arr, fail, obj, opt_list, opt_str
from ._otel_shapes import attributes_of, console_spans, hex_id, resource_spans, to_otlp

# (location, span, resource attributes) of one span, in OTLP/JSON shape.
Located = tuple[str, dict[str, Any], dict[str, Any]]
# (location, span, attributes, resource attributes) of one span, attributes decoded.
Decoded = tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]
STATUS_ERROR = (2, "STATUS_CODE_ERROR")


def is_export(value: Any) -> bool:
    """A span export of any shape this module reads (detection only looks, never raises)."""
    return resource_spans(value) is not None or console_spans(value) is not None


def attribute_keys(value: Any, limit: int = 1000) -> Iterator[str]:
    """The attribute keys of the first `limit` spans of an export, for detection: never
    raises on malformed input."""
    console = console_spans(value)
    if console is not None:
        for span in console[:limit]:
            attrs = span.get("attributes")
            if isinstance(attrs, dict):
                yield from (str(k) for k in attrs)
        return
    seen = 0
    for group in resource_spans(value) or []:
        for scope in _list(group, "scopeSpans"):
            for span in _list(scope, "spans"):
                seen += 1
                if seen > limit:
                    return
                for entry in _list(span, "attributes"):
                    if isinstance(entry, dict) and isinstance(entry.get("key"), str):
                        yield entry["key"]


def _list(value: Any, key: str) -> list[Any]:
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, list) else []


def located(value: Any) -> list[Located]:
    """Every span of an export, in file order, as OTLP/JSON: console-exporter spans are put
    in that shape, protobuf's field names are read as OTLP/JSON's."""
    console = console_spans(value)
    if console is not None:
        found = []
        for n, span in enumerate(console):
            converted, resource = to_otlp(span)
            found.append((f"[{n}]" if len(console) > 1 or n else "$", converted, resource))
        return found
    obj(value, "$")
    spans: list[Located] = []
    for r, raw_rs in enumerate(arr(resource_spans(value), "resourceSpans")):
        at_r = f"resourceSpans[{r}]"
        group = obj(raw_rs, at_r)
        holder = group.get("resource")
        resource = attributes_of(holder.get("attributes") if isinstance(holder, dict) else None)
        for s, scope in enumerate(opt_list(group, "scopeSpans", at_r)):
            at_s = f"{at_r}.scopeSpans[{s}]"
            for n, raw in enumerate(opt_list(obj(scope, at_s), "spans", at_s)):
                at = f"{at_s}.spans[{n}]"
                spans.append((at, obj(raw, at), resource))
    return spans


def spans_by_trace(value: Any) -> dict[str, list[Located]]:
    """Every span of an export, grouped by trace id (hex; first-seen order)."""
    grouped: dict[str, list[Located]] = {}
    for at, span, resource in located(value):
        trace_id = hex_id(opt_str(span, "traceId", at), 16) or ""
        grouped.setdefault(trace_id, []).append((at, span, resource))
    return grouped


def hints(grouped: dict[str, Any], name_hint: str) -> list[str]:
    """Fallback names of the traces of one file: the stem, or `<stem>-<n>` for several."""
    multi = len(grouped) > 1
    return [f"{name_hint}-{i}" if multi else name_hint for i in range(1, len(grouped) + 1)]


def span_id(span: dict[str, Any], at: str) -> Any:
    """The span's id as hex (protobuf's JSON printing writes it in base64)."""
    return hex_id(opt_str(span, "spanId", at), 8)


def parent_id(span: dict[str, Any]) -> Any:
    """The parent span's id as hex, or None for a root span (OTLP/JSON writes "")."""
    raw = span.get("parentSpanId")
    return hex_id(raw, 8) if isinstance(raw, str) and raw else None


def nanos(span: dict[str, Any], key: str, at: str) -> int | None:
    raw = span.get(key)
    if raw is None:
        return None
    digits = isinstance(raw, str) and raw.isascii() and raw.isdigit() and len(raw) <= 20
    if not digits and (isinstance(raw, bool) or not isinstance(raw, int)):
        raise fail(f"{at}.{key}", f"expected nanoseconds since the epoch (got {raw!r:.40})")
    value = int(raw)
    if not 0 <= value < 2**64:
        raise fail(f"{at}.{key}", "expected nanoseconds in the unsigned 64-bit range")
    return value


def latency(span: dict[str, Any], at: str) -> float | None:
    start, end = nanos(span, "startTimeUnixNano", at), nanos(span, "endTimeUnixNano", at)
    if start is None or end is None or end < start or start == 0:
        return None
    return (end - start) / 1_000_000


def is_error(span: dict[str, Any]) -> bool:
    status = span.get("status")
    return isinstance(status, dict) and status.get("code") in STATUS_ERROR


def status_message(span: dict[str, Any]) -> str | None:
    status = span.get("status")
    message = status.get("message") if isinstance(status, dict) else None
    return message if isinstance(message, str) and message else None


def own_attributes(span: dict[str, Any]) -> dict[str, Any]:
    return attributes_of(span.get("attributes"))


def ordered(
    spans: list[Located], read: Callable[[dict[str, Any]], dict[str, Any]] = own_attributes
) -> list[Decoded]:
    """(location, span, attributes, resource) in start-time order (file order breaks ties);
    `read` gives a span's attributes (a format may complete them from its events)."""
    timed = [
        (nanos(s, "startTimeUnixNano", at) or 0, i, at, s, read(s), res)
        for i, (at, s, res) in enumerate(spans)
    ]
    timed.sort(key=lambda t: (t[0], t[1]))
    return [(at, s, attrs, res) for _, _, at, s, attrs, res in timed]


def own_id(span: dict[str, Any]) -> str | None:
    """The span's id as hex, None when it has no usable one (never an error)."""
    raw = span.get("spanId")
    found = hex_id(raw, 8) if isinstance(raw, str) and raw else None
    return found if isinstance(found, str) else None


def agent_tree(
    timed: list[Decoded], agent: Callable[[dict[str, Any], dict[str, Any]], str | None]
) -> SpanTree:
    """The span tree of a trace and its agent spans (`agent(span, attributes)` names the
    agent a span runs, or gives None for a span that is not an agent span)."""
    return SpanTree.of(
        [(own_id(span), _parent(span), agent(span, attrs)) for _, span, attrs, _ in timed]
    )


def _parent(span: dict[str, Any]) -> str | None:
    parent = parent_id(span)
    return parent if isinstance(parent, str) else None
