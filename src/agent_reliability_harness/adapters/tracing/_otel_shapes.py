"""Span dumps other than OTLP/JSON proper, put in its shape so the otel-genai walk reads
them alike: the OpenTelemetry SDK's console exporter (`ReadableSpan.to_json()`:
`context.trace_id`, ISO times, plain attributes), protobuf's JSON printer with proto field
names (`resource_spans`, `string_value`), and ids printed as base64 instead of hex.
"""

from __future__ import annotations

import base64
import binascii
import calendar
from datetime import datetime
from typing import Any

_STATUS = {"UNSET": 0, "OK": 1, "ERROR": 2}


def is_console_span(value: Any) -> bool:
    """A span as the Python SDK's console exporter writes it (`context.trace_id`), or as
    the JavaScript SDK's `ReadableSpan` serialises (`spanContext.traceId`: what the Vercel
    AI SDK's telemetry and JSON span dumps hold)."""
    if not isinstance(value, dict) or not isinstance(value.get("attributes", {}), dict):
        return False
    context = value.get("context")
    if isinstance(context, dict) and "trace_id" in context and "span_id" in context:
        return True
    context = value.get("spanContext")
    return isinstance(context, dict) and "traceId" in context and "spanId" in context


def console_spans(value: Any) -> list[Any] | None:
    """The console-exporter spans of a document (one span or an array), else None."""
    if is_console_span(value):
        return [value]
    if isinstance(value, list) and value and all(is_console_span(v) for v in value[:1000]):
        return value
    return None


def to_otlp(span: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the span in OTLP/JSON shape, its resource attributes as a plain object)."""
    if "context" not in span:
        return _js_to_otlp(span)
    context = span["context"]
    raw_status = span.get("status")
    status: dict[str, Any] = raw_status if isinstance(raw_status, dict) else {}
    converted = _common(span, _STATUS.get(str(status.get("status_code")), 0))
    converted["traceId"] = _hex(context.get("trace_id"))
    converted["spanId"] = _hex(context.get("span_id"))
    converted["status"]["message"] = status.get("description")
    if isinstance(span.get("parent_id"), str):
        converted["parentSpanId"] = _hex(span["parent_id"])
    for key, field in (("start_time", "startTimeUnixNano"), ("end_time", "endTimeUnixNano")):
        nanos = _nanos(span.get(key))
        if nanos is not None:
            converted[field] = str(nanos)
    resource = span.get("resource")
    found = resource.get("attributes") if isinstance(resource, dict) else None
    return converted, found if isinstance(found, dict) else {}


def _common(span: dict[str, Any], code: Any) -> dict[str, Any]:
    """The name, attributes, status code and events of a span, in OTLP/JSON shape."""
    return {
        "name": span.get("name"),
        "attributes": encoded_attributes(span.get("attributes")),
        "status": {"code": code},
        "events": [
            {"name": e.get("name"), "attributes": encoded_attributes(e.get("attributes"))}
            for e in (span["events"] if isinstance(span.get("events"), list) else [])
            if isinstance(e, dict)
        ],
    }


def _js_to_otlp(span: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A JavaScript `ReadableSpan`: `spanContext {traceId, spanId}`, `parentSpanId` (SDK 1.x)
    or `parentSpanContext.spanId` (2.x), times as HrTime `[seconds, nanoseconds]`,
    `status {code, message}` (code as OTLP's), `resource.attributes`."""
    context = span["spanContext"]
    raw_status = span.get("status")
    status: dict[str, Any] = raw_status if isinstance(raw_status, dict) else {}
    code = status.get("code")
    converted = _common(span, code if isinstance(code, int) and code in (0, 1, 2) else 0)
    converted["traceId"] = context.get("traceId")
    converted["spanId"] = context.get("spanId")
    if isinstance(status.get("message"), str):
        converted["status"]["message"] = status["message"]
    parent = span.get("parentSpanContext")
    parent_id = parent.get("spanId") if isinstance(parent, dict) else span.get("parentSpanId")
    if isinstance(parent_id, str) and parent_id:
        converted["parentSpanId"] = parent_id
    for key, field in (("startTime", "startTimeUnixNano"), ("endTime", "endTimeUnixNano")):
        nanos = _hr_nanos(span.get(key))
        if nanos is not None:
            converted[field] = str(nanos)
    resource = span.get("resource")
    found = resource.get("attributes") if isinstance(resource, dict) else None
    return converted, found if isinstance(found, dict) else {}


