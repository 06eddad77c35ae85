"""Format-specific edge cases, built with the SDK classes: legacy function calls, reasoning
and hosted tools, thinking and server tools with citations, document content, camelCase
wire form, handoff/guardrail/response spans, foreign spans and several traces per file.
"""

# The SDKs are an optional test extra: import them only when a fixture is built.
# ruff: noqa: PLC0415

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import sdk_agents
from scenarios import CLEAN, LOOKUP, ORDER, RETRY
from sdk_spans import hex_ids, otel_genai


def openai_chat() -> list[tuple[str, Any]]:
    from openai.types.chat import ChatCompletion, ChatCompletionMessage
    from openai.types.chat.chat_completion import Choice
    from openai.types.chat.chat_completion_message import FunctionCall

    legacy = ChatCompletion(
        id="chatcmpl-legacy",
        object="chat.completion",
        created=1_767_000_000,
        model="gpt-3.5-turbo-0613",
        choices=[
            Choice(
                index=0,
                finish_reason="function_call",
                message=ChatCompletionMessage(
                    role="assistant",
                    content=None,
                    function_call=FunctionCall(name="lookup_order", arguments=json.dumps(LOOKUP)),
                ),
            )
        ],
    )
    final = ChatCompletion(
        id="chatcmpl-legacy-2",
        object="chat.completion",
        created=1_767_000_001,
        model="gpt-3.5-turbo-0613",
        choices=[
            Choice(
                index=0,
                finish_reason="stop",
                message=ChatCompletionMessage(
                    role="assistant", content=None, refusal="I can't share the customer's address."
                ),
            )
        ],
    )
    body = {
        "model": "gpt-3.5-turbo-0613",
        "messages": [
            {"role": "system", "content": "You are a support agent."},
            {"role": "user", "content": "Where is ORD-1042, and what is the address?"},
            legacy.model_dump(mode="json")["choices"][0]["message"],
            {"role": "function", "name": "lookup_order", "content": json.dumps(ORDER)},
            final.model_dump(mode="json")["choices"][0]["message"],
        ],
    }
    return [("legacy-function-call", body)]


def openai_responses() -> list[tuple[str, Any]]:
    from openai.types.responses import (
        Response,
        ResponseFunctionWebSearch,
        ResponseOutputMessage,
        ResponseOutputText,
        ResponseReasoningItem,
    )
    from openai.types.responses.response_function_web_search import ActionSearch
    from openai.types.responses.response_reasoning_item import Summary

    response = Response(
        id="resp_builtin",
        object="response",
        created_at=1_767_000_000,
        model="o4-mini",
        parallel_tool_calls=True,
        tool_choice="auto",
        tools=[],
        status="completed",
        output=[
            ResponseReasoningItem(
                id="rs_1",
                type="reasoning",
                summary=[Summary(type="summary_text", text="Search the web for the policy.")],
            ),
            ResponseFunctionWebSearch(
                id="ws_1",
                type="web_search_call",
                status="completed",
                action=ActionSearch(type="search", query="acme refund policy"),
            ),
            ResponseOutputMessage(
                id="msg_1",
                type="message",
                role="assistant",
                status="completed",
                content=[
                    ResponseOutputText(
                        type="output_text", text="Acme refunds within 30 days.", annotations=[]
                    )
                ],
            ),
        ],
    )
    body = {
        "model": "o4-mini",
        "input": [
            {"role": "user", "content": "What is Acme's refund policy?"},
            *response.model_dump(mode="json", exclude_none=True)["output"],
        ],
    }
    return [("reasoning-builtin", body)]


