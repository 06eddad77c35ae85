"""OTLP exports in three instrumentations' conventions, built with opentelemetry-sdk's
ReadableSpan and the OTLP encoder (and LangChain's own `dumpd` for LangSmith's run
payloads), to the attributes each project documents:

- `capture`: the spans as oteltest's sink saves what it received
  ({"trace_requests": [{"pbreq": MessageToDict(request), "headers", "test_elapsed_ms"}],
  "metric_requests", "log_requests"}; ids in base64, enums by name).
- `openlit`: OpenLit's OpenAI span (content in `gen_ai.content.prompt` /
  `gen_ai.content.completion` events, as plain `role: text` lines and plain text) inside
  its LangChain span of the same call.
- `langsmith`: LangSmith's OTel exporter: `langsmith.span.kind` is the run type, the run's
  inputs and outputs are JSON in `gen_ai.prompt` / `gen_ai.completion`, a model run is
  labelled `gen_ai.operation.name: chain` and a prompt template `chat`.
"""

# The SDKs are an optional test extra: import them only when a fixture is built.
# ruff: noqa: PLC0415

from __future__ import annotations

import json
from typing import Any

BASE_NS = 1_768_467_600_000_000_000
TRACE_ID = 0x4F5D7C1E2A3B4C5D6E7F8091A2B3C4D5


def _span(name: str, number: int, parent: int | None, attrs: dict[str, Any], **extra: Any) -> Any:
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope
    from opentelemetry.trace import SpanContext, SpanKind, TraceFlags

    def context(n: int) -> SpanContext:
        return SpanContext(TRACE_ID, n, is_remote=False, trace_flags=TraceFlags(1))

    return ReadableSpan(
        name,
        context(number),
        context(parent) if parent is not None else None,
        Resource({"service.name": "demo"}),
        attrs,
        kind=extra.pop("kind", SpanKind.INTERNAL),
        instrumentation_scope=InstrumentationScope(extra.pop("scope", "demo"), "1.0"),
        start_time=BASE_NS + number * 1_000_000,
        end_time=BASE_NS + number * 1_000_000 + 500_000,
        **extra,
    )


def capture(spans: list[Any]) -> dict[str, Any]:
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    request = {
        "pbreq": MessageToDict(encode_spans(spans)),
        "headers": {"Content-Type": "application/x-protobuf"},
        "test_elapsed_ms": 1200,
    }
    return {"metric_requests": [], "trace_requests": [request], "log_requests": []}


def openlit() -> list[Any]:
    from opentelemetry.sdk.trace import Event
    from opentelemetry.trace import SpanKind

    prompt = "system: Answer briefly.\nuser: What is the capital\nof France?"
    answer = "Paris."
    common = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini"}
    outer = {**common, "gen_ai.system": "langchain", "gen_ai.usage.input_tokens": 90}
    outer["gen_ai.usage.output_tokens"] = 300  # OpenLit's estimate for the framework span
    inner = {**common, "gen_ai.system": "openai", "gen_ai.response.model": "gpt-4o-mini-2024"}
    inner.update({"gen_ai.usage.input_tokens": 21, "gen_ai.usage.output_tokens": 3})

    def events(asked: str) -> list[Any]:
        return [
            Event("gen_ai.content.prompt", {"gen_ai.prompt": asked}, BASE_NS),
            Event("gen_ai.content.completion", {"gen_ai.completion": answer}, BASE_NS),
        ]

    lc_prompt = "messages=[HumanMessage(content='What is the capital of France?')]"
    scope = {"scope": "openlit.otel.tracing", "kind": SpanKind.CLIENT}
    return [
        _span("chat gpt-4o-mini", 1, None, outer, events=events(lc_prompt), **scope),
        _span("chat gpt-4o-mini", 2, 1, inner, events=events(prompt), **scope),
    ]


def _run(kind: str, name: str, inputs: Any, outputs: Any, op: str) -> dict[str, Any]:
    return {
        "langsmith.span.kind": kind,
        "langsmith.trace.name": name,
        "gen_ai.operation.name": op,
        "gen_ai.system": "langchain",
        "gen_ai.prompt": json.dumps(inputs),
        "gen_ai.completion": json.dumps(outputs),
    }


def langsmith() -> list[Any]:
    from langchain_core.load import dumpd
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    system, human = SystemMessage("Use the tools."), HumanMessage("Weather in Oslo?")
    call = {"name": "get_weather", "args": {"city": "Oslo"}, "id": "call_1"}
    asked = AIMessage("", tool_calls=[call])
    told = ToolMessage("4C, rain", tool_call_id="call_1", name="get_weather")
    answer = AIMessage("It is 4C and raining.")
    first = [dumpd(system), dumpd(human)]

    def llm(history: list[Any], said: Any, tokens: tuple[int, int]) -> dict[str, Any]:
        attrs = _run("llm", "ChatOpenAI", {"messages": [history]}, {}, "chain")
        attrs["gen_ai.completion"] = json.dumps({"generations": [[{"message": dumpd(said)}]]})
        attrs.update({"gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o-mini"})
        attrs.update(
            {"gen_ai.usage.input_tokens": tokens[0], "gen_ai.usage.output_tokens": tokens[1]}
        )
        return attrs

    question = {"question": "Weather in Oslo?"}
    return [
        _span("RunnableSequence", 1, None, _run("chain", "agent", question, {}, "chain")),
        _span(
            "ChatPromptTemplate",
            2,
            1,
            _run("prompt", "ChatPromptTemplate", question, {"output": first}, "chat"),
        ),
        _span("ChatOpenAI", 3, 1, llm(first, asked, (30, 8))),
        _span(
            "get_weather",
            4,
            1,
            _run(
                "tool",
                "get_weather",
                {"input": "{'city': 'Oslo'}"},
                {"output": dumpd(told)},
                "tool",
            ),
        ),
        _span("ChatOpenAI", 5, 1, llm([*first, dumpd(asked), dumpd(told)], answer, (50, 7))),
        _span("StrOutputParser", 6, 1, _run("parser", "StrOutputParser", {}, {}, "parser")),
    ]


__all__ = ["capture", "langsmith", "openlit"]
