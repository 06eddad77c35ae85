"""Binary OTLP trace exports (`.pb`, `.binpb`) decoded into protobuf's JSON printing of the
request, which the span formats read (_otlp: ids in base64 are turned to hex there). Needs
the optional `otlp` extra (opentelemetry-proto), imported on first use."""

from __future__ import annotations

from typing import Any

from ...errors import InputError
from ...version import DISTRIBUTION

SUFFIXES = (".pb", ".binpb")
MISSING_EXTRA = f"reading OTLP protobuf needs the 'otlp' extra: pip install '{DISTRIBUTION}[otlp]'"


def read(data: bytes) -> list[Any]:
    """The export requests of a binary file as one OTLP/JSON document (their resourceSpans
    joined in order, so a trace split across messages converts whole).

    Three layouts are read: one bare `ExportTraceServiceRequest` (an SDK's encoder, an
    HTTP request body); messages each prefixed by a 4-byte big-endian length (the
    Collector's file exporter with `format: proto`); and varint-delimited messages
    (the OTLP file-exporter specification). A bare request always starts with byte
    0x0a (field 1) and a 4-byte prefix with 0x00, so the first byte tells them apart.
    """
    request_type, message_to_dict = _classes()
    if not data:
        raise InputError("empty file: no OTLP protobuf message")
    frames = _frames(data)
    resource_spans: list[Any] = []
    for number, frame in enumerate(frames, start=1):
        request = request_type()
        try:
            request.ParseFromString(frame)
        except Exception as exc:  # protobuf's DecodeError; any failure is a bad input
            where = f"message {number}: " if len(frames) > 1 else ""
            raise InputError(
                f"{where}not an OTLP ExportTraceServiceRequest ({type(exc).__name__}: {exc})"
            ) from None
        value = message_to_dict(request, use_integers_for_enums=True)
        resource_spans.extend(value.get("resourceSpans", []))
    return [{"resourceSpans": resource_spans}]


def _classes() -> tuple[Any, Any]:
    try:
        # Optional extra: imported only when a protobuf file is read.
        from google.protobuf.json_format import MessageToDict  # noqa: PLC0415
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (  # noqa: PLC0415
            ExportTraceServiceRequest,
        )
    except ImportError:
        raise InputError(MISSING_EXTRA) from None
    return ExportTraceServiceRequest, MessageToDict


def _frames(data: bytes) -> list[bytes]:
    if data[0] == 0x0A:
        return [data]
    fixed = data[0] == 0x00
    frames: list[bytes] = []
    at = 0
    while at < len(data):
        if fixed:
            size, start = int.from_bytes(data[at : at + 4], "big"), at + 4
        else:
            size, start = _varint(data, at)
        if start + size > len(data) or start > len(data):
            kind = "4-byte length" if fixed else "varint length"
            raise InputError(
                f"not an OTLP protobuf export: the {kind} prefix at byte {at} runs past the end"
            )
        frames.append(data[start : start + size])
        at = start + size
    return frames


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while at < len(data) and shift < 64:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if not byte & 0x80:
            return value, at
        shift += 7
    raise InputError("not an OTLP protobuf export: a length prefix is not a valid varint")