def anthropic_messages() -> list[tuple[str, Any]]:
    from anthropic.types import (
        CitationsWebSearchResultLocation,
        Message,
        ServerToolUseBlock,
        TextBlock,
        ThinkingBlock,
        Usage,
        WebSearchResultBlock,
        WebSearchToolResultBlock,
    )

    url = "https://example.com/refunds"
    message = Message(
        id="msg_server",
        type="message",
        role="assistant",
        model="claude-sonnet-4-5",
        stop_reason="end_turn",
        stop_sequence=None,
        usage=Usage(
            input_tokens=400,
            output_tokens=60,
            cache_read_input_tokens=100,
            cache_creation_input_tokens=20,
        ),
        content=[
            ThinkingBlock(type="thinking", thinking="I should search first.", signature="sig"),
            ServerToolUseBlock(
                type="server_tool_use",
                id="srvtoolu_1",
                name="web_search",
                input={"query": "acme refund policy"},
            ),
            WebSearchToolResultBlock(
                type="web_search_tool_result",
                tool_use_id="srvtoolu_1",
                content=[
                    WebSearchResultBlock(
                        type="web_search_result",
                        title="Refunds",
                        url=url,
                        encrypted_content="enc",
                        page_age=None,
                    )
                ],
            ),
            TextBlock(
                type="text",
                text="Acme refunds within 30 days.",
                citations=[
                    CitationsWebSearchResultLocation(
                        type="web_search_result_location",
                        url=url,
                        title="Refunds",
                        cited_text="within 30 days",
                        encrypted_index="idx",
                    )
                ],
            ),
        ],
    )
    body = {
        "model": "claude-sonnet-4-5",
        "system": "You are a support agent.",
        "messages": [
            {"role": "user", "content": "What is Acme's refund policy?"},
            message.model_dump(mode="json"),
        ],
    }
    return [("thinking-server-tool", body)]


def cohere_chat() -> list[tuple[str, Any]]:
    import cohere

    response = cohere.V2ChatResponse(
        id="cohere-cite",
        finish_reason="COMPLETE",
        message=cohere.AssistantMessageResponse(
            role="assistant",
            content=[
                cohere.TextAssistantMessageResponseContentItem(
                    type="text", text="ORD-1042 was delivered."
                )
            ],
            citations=[
                cohere.Citation(
                    start=10,
                    end=19,
                    text="delivered",
                    sources=[
                        cohere.ToolSource(type="tool", id="call_lookup1:0", tool_output=ORDER)
                    ],
                )
            ],
        ),
        usage=cohere.Usage(tokens=cohere.UsageTokens(input_tokens=210, output_tokens=12)),
    )
    plan = cohere.AssistantChatMessageV2(
        role="assistant",
        tool_plan="I will look up the order.",
        tool_calls=[
            cohere.ToolCallV2(
                id="call_lookup1",
                type="function",
                function=cohere.ToolCallV2Function(
                    name="lookup_order", arguments=json.dumps(LOOKUP)
                ),
            )
        ],
    )
    result = cohere.ToolChatMessageV2(
        role="tool",
        tool_call_id="call_lookup1",
        content=[
            cohere.DocumentToolContent(
                type="document", document=cohere.Document(data=ORDER, id="doc-0")
            )
        ],
    )
    body = {
        "model": "command-a-03-2025",
        "messages": [
            {"role": "user", "content": "Where is ORD-1042?"},
            plan.model_dump(mode="json"),
            result.model_dump(mode="json"),
            response.model_dump(mode="json"),
        ],
    }
    return [("documents-citations", body)]


