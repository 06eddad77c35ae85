"""OTLP/JSON span reading shared by the span formats (otel-genai, openinference): AnyValue and
attribute decoding, spans grouped by traceId in file order, nanosecond times and latency."""

from __future__ import annotations

from typing import Any

from ._common import arr, fail, obj, opt_list, opt_str

# (location, span, resource attributes) of one span.
Located = tuple[str, dict[str, Any], dict[str, Any]]
STATUS_ERROR = (2, "STATUS_CODE_ERROR")


def detect(value: Any) -> bool:
    """An object with `resourceSpans` (the OTLP/JSON export request the Collector's file
    exporter writes)."""
    return isinstance(value, dict) and isinstance(value.get("resourceSpans"), list)


def any_value(raw: Any) -> Any:
    """Decode an OTLP/JSON AnyValue (64-bit integers arrive as strings)."""
    if not isinstance(raw, dict):
        return None
    if "stringValue" in raw:
        return raw["stringValue"]
    if "boolValue" in raw:
        return raw["boolValue"]
    if "intValue" in raw:
        value = raw["intValue"]
        try:
            return int(value)
        except (TypeError, ValueError):
            return value
    if "doubleValue" in raw:
        return raw["doubleValue"]
    if "arrayValue" in raw and isinstance(raw["arrayValue"], dict):
        values = raw["arrayValue"].get("values")
        return [any_value(v) for v in values] if isinstance(values, list) else []
    if "kvlistValue" in raw and isinstance(raw["kvlistValue"], dict):
        return attributes(raw["kvlistValue"].get("values"))
    return raw.get("bytesValue")


def attributes(raw: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for entry in raw if isinstance(raw, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("key"), str):
            found[entry["key"]] = any_value(entry.get("value"))
    return found


def iter_spans(value: Any, limit: int | None = None) -> list[dict[str, Any]]:
    """Span objects of an export (at most `limit`), for detection: never raises."""
    found: list[dict[str, Any]] = []
    for rs in _list(value, "resourceSpans"):
        for scope in _list(rs, "scopeSpans"):
            for span in _list(scope, "spans"):
                if isinstance(span, dict):
                    found.append(span)
                    if limit is not None and len(found) >= limit:
                        return found
    return found


def _list(value: Any, key: str) -> list[Any]:
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, list) else []


def spans_by_trace(value: Any) -> dict[str, list[Located]]:
    """Every span of an export request, grouped by traceId (first-seen order)."""
    root = obj(value, "$")
    grouped: dict[str, list[Located]] = {}
    for r, raw_rs in enumerate(arr(root.get("resourceSpans"), "resourceSpans")):
        at_r = f"resourceSpans[{r}]"
        resource_spans = obj(raw_rs, at_r)
        resource = attributes(
            (resource_spans.get("resource") or {}).get("attributes")
            if isinstance(resource_spans.get("resource"), dict)
            else None
        )
        for s, scope in enumerate(opt_list(resource_spans, "scopeSpans", at_r)):
            at_s = f"{at_r}.scopeSpans[{s}]"
            for n, raw in enumerate(opt_list(obj(scope, at_s), "spans", at_s)):
                at = f"{at_s}.spans[{n}]"
                span = obj(raw, at)
                trace_id = opt_str(span, "traceId", at) or ""
                grouped.setdefault(trace_id, []).append((at, span, resource))
    return grouped


def hints(grouped: dict[str, Any], name_hint: str) -> list[str]:
    """Fallback names of the traces of one file: the stem, or `<stem>-<n>` for several."""
    multi = len(grouped) > 1
    return [f"{name_hint}-{i}" if multi else name_hint for i in range(1, len(grouped) + 1)]


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


# (location, span, attributes, resource attributes) of one span, attributes decoded.
Decoded = tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]


def ordered(spans: list[Located]) -> list[Decoded]:
    """(location, span, attributes, resource) in start-time order (file order breaks ties)."""
    timed = [
        (nanos(s, "startTimeUnixNano", at) or 0, i, at, s, attributes(s.get("attributes")), res)
        for i, (at, s, res) in enumerate(spans)
    ]
    timed.sort(key=lambda t: (t[0], t[1]))
    return [(at, s, attrs, res) for _, _, at, s, attrs, res in timed]
