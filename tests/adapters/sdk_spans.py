"""Render scenarios as span exports with the vendors' SDKs (offline, fixed clocks and ids).

openai-agents: TraceImpl/SpanImpl objects exported as the SDK's backend payload.
otel-genai: opentelemetry-sdk ReadableSpans encoded by the OTLP exporter, as OTLP/JSON.
"""

# The SDKs are an optional test extra: import them only when a fixture is built.
# ruff: noqa: PLC0415

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta
from typing import Any

from scenarios import Call, Scenario, Turn

BASE = datetime(2026, 1, 15, 9, 0, 0, tzinfo=UTC)
MODEL_MS = 700
TOOL_MS = 250


def _args(call: Call) -> str:
    return call.raw_args if call.raw_args is not None else json.dumps(call.args)


def _output(output: str | dict[str, Any]) -> str:
    return output if isinstance(output, str) else json.dumps(output)


def _timeline(s: Scenario) -> list[tuple[str, int, int, Any]]:
    """(kind, start ms, end ms, payload) in execution order; parallel calls overlap."""
    events: list[tuple[str, int, int, Any]] = []
    clock = 10
    results = s.results
    for event in s.events:
        if isinstance(event, Turn):
            events.append(("model", clock, clock + MODEL_MS, event))
            clock += MODEL_MS + 5
            for offset, call in enumerate(event.calls):
                start = clock + offset
                events.append(("tool", start, start + TOOL_MS, (call, results.get(call.call_id))))
            if event.calls:
                clock += TOOL_MS + len(event.calls) + 5
    return events


# --- OpenAI Agents SDK ---------------------------------------------------------------


def openai_agents(s: Scenario) -> dict[str, Any]:
    from agents.tracing.processor_interface import TracingProcessor
    from agents.tracing.span_data import AgentSpanData, FunctionSpanData, GenerationSpanData
    from agents.tracing.spans import SpanError, SpanImpl
    from agents.tracing.traces import TraceImpl

    class Keep(TracingProcessor):  # the export is built by hand below; nothing is sent
        def on_trace_start(self, trace: Any) -> None: ...
        def on_trace_end(self, trace: Any) -> None: ...
        def on_span_start(self, span: Any) -> None: ...
        def on_span_end(self, span: Any) -> None: ...
        def shutdown(self) -> None: ...
        def force_flush(self) -> None: ...

    keep = Keep()
    trace_id = f"trace_{s.name.replace('-', '')}{'0' * 24}"[:38]
    trace = TraceImpl("refund-support", trace_id, f"conv-{s.name}", {"scenario": s.name}, keep)
    spans: list[Any] = []

    def span(data: Any, start: int, end: int, parent: str | None, number: int) -> Any:
        made = SpanImpl(trace_id, f"span_{number:024x}", parent, keep, data, None)
        made._started_at = (BASE + timedelta(milliseconds=start)).isoformat()
        made._ended_at = (BASE + timedelta(milliseconds=end)).isoformat()
        spans.append(made)
        return made

    timeline = _timeline(s)
    agent = span(
        AgentSpanData(name="refund-agent", tools=["lookup_order", "search_kb", "issue_refund"]),
        0,
        timeline[-1][2] + 5,
        None,
        1,
    )
    history: list[dict[str, Any]] = [{"role": "user", "content": s.user}]
    for number, (kind, start, end, payload) in enumerate(timeline, start=2):
        if kind == "model":
            turn: Turn = payload
            message: dict[str, Any] = {"role": "assistant", "content": "".join(turn.texts) or None}
            if turn.calls:
                message["tool_calls"] = [
                    {
                        "id": c.call_id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": _args(c)},
                    }
                    for c in turn.calls
                ]
            data = GenerationSpanData(
                input=list(history),
                output=[message],
                model="gpt-4.1-mini",
                model_config={"temperature": 0.0},
                usage={"input_tokens": turn.usage[0], "output_tokens": turn.usage[1]},
            )
            history.append(message)
            span(data, start, end, agent.span_id, number)
        else:
            call, result = payload
            output = None if result is None or result.error else _output(result.output)
            made = span(
                FunctionSpanData(call.name, _args(call), output), start, end, agent.span_id, number
            )
            if result is not None and result.error:
                made.set_error(SpanError(message=result.error, data={"tool": call.name}))
            history.append({"role": "tool", "tool_call_id": call.call_id, "content": output or ""})
    exported = [trace.export()] + [sp.export() for sp in spans]
    return {"data": exported}


