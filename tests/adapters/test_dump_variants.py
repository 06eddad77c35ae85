"""Every way an SDK can dump its objects reads the same: each response object of the
fixtures is loaded back into the vendor's class and dumped again with model_dump /
model_dump_json / to_dict / exclude_none / exclude_unset / by_alias; the conversion's
steps must not change."""

# The SDKs are an optional test extra: import them only where a test needs them.
# ruff: noqa: PLC0415

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.adapters import to_canonical

HERE = Path(__file__).resolve().parent
SDKS = ("openai", "anthropic", "cohere", "google.genai")
pytestmark = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in SDKS), reason="SDKs not installed"
)
FIELDS = ("type", "tool_name", "arguments", "text", "output", "status", "error")


def _classes() -> dict[str, Callable[[dict[str, Any]], Any]]:
    """format -> a function giving the SDK object for one item, or None to keep it."""
    import cohere
    from anthropic.types import Message
    from google.genai import types as g
    from openai.types.chat import ChatCompletion, ChatCompletionChunk
    from openai.types.responses import Response

    def chat(item: dict[str, Any]) -> Any:
        if item.get("object") == "chat.completion.chunk":
            return ChatCompletionChunk.model_validate(item)
        return ChatCompletion.model_validate(item) if "choices" in item else None

    def responses(item: dict[str, Any]) -> Any:
        return Response.model_validate(item) if item.get("object") == "response" else None

    def anthropic(item: dict[str, Any]) -> Any:
        return Message.model_validate(item) if item.get("type") == "message" else None

    def cohere_(item: dict[str, Any]) -> Any:
        if isinstance(item.get("message"), dict) and "role" not in item:
            return cohere.V2ChatResponse.model_validate(item)
        return None

    def gemini(item: dict[str, Any]) -> Any:
        if "candidates" in item:
            return g.GenerateContentResponse.model_validate(item)
        return g.Content.model_validate(item) if "parts" in item else None

    return {
        "openai-chat": chat,
        "openai-responses": responses,
        "anthropic-messages": anthropic,
        "cohere-chat": cohere_,
        "google-genai": gemini,
    }


DUMPS: dict[str, Callable[[Any], Any]] = {
    "model_dump": lambda o: o.model_dump(mode="json"),
    "exclude_none": lambda o: o.model_dump(mode="json", exclude_none=True),
    "exclude_unset": lambda o: o.model_dump(mode="json", exclude_unset=True),
    "by_alias": lambda o: o.model_dump(mode="json", by_alias=True),
    "model_dump_json": lambda o: json.loads(o.model_dump_json()),
    "to_dict": lambda o: o.to_dict() if hasattr(o, "to_dict") else o.model_dump(mode="json"),
    "to_json_dict": lambda o: (
        o.to_json_dict() if hasattr(o, "to_json_dict") else o.model_dump(mode="json")
    ),
}
CASES = [
    (path, dump)
    for path in sorted((HERE / "fixtures").rglob("*.json"))
    if path.parent.name
    in ("openai-chat", "openai-responses", "anthropic-messages", "cohere-chat", "google-genai")
    for dump in DUMPS
]


def _redump(value: Any, load: Callable[[dict[str, Any]], Any], dump: Callable[[Any], Any]) -> Any:
    from pydantic import ValidationError

    def one(item: Any) -> Any:
        try:
            sdk = load(item) if isinstance(item, dict) else None
        except ValidationError:  # edited by hand after the dump (multi-part content)
            return item
        return json.loads(json.dumps(dump(sdk))) if sdk is not None else item

    if isinstance(value, list):
        return [one(item) for item in value]
    if isinstance(value, dict):
        for key in ("messages", "contents", "input"):
            if isinstance(value.get(key), list):
                return {**value, key: [one(item) for item in value[key]]}
        return one(value)
    return value


def _steps(traces: list[Any]) -> list[Any]:
    return [[{k: _no_nulls(s.get(k)) for k in FIELDS} for s in t["steps"]] for t in traces]


def _no_nulls(value: Any) -> Any:
    """A value without null members (exclude_none drops them from raw tool outputs)."""
    if isinstance(value, dict):
        return {k: _no_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_no_nulls(v) for v in value]
    return value


def _tokens(traces: list[Any]) -> tuple[int, int]:
    steps = [s for t in traces for s in t["steps"]]
    return (
        sum(s.get("input_tokens") or 0 for s in steps),
        sum(s.get("output_tokens") or 0 for s in steps),
    )


@pytest.mark.parametrize(("path", "dump"), CASES, ids=lambda v: getattr(v, "name", v))
def test_dump_variant_reads_the_same(path: Path, dump: str) -> None:
    fmt = path.parent.name
    value = json.loads(path.read_text(encoding="utf-8"))
    variant = _redump(value, _classes()[fmt], DUMPS[dump])
    reference = to_canonical(value, fmt, "v")
    converted = to_canonical(variant, "auto", "v")
    assert {t["source"] for t in converted} == {fmt}
    assert _steps(converted) == _steps(reference)
    assert _tokens(converted) == _tokens(reference)


# protobuf's own JSON printer writes ids as base64 (OTLP/JSON says hex) and, as asked,
# proto field names (resource_spans) and enum names (STATUS_CODE_ERROR).
OTLP_PRINTS: dict[str, dict[str, bool]] = {
    "proto_field_names": {"preserving_proto_field_name": True},
    "enum_names": {"use_integers_for_enums": False},
    "base64_ids": {},
}


def _otlp_again(value: Any, options: dict[str, bool]) -> Any:
    """An OTLP/JSON fixture parsed into the protobuf request and printed again."""
    import base64

    from google.protobuf.json_format import MessageToDict, ParseDict
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    def to_base64(node: Any) -> Any:
        if isinstance(node, dict):
            return {
                k: base64.b64encode(bytes.fromhex(v)).decode()
                if k in ("traceId", "spanId", "parentSpanId") and v
                else to_base64(v)
                for k, v in node.items()
            }
        return [to_base64(v) for v in node] if isinstance(node, list) else node

    request = ParseDict(to_base64(value), ExportTraceServiceRequest())
    return MessageToDict(request, **options)


OTEL_CASES = [
    (path, name)
    for path in sorted((HERE / "fixtures" / "otel-genai").glob("*.json"))
    if path.stem != "console-exporter"
    for name in OTLP_PRINTS
]


@pytest.mark.parametrize(("path", "printing"), OTEL_CASES, ids=lambda v: getattr(v, "name", v))
def test_otlp_printed_by_protobuf_reads_the_same(path: Path, printing: str) -> None:
    pytest.importorskip("opentelemetry.proto")
    value = json.loads(path.read_text(encoding="utf-8"))
    variant = _otlp_again(value, OTLP_PRINTS[printing])
    reference = to_canonical(value, "otel-genai", "v")
    converted = to_canonical(variant, "auto", "v")
    assert _steps(converted) == _steps(reference)
    assert _tokens(converted) == _tokens(reference)
    assert [t["trace_id"] for t in converted] == [t["trace_id"] for t in reference]
