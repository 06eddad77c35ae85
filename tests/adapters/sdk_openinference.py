"""Render scenarios as OpenInference spans: opentelemetry-sdk ReadableSpans with the
attribute names of openinference-semantic-conventions, encoded by the OTLP exporter (as
OTLP/JSON, like sdk_spans.otel_genai, and as binary protobuf)."""

# The SDKs are an optional test extra: import them only when a fixture is built.
# ruff: noqa: PLC0415

from __future__ import annotations

import json
from typing import Any

from scenarios import CLEAN, RETRY, Call, Scenario, Turn
from sdk_spans import BASE, _args, _output, _timeline, hex_ids

# Fixtures whose TOOL spans carry no tool_call.id (calls matched to spans by tool name).
NO_TOOL_IDS = {"parallel", "bad-args"}


def _message(
    prefix: str, role: str, content: str | None, calls: tuple[Call, ...] = ()
) -> dict[str, Any]:
    from openinference.semconv.trace import MessageAttributes as M
    from openinference.semconv.trace import ToolCallAttributes as T

    attrs: dict[str, Any] = {f"{prefix}.{M.MESSAGE_ROLE}": role}
    if content is not None:
        attrs[f"{prefix}.{M.MESSAGE_CONTENT}"] = content
    for n, call in enumerate(calls):
        head = f"{prefix}.{M.MESSAGE_TOOL_CALLS}.{n}"
        attrs[f"{head}.{T.TOOL_CALL_ID}"] = call.call_id
        attrs[f"{head}.{T.TOOL_CALL_FUNCTION_NAME}"] = call.name
        attrs[f"{head}.{T.TOOL_CALL_FUNCTION_ARGUMENTS_JSON}"] = _args(call)
    return attrs


class _Builder:
    """ReadableSpans of one trace with fixed ids and clocks."""

    def __init__(self, name: str) -> None:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.util.instrumentation import InstrumentationScope

        self.trace_id = int.from_bytes(name.encode().ljust(16, b"\0")[:16], "big")
        self.resource = Resource({"service.name": "refund-service"})
        self.scope = InstrumentationScope("openinference.instrumentation.fixtures", "1.0")
        self.base_ns = int(BASE.timestamp()) * 1_000_000_000
        self.spans: list[Any] = []

    def context(self, number: int) -> Any:
        from opentelemetry.trace import SpanContext, TraceFlags

        return SpanContext(self.trace_id, number, is_remote=False, trace_flags=TraceFlags(1))

    def span(  # noqa: PLR0917 - one positional slot per span field, as ReadableSpan takes them
        self,
        name: str,
        number: int,
        parent: int | None,
        attrs: dict[str, Any],
        start: int,
        end: int,
        error: str | None = None,
        events: tuple[Any, ...] = (),
    ) -> None:
        from opentelemetry.sdk.trace import ReadableSpan
        from opentelemetry.trace import SpanKind, Status, StatusCode

        ok = Status(StatusCode.OK)
        status = ok if error is None else Status(StatusCode.ERROR, error or None)
        self.spans.append(
            ReadableSpan(
                name,
                self.context(number),
                self.context(parent) if parent else None,
                self.resource,
                attrs,
                events=events,
                kind=SpanKind.INTERNAL,
                status=status,
                instrumentation_scope=self.scope,
                start_time=self.base_ns + start * 1_000_000,
                end_time=self.base_ns + end * 1_000_000,
            )
        )

    def request(self) -> Any:
        from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

        return encode_spans(self.spans)


def to_json(request: Any) -> dict[str, Any]:
    from google.protobuf.json_format import MessageToDict

    value: dict[str, Any] = hex_ids(MessageToDict(request, use_integers_for_enums=True))
    return value