# --- OpenTelemetry GenAI (OTLP/JSON) -------------------------------------------------


def otel_genai(
    s: Scenario, tool_spans: bool = True, console: bool = False, proto: bool = False
) -> Any:
    """Without `tool_spans`, calls and results are known only from the chat spans'
    gen_ai.output.messages / gen_ai.input.messages (as chat-only instrumentations record).
    With `console`, the spans as the SDK's ConsoleSpanExporter writes them (to_json); with
    `proto`, the ExportTraceServiceRequest message itself (for binary fixtures)."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope
    from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

    trace_id = int.from_bytes(s.name.encode().ljust(16, b"\0")[:16], "big")
    resource = Resource({"service.name": "refund-service"})
    scope = InstrumentationScope("arh.fixtures", "1.0")
    base_ns = int(BASE.timestamp()) * 1_000_000_000

    def context(number: int) -> SpanContext:
        return SpanContext(trace_id, number, is_remote=False, trace_flags=TraceFlags(1))

    timeline = _timeline(s)
    root = context(1)
    history: list[dict[str, Any]] = [
        {"role": "user", "parts": [{"type": "text", "content": s.user}]}
    ]
    if s.orphan is not None:  # a result in the recorded history for a call never made
        part = {"type": "tool_call_response", "id": s.orphan.call_id, "response": s.orphan.output}
        history.append({"role": "tool", "parts": [part]})
    spans: list[Any] = [
        ReadableSpan(
            "invoke_agent refund-agent",
            root,
            None,
            resource,
            {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": "refund-agent",
                "gen_ai.provider.name": "openai",
            },
            kind=SpanKind.INTERNAL,
            instrumentation_scope=scope,
            start_time=base_ns,
            end_time=base_ns + (timeline[-1][2] + 5) * 1_000_000,
        )
    ]
    for number, (kind, start, end, payload) in enumerate(timeline, start=2):
        times = {"start_time": base_ns + start * 1_000_000, "end_time": base_ns + end * 1_000_000}
        if kind == "model":
            turn: Turn = payload
            parts: list[dict[str, Any]] = [{"type": "text", "content": t} for t in turn.texts]
            parts += [
                {"type": "tool_call", "id": c.call_id, "name": c.name, "arguments": c.args}
                for c in turn.calls
            ]
            history.append({"role": "assistant", "parts": parts})
            attrs = {
                "gen_ai.input.messages": json.dumps(history[:-1]),
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "gpt-4.1-mini",
                "gen_ai.response.model": "gpt-4.1-mini-2025-04-14",
                "gen_ai.usage.input_tokens": turn.usage[0],
                "gen_ai.usage.output_tokens": turn.usage[1],
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}]),
            }
            spans.append(
                ReadableSpan(
                    "chat gpt-4.1-mini",
                    context(number),
                    root,
                    resource,
                    attrs,
                    kind=SpanKind.CLIENT,
                    instrumentation_scope=scope,
                    **times,
                )
            )
        else:
            call, result = payload
            response = None if result is None else result.error or _output(result.output)
            history.append(
                {
                    "role": "tool",
                    "parts": [
                        {"type": "tool_call_response", "id": call.call_id, "response": response}
                    ],
                }
            )
            if not tool_spans:
                continue
            attrs = {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": call.name,
                "gen_ai.tool.call.id": call.call_id,
                "gen_ai.tool.call.arguments": _args(call),
            }
            status = Status(StatusCode.OK)
            if result is not None and result.error:
                attrs["error.type"] = "TimeoutError"
                status = Status(StatusCode.ERROR, result.error)
            elif result is not None:
                attrs["gen_ai.tool.call.result"] = _output(result.output)
            spans.append(
                ReadableSpan(
                    f"execute_tool {call.name}",
                    context(number),
                    root,
                    resource,
                    attrs,
                    kind=SpanKind.INTERNAL,
                    status=status,
                    instrumentation_scope=scope,
                    **times,
                )
            )
    if console:
        return [json.loads(span.to_json()) for span in spans]
    if proto:
        return encode_spans(spans)
    request = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
    return hex_ids(request)


def hex_ids(value: Any) -> Any:
    """OTLP/JSON writes trace and span ids as hex, where protobuf's JSON mapping uses base64."""
    if isinstance(value, dict):
        return {
            k: base64.b64decode(v).hex()
            if k in ("traceId", "spanId", "parentSpanId") and v
            else hex_ids(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [hex_ids(v) for v in value]
    return value