def _hr_nanos(value: Any) -> int | None:
    """Nanoseconds of an OpenTelemetry JS HrTime `[seconds, nanoseconds]`."""
    if not isinstance(value, list) or len(value) != 2:
        return None
    seconds, nanos = value
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
        return None
    return int(seconds) * 1_000_000_000 + int(nanos) if nanos < 1_000_000_000 else None


def encoded_attributes(raw: Any) -> list[dict[str, Any]]:
    """Plain attributes as OTLP/JSON key-value pairs."""
    if not isinstance(raw, dict):
        return []
    return [{"key": str(k), "value": _encoded(v)} for k, v in raw.items()]


def _encoded(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list | tuple):
        return {"arrayValue": {"values": [_encoded(v) for v in value]}}
    if isinstance(value, dict):
        return {"kvlistValue": {"values": encoded_attributes(value)}}
    return {"stringValue": value if isinstance(value, str) else str(value)}


def _hex(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    return value[2:] if value.startswith("0x") else value


def _nanos(value: Any) -> int | None:
    """Nanoseconds of an ISO 8601 UTC time (the exporter writes microseconds and `Z`)."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.utcoffset() is None:
        return None
    seconds = calendar.timegm(moment.utctimetuple())
    return (seconds * 1_000_000 + moment.microsecond) * 1000


def resource_spans(value: Any) -> list[Any] | None:
    """The `resourceSpans` array of an OTLP/JSON request, also when protobuf printed it with
    proto field names (then every key of the request is put in lowerCamelCase: OTLP holds
    attributes as key/value lists, so no user key is a JSON object key)."""
    if not isinstance(value, dict):
        return None
    captured = _captured(value)
    if captured is not None:
        return captured
    if isinstance(value.get("resourceSpans"), list):
        return list(value["resourceSpans"])
    if isinstance(value.get("resource_spans"), list):
        return list(_camel(value["resource_spans"]))
    return None


# oteltest's capture of what its OTLP sink received: {"trace_requests": [{"pbreq": <an
# export request as protobuf's MessageToDict prints it>, "headers", "test_elapsed_ms"}],
# "metric_requests", "log_requests"}; metrics repeat the spans' usage (bookkeeping).
_CAPTURE_KEYS = {"trace_requests", "metric_requests", "log_requests"}


def _captured(value: dict[str, Any]) -> list[Any] | None:
    """The resourceSpans of every trace request of an oteltest capture, in order (None:
    not a capture, or one with logs, which no span format reads)."""
    requests = value.get("trace_requests")
    if (
        not isinstance(requests, list)
        or not set(value) <= _CAPTURE_KEYS
        or value.get("log_requests")
    ):
        return None
    found: list[Any] = []
    for request in requests:
        body = request.get("pbreq") if isinstance(request, dict) else None
        groups = resource_spans(body) if isinstance(body, dict) else None
        if groups is None:
            return None
        found.extend(groups)
    return found


def _camel(value: Any) -> Any:
    if isinstance(value, dict):
        return {_camel_key(k): _camel(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_camel(v) for v in value]
    return value


def _camel_key(key: Any) -> Any:
    if not isinstance(key, str):
        return key
    head, *rest = key.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def hex_id(value: Any, size: int) -> Any:
    """A trace (16 bytes) or span (8 bytes) id as hex: protobuf's JSON printer writes bytes
    as base64, which the OTLP/JSON encoding replaces by hex."""
    if not isinstance(value, str) or len(value) != 4 * ((size + 2) // 3) or "=" not in value:
        return value
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return value
    return raw.hex() if len(raw) == size else value


# --- decoding OTLP/JSON values ----------------------------------------------------


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
        return attributes_of(raw["kvlistValue"].get("values"))
    return raw.get("bytesValue")


def attributes_of(raw: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for entry in raw if isinstance(raw, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("key"), str):
            found[entry["key"]] = any_value(entry.get("value"))
    return found