def build(s: Scenario, tool_spans: bool = True, nested: bool = False) -> _Builder:
    """Spans of a scenario: an AGENT root, one LLM span per model turn (history in its
    input messages), one TOOL span per call (unless `tool_spans` is off). With `nested`,
    each model turn is also recorded by a framework's LLM span around the provider's (as
    the LangChain and OpenAI instrumentations write it when both are on)."""
    from openinference.semconv.trace import SpanAttributes as A

    b = _Builder(s.name)
    timeline = _timeline(s)
    b.span(
        "refund-agent",
        1,
        None,
        {
            A.OPENINFERENCE_SPAN_KIND: "AGENT",
            A.AGENT_NAME: "refund-agent",
            A.INPUT_VALUE: s.user,
            A.SESSION_ID: f"session-{s.name}",
        },
        0,
        timeline[-1][2] + 5,
    )
    history: list[tuple[str, str | None, tuple[Call, ...], str | None]] = [
        ("system", "You are a refund assistant.", (), None),
        ("user", s.user, (), None),
    ]
    if s.orphan is not None:
        history.append(("tool", _output(s.orphan.output), (), s.orphan.call_id))
    for number, (kind, start, end, payload) in enumerate(timeline, start=2):
        if kind == "model":
            turn: Turn = payload
            attrs: dict[str, Any] = {
                A.OPENINFERENCE_SPAN_KIND: "LLM",
                A.LLM_MODEL_NAME: "gpt-4.1-mini",
                A.LLM_PROVIDER: "openai",
                A.LLM_TOKEN_COUNT_PROMPT: turn.usage[0],
                A.LLM_TOKEN_COUNT_COMPLETION: turn.usage[1],
                A.LLM_TOKEN_COUNT_TOTAL: sum(turn.usage),
                A.INPUT_MIME_TYPE: "application/json",
            }
            for n, (role, content, calls, call_id) in enumerate(history):
                attrs.update(_message(f"{A.LLM_INPUT_MESSAGES}.{n}", role, content, calls))
                if call_id is not None:
                    attrs[f"{A.LLM_INPUT_MESSAGES}.{n}.message.tool_call_id"] = call_id
            text = "".join(turn.texts) or None
            if len(turn.texts) > 1:  # multi-part text: message.contents
                for p, part in enumerate(turn.texts):
                    head = f"{A.LLM_OUTPUT_MESSAGES}.0.message.contents.{p}.message_content"
                    attrs[f"{head}.type"] = "text"
                    attrs[f"{head}.text"] = part
                attrs[f"{A.LLM_OUTPUT_MESSAGES}.0.message.role"] = "assistant"
                attrs.update(_message(f"{A.LLM_OUTPUT_MESSAGES}.0", "assistant", None, turn.calls))
            else:
                attrs.update(_message(f"{A.LLM_OUTPUT_MESSAGES}.0", "assistant", text, turn.calls))
            history.append(("assistant", text, turn.calls, None))
            if nested:  # the same call, same messages and tokens, one level up
                b.span("ChatOpenAI", 100 + number, 1, attrs, start, end)
                b.span("ChatCompletion", number, 100 + number, attrs, start + 1, end - 1)
            else:
                b.span("ChatCompletion", number, 1, attrs, start, end)
        else:
            call, result = payload
            output = None if result is None else (result.error or _output(result.output))
            history.append(("tool", output, (), call.call_id))
            if not tool_spans:
                continue
            attrs = {
                A.OPENINFERENCE_SPAN_KIND: "TOOL",
                A.TOOL_NAME: call.name,
                A.INPUT_VALUE: _args(call),
                A.INPUT_MIME_TYPE: "application/json",
            }
            if s.name not in NO_TOOL_IDS:
                attrs["tool_call.id"] = call.call_id
            error = result.error if result is not None and result.error else None
            if result is not None and not error:
                attrs[A.OUTPUT_VALUE] = _output(result.output)
            b.span(call.name, number, 1, attrs, start, end, error=error)
    return b


def openinference(s: Scenario) -> dict[str, Any]:
    return to_json(build(s).request())