def google_genai() -> list[tuple[str, Any]]:
    from google.genai import types as g

    response = g.GenerateContentResponse(
        response_id="gemini-camel",
        model_version="gemini-2.5-pro",
        candidates=[
            g.Candidate(
                index=0,
                finish_reason=g.FinishReason.STOP,
                content=g.Content(
                    role="model",
                    parts=[
                        g.Part(text="Consider the order first.", thought=True),
                        g.Part(function_call=g.FunctionCall(name="lookup_order", args=LOOKUP)),
                    ],
                ),
            )
        ],
        usage_metadata=g.GenerateContentResponseUsageMetadata(
            prompt_token_count=90,
            candidates_token_count=10,
            thoughts_token_count=25,
            total_token_count=125,
        ),
    )
    reply = g.Content(
        role="user",
        parts=[
            g.Part(
                function_response=g.FunctionResponse(
                    name="lookup_order", response={"output": ORDER}
                )
            )
        ],
    )
    final = g.Content(role="model", parts=[g.Part(text="ORD-1042 was delivered.")])
    contents = [
        g.Content(role="user", parts=[g.Part(text="Where is ORD-1042?")]).model_dump(
            mode="json", by_alias=True, exclude_none=True
        ),
        response.model_dump(mode="json", by_alias=True, exclude_none=True),
        reply.model_dump(mode="json", by_alias=True, exclude_none=True),
        final.model_dump(mode="json", by_alias=True, exclude_none=True),
    ]
    afc = g.GenerateContentResponse(
        response_id="gemini-afc",
        model_version="gemini-2.5-flash",
        candidates=[
            g.Candidate(
                index=0,
                finish_reason=g.FinishReason.STOP,
                content=g.Content(role="model", parts=[g.Part(text="ORD-1042 was delivered.")]),
            )
        ],
        usage_metadata=g.GenerateContentResponseUsageMetadata(
            prompt_token_count=140, candidates_token_count=8, total_token_count=148
        ),
        automatic_function_calling_history=[
            g.Content(role="user", parts=[g.Part(text="Where is ORD-1042?")]),
            g.Content(
                role="model",
                parts=[g.Part(function_call=g.FunctionCall(name="lookup_order", args=LOOKUP))],
            ),
            g.Content(
                role="user",
                parts=[
                    g.Part(
                        function_response=g.FunctionResponse(
                            name="lookup_order", response={"error": "order service unavailable"}
                        )
                    )
                ],
            ),
        ],
    )
    return [
        ("camel-case-thought", {"contents": contents}),
        ("automatic-function-calling", afc.model_dump(mode="json", exclude_none=True)),
    ]


def openai_agents() -> list[tuple[str, Any]]:
    from agents.tracing.processor_interface import TracingProcessor
    from agents.tracing.span_data import GuardrailSpanData, HandoffSpanData, ResponseSpanData
    from agents.tracing.spans import SpanImpl
    from agents.tracing.traces import TraceImpl

    class Keep(TracingProcessor):
        def on_trace_start(self, trace: Any) -> None: ...
        def on_trace_end(self, trace: Any) -> None: ...
        def on_span_start(self, span: Any) -> None: ...
        def on_span_end(self, span: Any) -> None: ...
        def shutdown(self) -> None: ...
        def force_flush(self) -> None: ...

    keep = Keep()
    trace = TraceImpl("triage", "trace_" + "ab" * 16, None, None, keep)
    response = ResponseSpanData(
        usage={"input_tokens": 300, "output_tokens": 40, "total_tokens": 340}
    )
    response._response_id = "resp_abc"
    items = []
    for n, data in enumerate(
        [
            GuardrailSpanData(name="pii-check", triggered=True),
            HandoffSpanData("triage", "refunds"),
            response,
        ],
        1,
    ):
        span = SpanImpl(trace.trace_id, f"span_{n:024x}", None, keep, data, None)
        span._started_at = f"2026-01-15T09:00:0{n}+00:00"
        span._ended_at = f"2026-01-15T09:00:0{n}.500000+00:00"
        items.append(span.export())
    return [("handoff-guardrail-response", [trace.export(), *items])]


def otel() -> list[tuple[str, Any]]:
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.trace import SpanContext, SpanKind, TraceFlags

    one = otel_genai(CLEAN)
    other = otel_genai(CLEAN.__class__("second", CLEAN.user, CLEAN.events[-1:]))
    merged = {"resourceSpans": one["resourceSpans"] + other["resourceSpans"]}
    scope = merged["resourceSpans"][0]["scopeSpans"][0]
    first = scope["spans"][0]
    http = ReadableSpan(
        "GET /orders",
        SpanContext(int(first["traceId"], 16), 255, is_remote=False, trace_flags=TraceFlags(1)),
        resource=Resource({"service.name": "refund-service"}),
        attributes={"http.request.method": "GET"},
        kind=SpanKind.CLIENT,
        start_time=int(first["startTimeUnixNano"]),
        end_time=int(first["startTimeUnixNano"]) + 5_000_000,
    )
    encoded = hex_ids(MessageToDict(encode_spans([http]), use_integers_for_enums=True))
    scope["spans"].append(encoded["resourceSpans"][0]["scopeSpans"][0]["spans"][0])
    return [
        ("two-traces-foreign-span", merged),
        ("chat-spans-only", otel_genai(RETRY, tool_spans=False)),
        ("console-exporter", otel_genai(RETRY, console=True)),
    ]