def _extras_spans() -> _Builder:
    """A RAG chain: CHAIN root, RETRIEVER, EMBEDDING, an LLM span with cost and a non-text
    content part, a TOOL span that fails with an exception event, a failing CHAIN span,
    and a span from another instrumentation."""
    from openinference.semconv.trace import SpanAttributes as A
    from opentelemetry.sdk.trace import Event

    b = _Builder("rag-chain")
    b.span(
        "RetrievalQA",
        1,
        None,
        {A.OPENINFERENCE_SPAN_KIND: "CHAIN", A.INPUT_VALUE: "refund policy?"},
        0,
        900,
    )
    b.span(
        "embed",
        2,
        1,
        {A.OPENINFERENCE_SPAN_KIND: "EMBEDDING", A.EMBEDDING_MODEL_NAME: "text-embedding-3-small"},
        10,
        40,
    )
    retriever = {
        A.OPENINFERENCE_SPAN_KIND: "RETRIEVER",
        A.INPUT_VALUE: "refund policy",
        A.INPUT_MIME_TYPE: "text/plain",
    }
    for n, text in enumerate(("Refunds within 30 days.", "Shipping is not refunded.")):
        retriever[f"{A.RETRIEVAL_DOCUMENTS}.{n}.document.content"] = text
        retriever[f"{A.RETRIEVAL_DOCUMENTS}.{n}.document.id"] = f"doc-{n}"
    b.span("kb-retriever", 3, 1, retriever, 50, 120)
    llm = {
        A.OPENINFERENCE_SPAN_KIND: "LLM",
        A.LLM_MODEL_NAME: "gpt-4.1-mini",
        A.LLM_TOKEN_COUNT_PROMPT: 310,
        A.LLM_TOKEN_COUNT_COMPLETION: 42,
        A.LLM_COST_TOTAL: 0.00031,
        **_message(f"{A.LLM_INPUT_MESSAGES}.0", "user", "What is the refund policy?"),
        f"{A.LLM_OUTPUT_MESSAGES}.0.message.role": "assistant",
        f"{A.LLM_OUTPUT_MESSAGES}.0.message.contents.0.message_content.type": "text",
        f"{A.LLM_OUTPUT_MESSAGES}.0.message.contents.0.message_content.text": "Refunds are accepted within 30 days.",
        f"{A.LLM_OUTPUT_MESSAGES}.0.message.contents.1.message_content.type": "image",
        f"{A.LLM_OUTPUT_MESSAGES}.0.message.contents.1.message_content.image.image.url": "https://example.com/chart.png",
        **_message(
            f"{A.LLM_OUTPUT_MESSAGES}.1",
            "assistant",
            None,
            (Call("call_kb9", "search_kb", {"query": "shipping"}),),
        ),
    }
    b.span("ChatCompletion", 4, 1, llm, 130, 700)
    event = Event(
        "exception",
        {"exception.type": "TimeoutError", "exception.message": "kb timed out"},
        timestamp=b.base_ns + 800 * 1_000_000,
    )
    b.span(
        "search_kb",
        5,
        1,
        {
            A.OPENINFERENCE_SPAN_KIND: "TOOL",
            A.TOOL_NAME: "search_kb",
            A.INPUT_VALUE: json.dumps({"query": "shipping"}),
            A.INPUT_MIME_TYPE: "application/json",
        },
        710,
        800,
        error="",  # status ERROR without a message: the exception event says why
        events=(event,),
    )
    b.span(
        "format-answer",
        6,
        1,
        {A.OPENINFERENCE_SPAN_KIND: "CHAIN"},
        805,
        880,
        error="output parser failed",
    )
    b.span("HTTP GET", 7, 1, {"http.method": "GET"}, 810, 820)
    return b


def extras() -> list[tuple[str, Any]]:
    """Extra JSON fixtures and the binary ones (bytes) with their file names."""
    cases: list[tuple[str, Any]] = [
        ("chat-only.json", to_json(build(RETRY, tool_spans=False).request())),
        ("rag-chain-kinds.json", to_json(_extras_spans().request())),
        ("nested-llm.json", to_json(build(CLEAN, nested=True).request())),
        # The SDK's console exporter (span.to_json(), one span each), read by the same code
        ("console-retry.json", [json.loads(span.to_json()) for span in build(RETRY).spans]),
        ("clean.binpb", build(CLEAN).request().SerializeToString()),
        ("batches-framed.pb", _framed(build(RETRY), fixed=True)),
    ]
    return cases


def _framed(b: _Builder, fixed: bool) -> bytes:
    """The spans as two export requests, each prefixed with its length: 4 bytes big-endian
    (the Collector's file exporter) or a varint (protobuf's delimited streams)."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    half = len(b.spans) // 2
    out = b""
    for part in (b.spans[:half], b.spans[half:]):
        data = encode_spans(part).SerializeToString()
        out += len(data).to_bytes(4, "big") + data if fixed else _varint(len(data)) + data
    return out


def _varint(value: int) -> bytes:
    out = b""
    while True:
        byte, value = value & 0x7F, value >> 7
        out += bytes([byte | (0x80 if value else 0)])
        if not value:
            return out


def otel_genai_binary() -> list[tuple[str, Any]]:
    """Binary twins of otel-genai JSON fixtures: the same request, protobuf-encoded."""
    from sdk_spans import otel_genai

    parallel = otel_genai(_scenario("parallel"), proto=True).SerializeToString()
    framed = b""
    for request in (otel_genai(RETRY, proto=True),):
        data = request.SerializeToString()
        framed += _varint(len(data)) + data
    return [("parallel.pb", parallel), ("retry.binpb", framed)]


def _scenario(name: str) -> Scenario:
    from scenarios import SCENARIOS

    return next(s for s in SCENARIOS if s.name == name)