EXTRAS: dict[str, Callable[[], list[tuple[str, Any]]]] = {
    "openai-chat": openai_chat,
    "openai-responses": openai_responses,
    "anthropic-messages": anthropic_messages,
    "cohere-chat": cohere_chat,
    "google-genai": google_genai,
    "openai-agents": lambda: openai_agents() + agents_runner() + sdk_agents.openai_agents(),
    "otel-genai": lambda: otel() + sdk_agents.otel_genai(),
}


def agents_runner() -> list[tuple[str, Any]]:
    """A real Runner loop (fake model, real tool, real tracing), ids and clocks normalised."""
    from agents import Agent, Model, ModelResponse, RunConfig, Runner, Usage, function_tool
    from agents.tracing import generation_span, set_trace_processors
    from agents.tracing.processor_interface import TracingProcessor
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    exported: list[Any] = []

    class Keep(TracingProcessor):
        def on_trace_start(self, trace: Any) -> None: ...
        def on_trace_end(self, trace: Any) -> None:
            exported.insert(0, trace.export())

        def on_span_start(self, span: Any) -> None: ...
        def on_span_end(self, span: Any) -> None:
            exported.append(span.export())

        def shutdown(self) -> None: ...
        def force_flush(self) -> None: ...

    attempts = {"n": 0}

    @function_tool
    def lookup_order(order_id: str) -> str:
        """Look up an order by id."""
        attempts["n"] += 1
        if attempts["n"] == 1:
            raise TimeoutError("upstream timeout")
        return json.dumps({**ORDER, "order_id": order_id})

    class Scripted(Model):
        turn = 0

        async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
            self.turn += 1
            tokens = {"input_tokens": 100 * self.turn, "output_tokens": 10 + self.turn}
            out: list[Any]
            with generation_span(model="scripted-1", usage=dict(tokens)) as span:
                if self.turn <= 2:
                    out = [
                        ResponseFunctionToolCall(
                            type="function_call",
                            call_id=f"call_lookup{self.turn}",
                            name="lookup_order",
                            arguments=json.dumps(LOOKUP),
                            id=f"fc_{self.turn}",
                            status="completed",
                        )
                    ]
                else:
                    text = "Order ORD-1042 was delivered."
                    part = ResponseOutputText(type="output_text", text=text, annotations=[])
                    out = [
                        ResponseOutputMessage(
                            id="msg_final",
                            type="message",
                            role="assistant",
                            status="completed",
                            content=[part],
                        )
                    ]
                span.span_data.output = [o.model_dump() for o in out]
            total = tokens["input_tokens"] + tokens["output_tokens"]
            usage = Usage(requests=1, total_tokens=total, **tokens)
            return ModelResponse(output=out, usage=usage, response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    set_trace_processors([Keep()])
    try:
        agent = Agent(
            name="refund-agent", instructions="Help.", tools=[lookup_order], model=Scripted()
        )
        Runner.run_sync(agent, "Where is ORD-1042?", run_config=RunConfig(workflow_name="refunds"))
    finally:
        set_trace_processors([])
    return [("runner-retry", {"data": _normalise(exported)})]


def _normalise(items: list[Any]) -> list[Any]:
    """Replace random ids and wall-clock times by stable ones, keeping their order."""
    text = json.dumps(items)
    stamps = sorted({v for i in items for k, v in i.items() if k.endswith("_at") and v})
    ids = list(dict.fromkeys(re.findall(r'"((?:trace|span)_[0-9a-f]{24,32})"', text)))
    for n, old in enumerate(ids, start=1):
        prefix = old.split("_")[0]
        text = text.replace(f'"{old}"', f'"{prefix}_{n:024x}"')
    for n, old in enumerate(stamps):
        text = text.replace(
            f'"{old}"', f'"2026-01-15T09:00:{n // 100:02d}.{n % 100:02d}0000+00:00"'
        )
    result: list[Any] = json.loads(text)
    return result
