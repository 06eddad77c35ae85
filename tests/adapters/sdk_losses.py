"""Fixtures for the losses of issue 12, built the way users produce the data: the vendors'
SDK classes where a package exists, else the documented message shapes of the tools that
write them (AgentDojo, SWE-agent: OpenAI-shaped messages with their own fields).
"""

# The SDKs are an optional test extra: import them only when a fixture is built.
# ruff: noqa: PLC0415

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from scenarios import LOOKUP, ORDER
from sdk_spans import hex_ids

ORDER_TEXT = json.dumps(ORDER)
KB = {"query": "refund policy"}


def _chat_completion(n: int, message: Any, usage: tuple[int, int], name: str) -> Any:
    from openai.types.chat import ChatCompletion
    from openai.types.chat.chat_completion import Choice
    from openai.types.completion_usage import CompletionUsage

    return ChatCompletion(
        id=f"chatcmpl-{name}-{n}",
        object="chat.completion",
        created=1_767_000_000 + n,
        model="gpt-4.1-mini-2025-04-14",
        choices=[Choice(index=0, finish_reason="stop", message=message)],
        usage=CompletionUsage(
            prompt_tokens=usage[0], completion_tokens=usage[1], total_tokens=sum(usage)
        ),
    ).model_dump(mode="json")


def _calls(*calls: tuple[str, str, dict[str, Any]]) -> list[Any]:
    from openai.types.chat import ChatCompletionMessageFunctionToolCall
    from openai.types.chat.chat_completion_message_function_tool_call import Function

    return [
        ChatCompletionMessageFunctionToolCall(
            id=call_id, type="function", function=Function(name=name, arguments=json.dumps(args))
        )
        for call_id, name, args in calls
    ]


def idless_results() -> Any:
    """An OpenAI-compatible server that gives calls an empty id; results carry
    `tool_call_id: null` and are paired with the calls in order."""
    from openai.types.chat import ChatCompletionMessage

    message = ChatCompletionMessage(
        role="assistant",
        content=None,
        tool_calls=_calls(("", "lookup_order", LOOKUP), ("", "search_kb", KB)),
    )
    final = ChatCompletionMessage(role="assistant", content="ORD-1042 can be refunded.")
    return [
        {"role": "user", "content": "Can ORD-1042 be refunded?"},
        _chat_completion(0, message, (120, 30), "idless"),
        {"role": "tool", "tool_call_id": None, "content": ORDER_TEXT},
        {"role": "tool", "tool_call_id": None, "content": "Refunds within 30 days."},
        _chat_completion(1, final, (200, 9), "idless"),
    ]


def tool_call_ids() -> Any:
    """SWE-agent's history: tool messages name their calls in a `tool_call_ids` list."""
    from openai.types.chat import ChatCompletionMessage

    history: list[Any] = [
        {"role": "system", "content": "You are a software engineer.", "agent": "main"},
        {"role": "user", "content": [{"type": "text", "text": "Fix the bug."}], "agent": "main"},
    ]
    for n, command in enumerate(("ls", "pytest -x")):
        message = ChatCompletionMessage(
            role="assistant",
            content=f"I will run {command}.",
            tool_calls=_calls((f"call_{n}", "bash", {"command": command})),
        ).model_dump(mode="json", exclude_none=True)
        history.append({**message, "agent": "main", "message_type": "action"})
        history.append(
            {
                "role": "tool",
                "content": [{"type": "text", "text": "1 failed" if n else "src tests"}],
                "tool_call_ids": [f"call_{n}"],
                "agent": "main",
                "message_type": "observation",
            }
        )
    history.append({"role": "assistant", "content": "Done.", "agent": "main"})
    return history


def tool_error_field() -> Any:
    """AgentDojo's messages: calls as {function, args, id}, results with `tool_call` and an
    `error` field (null when the call succeeded), text blocks with `content`."""

    def call(name: str, args: dict[str, Any], call_id: str | None) -> dict[str, Any]:
        return {"function": name, "args": args, "id": call_id, "placeholder_args": None}

    def text(value: str) -> list[dict[str, Any]]:
        return [{"type": "text", "content": value}]

    send = call("send_money", {"recipient": "GB29NWBK60161331926819", "amount": 100.0}, None)
    look = call("get_balance", {}, None)
    return {
        "suite_name": "banking",
        "user_task_id": "user_task_3",
        "messages": [
            {"role": "system", "content": text("You are a banking assistant.")},
            {"role": "user", "content": text("Pay my friend 100.")},
            {"role": "assistant", "content": text(""), "tool_calls": [look, send]},
            {
                "role": "tool",
                "content": text("1500.0"),
                "tool_call_id": None,
                "tool_call": look,
                "error": None,
            },
            {
                "role": "tool",
                "content": text(""),
                "tool_call_id": None,
                "tool_call": send,
                "error": "ValueError: insufficient funds",
            },
            {"role": "assistant", "content": text("The payment failed."), "tool_calls": None},
        ],
        "error": None,
        "utility": False,
        "security": True,
    }


def messages_response() -> Any:
    """A saved request/response pair: the request's messages and the ChatCompletion."""
    from openai.types.chat import ChatCompletionMessage

    first = ChatCompletionMessage(
        role="assistant", content=None, tool_calls=_calls(("call_1", "lookup_order", LOOKUP))
    )
    final = ChatCompletionMessage(role="assistant", content="ORD-1042 was delivered.")
    return {
        "model": "gpt-4.1-mini",
        "messages": [
            {"role": "user", "content": "Where is ORD-1042?"},
            first.model_dump(mode="json", exclude_none=True),
            {"role": "tool", "tool_call_id": "call_1", "content": ORDER_TEXT},
        ],
        "response": _chat_completion(1, final, (160, 8), "pair"),
    }


def plain_messages_response() -> Any:
    """A request of plain text messages saved with the ChatCompletion that answered it:
    only the `response` says which API it is."""
    from openai.types.chat import ChatCompletionMessage

    answer = ChatCompletionMessage(role="assistant", content="Refunds within 30 days.")
    return {
        "messages": [{"role": "user", "content": "Refund window?"}],
        "response": _chat_completion(0, answer, (12, 6), "plain"),
    }


def body_labels() -> Any:
    """A chat body that names its run next to the messages (a body label wins over the
    file name; a numeric task id becomes its decimal text)."""
    from openai.types.chat import ChatCompletionMessage

    first = ChatCompletionMessage(
        role="assistant", content=None, tool_calls=_calls(("call_1", "lookup_order", LOOKUP))
    )
    return {
        "trace_id": "refund-run-7",
        "agent_name": "refund-copilot",
        "workflow": "refunds",
        "task_id": 12,
        "outcome": {"success": True, "reward": 1.0, "grader": "human"},
        "messages": [
            {"role": "developer", "content": "Be brief."},
            {"role": "user", "content": "Where is ORD-1042?"},
            _chat_completion(0, first, (90, 12), "labels"),
            {"role": "tool", "tool_call_id": "call_1", "content": ORDER_TEXT},
            {"role": "assistant", "content": "Delivered."},
        ],
    }


def stream_chunks() -> Any:
    """`stream=True` with `stream_options={"include_usage": True}`, every chunk saved."""
    from openai.types.chat import ChatCompletionChunk
    from openai.types.chat.chat_completion_chunk import (
        Choice,
        ChoiceDelta,
        ChoiceDeltaToolCall,
        ChoiceDeltaToolCallFunction,
    )
    from openai.types.completion_usage import CompletionUsage

    def chunk(delta: Any, usage: Any = None, done: bool = False) -> Any:
        choices = (
            []
            if usage
            else [Choice(index=0, delta=delta, finish_reason="tool_calls" if done else None)]
        )
        return ChatCompletionChunk(
            id="chatcmpl-stream",
            object="chat.completion.chunk",
            created=1_767_000_000,
            model="gpt-4.1-mini-2025-04-14",
            choices=choices,
            usage=usage,
        ).model_dump(mode="json", exclude_none=True)

    def tool(index: int, **function: Any) -> Any:
        first = "name" in function
        return ChoiceDeltaToolCall(
            index=index,
            id="call_s1" if first else None,
            type="function" if first else None,
            function=ChoiceDeltaToolCallFunction(**function),
        )

    return [
        {"role": "user", "content": "Where is ORD-1042?"},
        chunk(ChoiceDelta(role="assistant", content="")),
        chunk(ChoiceDelta(content="Let me ")),
        chunk(ChoiceDelta(content="check.")),
        chunk(ChoiceDelta(tool_calls=[tool(0, name="lookup_order", arguments="")])),
        chunk(ChoiceDelta(tool_calls=[tool(0, arguments='{"order_id": ')])),
        chunk(ChoiceDelta(tool_calls=[tool(0, arguments='"ORD-1042"}')])),
        chunk(ChoiceDelta(), done=True),
        chunk(None, CompletionUsage(prompt_tokens=80, completion_tokens=20, total_tokens=100)),
        {"role": "tool", "tool_call_id": "call_s1", "content": ORDER_TEXT},
    ]


def stream_reasoning() -> Any:
    """Two streams of a reasoning model, their thinking streamed in the delta's extra field
    (`reasoning_content`: DeepSeek, vLLM; `reasoning`: OpenRouter, Groq)."""
    from openai.types.chat import ChatCompletionChunk
    from openai.types.chat.chat_completion_chunk import Choice, ChoiceDelta

    def stream(n: int, key: str, thinking: tuple[str, str], answer: str) -> list[Any]:
        deltas = [
            ChoiceDelta(role="assistant", **{key: thinking[0]}),
            ChoiceDelta(**{key: thinking[1]}),
            ChoiceDelta(content=answer),
        ]
        return [
            ChatCompletionChunk(
                id=f"chatcmpl-think-{n}",
                object="chat.completion.chunk",
                created=1_767_000_000 + n,
                model="deepseek-reasoner",
                choices=[Choice(index=0, delta=d, finish_reason="stop" if d.content else None)],
            ).model_dump(mode="json", exclude_none=True)
            for d in deltas
        ]

    return [
        {"role": "user", "content": "Refund window?"},
        *stream(0, "reasoning_content", ("Policy says ", "30 days."), "30 days."),
        {"role": "user", "content": "And for sale items?"},
        *stream(1, "reasoning", ("Sale items ", "are final."), "No refunds."),
    ]


def openai_chat() -> list[tuple[str, Any]]:
    return [
        ("idless-results", idless_results()),
        ("tool-call-ids", tool_call_ids()),
        ("tool-error-field", tool_error_field()),
        ("messages-response", messages_response()),
        ("plain-messages-response", plain_messages_response()),
        ("body-labels", body_labels()),
        ("stream-chunks", stream_chunks()),
        ("stream-reasoning", stream_reasoning()),
    ]


def openai_responses() -> list[tuple[str, Any]]:
    """A bare Response dump: usage, model and id live next to `output`."""
    from openai.types.responses import (
        Response,
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
        ResponseUsage,
    )
    from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails

    response = Response(
        id="resp_bare",
        object="response",
        created_at=1_767_000_000,
        model="gpt-4.1-mini-2025-04-14",
        instructions="You are a support agent.",
        parallel_tool_calls=True,
        tool_choice="auto",
        tools=[],
        status="completed",
        output=[
            ResponseOutputMessage(
                id="msg_bare",
                type="message",
                role="assistant",
                status="completed",
                content=[ResponseOutputText(type="output_text", text="Checking.", annotations=[])],
            ),
            ResponseFunctionToolCall(
                id="fc_bare",
                type="function_call",
                call_id="call_bare",
                name="lookup_order",
                arguments=json.dumps(LOOKUP),
                status="completed",
            ),
        ],
        usage=ResponseUsage(
            input_tokens=150,
            output_tokens=25,
            total_tokens=175,
            input_tokens_details=InputTokensDetails(cached_tokens=0, cache_write_tokens=0),
            output_tokens_details=OutputTokensDetails(reasoning_tokens=0),
        ),
    )
    return [
        ("bare-response", response.model_dump(mode="json")),
        ("stream-events", responses_stream(response)),
        ("stream-events-no-sequence", _without_sequence(responses_stream(response))),
        ("plain-input-response", _plain_input(response)),
    ]


def _plain_input(response: Any) -> Any:
    """A request of plain text messages saved with the Response that answered it."""
    answer = response.model_copy(update={"output": response.output[:1], "instructions": None})
    return {
        "input": [{"role": "user", "content": "Where is ORD-1042?"}],
        "response": answer.model_dump(mode="json"),
    }


def _without_sequence(items: list[Any]) -> list[Any]:
    """The events as SDKs before `sequence_number` (March 2025) recorded them."""
    return [{k: v for k, v in item.items() if k != "sequence_number"} for item in items]


def _message(message_id: str, blocks: list[Any], usage: tuple[int, int], stop: str | None) -> Any:
    from anthropic.types import Message, Usage

    return Message(
        id=message_id,
        type="message",
        role="assistant",
        model="claude-sonnet-4-5",
        content=blocks,
        stop_reason=stop,
        stop_sequence=None,
        usage=Usage(input_tokens=usage[0], output_tokens=usage[1], cache_read_input_tokens=500),
    ).model_dump(mode="json")


def split_blocks() -> Any:
    """Message dumps written one entry per content block, each repeating the message's id
    and usage (as session logs write them): usage is billed once per message."""
    from anthropic.types import TextBlock, ThinkingBlock, ToolUseBlock

    thinking = ThinkingBlock(type="thinking", thinking="Look it up first.", signature="sig")
    text = TextBlock(type="text", text="Let me check.")
    use = ToolUseBlock(type="tool_use", id="toolu_1", name="lookup_order", input=LOOKUP)
    return [
        {"role": "user", "content": "Where is ORD-1042?"},
        _message("msg_A", [thinking], (30, 40), None),
        _message("msg_A", [text], (30, 40), None),
        _message("msg_A", [use], (30, 40), "tool_use"),
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": ORDER_TEXT}],
        },
        _message("msg_B", [TextBlock(type="text", text="Delivered.")], (60, 5), "end_turn"),
    ]


def repeated_pieces() -> Any:
    """One Message whose text is written in blocks, two of them equal (". "): the equal
    blocks of one entry are the message's own text, not a repeated entry."""
    from anthropic.types import TextBlock

    pieces = ["Sunny", ". ", "Windy", ". ", "Done"]
    blocks = [TextBlock(type="text", text=piece) for piece in pieces]
    return [
        {"role": "user", "content": "Weather?"},
        _message("msg_R", blocks, (3, 4), "end_turn"),
    ]


def bundle_responses() -> Any:
    """`{system, messages, responses}`: the request as sent (assistant turns without usage)
    and every Message the API returned, the last not yet appended to `messages`."""
    from anthropic.types import TextBlock, ToolUseBlock

    use = ToolUseBlock(type="tool_use", id="toolu_b1", name="lookup_order", input=LOOKUP)
    first = _message(
        "msg_b1", [TextBlock(type="text", text="Checking."), use], (100, 20), "tool_use"
    )
    final = _message("msg_b2", [TextBlock(type="text", text="Delivered.")], (140, 6), "end_turn")
    sent = {"role": "assistant", "content": list(first["content"])}
    return {
        "system": [{"type": "text", "text": "You are a support agent."}],
        "messages": [
            {"role": "user", "content": "Where is ORD-1042?"},
            sent,
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_b1", "content": ORDER_TEXT}
                ],
            },
        ],
        "responses": [first, final],
    }


def bundle_history() -> Any:
    """A bundle whose `messages` start with an assistant turn of earlier history (no id,
    no usage): each response goes to the message it is, the last to a step of its own."""
    from anthropic.types import TextBlock, ToolUseBlock

    use = ToolUseBlock(type="tool_use", id="toolu_h1", name="lookup_order", input=LOOKUP)
    first = _message("msg_h1", [use], (100, 20), "tool_use")
    final = _message("msg_h2", [TextBlock(type="text", text="Delivered.")], (140, 6), "end_turn")
    return {
        "messages": [
            {"role": "assistant", "content": "Hello, how can I help?"},
            {"role": "user", "content": "Where is ORD-1042?"},
            {"role": "assistant", "content": [use.model_dump(mode="json", exclude_none=True)]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_h1", "content": ORDER_TEXT}
                ],
            },
        ],
        "responses": [first, final],
    }


def bundle_plain() -> Any:
    """A bundle of plain text messages (a greeting of earlier history, the question): only
    its `responses` say which API it is."""
    from anthropic.types import TextBlock

    answer = _message("msg_p1", [TextBlock(type="text", text="30 days.")], (41, 8), "end_turn")
    return {
        "system": "You are a support agent.",
        "messages": [
            {"role": "assistant", "content": "Hello, how can I help?"},
            {"role": "user", "content": "Refund window?"},
        ],
        "responses": [answer],
    }


def stream_events() -> Any:
    """The raw events of `messages.stream()`, saved as they arrived."""
    from anthropic.types import (
        InputJSONDelta,
        MessageDeltaUsage,
        RawContentBlockDeltaEvent,
        RawContentBlockStartEvent,
        RawContentBlockStopEvent,
        RawMessageDeltaEvent,
        RawMessageStartEvent,
        RawMessageStopEvent,
        TextBlock,
        TextDelta,
        ToolUseBlock,
    )
    from anthropic.types.raw_message_delta_event import Delta

    start = _message("msg_stream", [], (75, 1), None)
    events = [
        RawMessageStartEvent(type="message_start", message=start),
        RawContentBlockStartEvent(
            type="content_block_start", index=0, content_block=TextBlock(type="text", text="")
        ),
        RawContentBlockDeltaEvent(
            type="content_block_delta", index=0, delta=TextDelta(type="text_delta", text="Let me ")
        ),
        RawContentBlockDeltaEvent(
            type="content_block_delta", index=0, delta=TextDelta(type="text_delta", text="check.")
        ),
        RawContentBlockStopEvent(type="content_block_stop", index=0),
        RawContentBlockStartEvent(
            type="content_block_start",
            index=1,
            content_block=ToolUseBlock(
                type="tool_use", id="toolu_s1", name="lookup_order", input={}
            ),
        ),
        RawContentBlockDeltaEvent(
            type="content_block_delta",
            index=1,
            delta=InputJSONDelta(type="input_json_delta", partial_json='{"order_id": "ORD-'),
        ),
        RawContentBlockDeltaEvent(
            type="content_block_delta",
            index=1,
            delta=InputJSONDelta(type="input_json_delta", partial_json='1042"}'),
        ),
        RawContentBlockStopEvent(type="content_block_stop", index=1),
        RawMessageDeltaEvent(
            type="message_delta",
            delta=Delta(stop_reason="tool_use", stop_sequence=None),
            usage=MessageDeltaUsage(output_tokens=33),
        ),
        RawMessageStopEvent(type="message_stop"),
    ]
    return [
        {"role": "user", "content": "Where is ORD-1042?"},
        *(e.model_dump(mode="json", exclude_none=True) for e in events),
    ]


def anthropic_messages() -> list[tuple[str, Any]]:
    return [
        ("split-blocks", split_blocks()),
        ("repeated-pieces", repeated_pieces()),
        ("bundle-responses", bundle_responses()),
        ("bundle-history", bundle_history()),
        ("bundle-plain", bundle_plain()),
        ("stream-events", stream_events()),
    ]


def cohere_chat() -> list[tuple[str, Any]]:
    """A reasoning model's conversation: tool_plan with calls, tool results as a string and
    as documents, a final answer after thinking (claimed by Anthropic's detection too)."""
    import cohere

    def call(n: int) -> Any:
        function = cohere.ToolCallV2Function(name="lookup_order", arguments=json.dumps(LOOKUP))
        return cohere.ToolCallV2(id=f"call_c{n}", type="function", function=function)

    messages: list[Any] = [cohere.UserChatMessageV2(role="user", content="Where is ORD-1042?")]
    for n in range(2):
        messages.append(
            cohere.AssistantChatMessageV2(
                role="assistant", tool_plan=f"Look up the order ({n + 1}).", tool_calls=[call(n)]
            )
        )
        content: Any = (
            "upstream timeout"
            if n == 0
            else [
                cohere.DocumentToolContent(
                    type="document", document=cohere.Document(data=ORDER, id="d1")
                )
            ]
        )
        messages.append(
            cohere.ToolChatMessageV2(role="tool", tool_call_id=f"call_c{n}", content=content)
        )
    messages.append(
        cohere.AssistantChatMessageV2(
            role="assistant",
            content=[
                cohere.ThinkingAssistantMessageV2ContentOneItem(
                    type="thinking", thinking="Found it."
                ),
                cohere.TextAssistantMessageV2ContentOneItem(type="text", text="It was delivered."),
            ],
        )
    )
    body = {
        "model": "command-a-reasoning-08-2025",
        "messages": [m.model_dump(mode="json") for m in messages],
    }
    return [("plan-thinking-documents", body), ("stream-events", cohere_stream())]


def google_genai() -> list[tuple[str, Any]]:
    """`generate_content_stream`, every chunk saved: one response id, usage cumulative."""
    from google.genai import types as g

    def chunk(parts: list[Any], output_tokens: int, done: bool = False) -> Any:
        return g.GenerateContentResponse(
            response_id="gemini-stream",
            model_version="gemini-2.5-flash",
            candidates=[
                g.Candidate(
                    index=0,
                    content=g.Content(role="model", parts=parts),
                    finish_reason=g.FinishReason.STOP if done else None,
                )
            ],
            usage_metadata=g.GenerateContentResponseUsageMetadata(
                prompt_token_count=70,
                candidates_token_count=output_tokens,
                total_token_count=70 + output_tokens,
            ),
        ).model_dump(mode="json", exclude_none=True)

    call = g.Part(function_call=g.FunctionCall(id="fc_g1", name="lookup_order", args=LOOKUP))
    contents = [
        g.Content(role="user", parts=[g.Part(text="Where is ORD-1042?")]).model_dump(
            mode="json", exclude_none=True
        ),
        chunk([g.Part(text="Let me ")], 3),
        chunk([g.Part(text="check.")], 6),
        chunk([call], 15, done=True),
    ]
    return [("stream-chunks", {"contents": contents})]


def otel_genai() -> list[tuple[str, Any]]:
    """Spans of the GenAI conventions before v1.27: no operation name, `gen_ai.system`,
    prompt/completion token counts, content in gen_ai.content.* span events."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import Event, ReadableSpan
    from opentelemetry.trace import SpanContext, SpanKind, TraceFlags

    base = 1_768_467_600_000_000_000
    trace_id = int.from_bytes(b"legacy-names\0\0\0\0", "big")

    def span(n: int, answer: str, tokens: tuple[int, int], prompt: list[Any]) -> Any:
        completion = [{"role": "assistant", "content": answer}]
        return ReadableSpan(
            "chat gpt-4",
            SpanContext(trace_id, n, is_remote=False, trace_flags=TraceFlags(1)),
            resource=Resource({"service.name": "legacy-app"}),
            attributes={
                "gen_ai.system": "openai",
                "gen_ai.request.model": "gpt-4",
                "gen_ai.response.model": "gpt-4-0613",
                "gen_ai.usage.prompt_tokens": tokens[0],
                "gen_ai.usage.completion_tokens": tokens[1],
            },
            events=[
                Event("gen_ai.content.prompt", {"gen_ai.prompt": json.dumps(prompt)}, base),
                Event(
                    "gen_ai.content.completion", {"gen_ai.completion": json.dumps(completion)}, base
                ),
            ],
            kind=SpanKind.CLIENT,
            start_time=base + n * 1_000_000_000,
            end_time=base + n * 1_000_000_000 + 400_000_000,
        )

    question = [{"role": "user", "content": "What is the refund window?"}]
    follow = [
        *question,
        {"role": "assistant", "content": "30 days."},
        {"role": "user", "content": "Shipping?"},
    ]
    spans = [
        span(1, "30 days.", (40, 4), question),
        span(2, "Shipping is not refunded.", (55, 6), follow),
    ]
    return [
        ("legacy-names", hex_ids(MessageToDict(encode_spans(spans), use_integers_for_enums=True))),
        ("indexed-attributes", _otel_indexed()),
        ("details-event", _otel_details_event()),
    ]


def _otel_request(spans: list[Any]) -> Any:
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    return hex_ids(MessageToDict(encode_spans(spans), use_integers_for_enums=True))


def _otel_indexed() -> Any:
    """Content in indexed attributes (`gen_ai.prompt.0.content`,
    `gen_ai.completion.0.tool_calls.0.name`), as OpenLLMetry-style instrumentations write
    it, with the names before v1.27."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.trace import SpanContext, SpanKind, TraceFlags

    base = 1_768_467_600_000_000_000
    trace_id = int.from_bytes(b"indexed-attrs\0\0\0", "big")
    prompt = {
        "gen_ai.prompt.0.role": "system",
        "gen_ai.prompt.0.content": "You are a support agent.",
        "gen_ai.prompt.1.role": "user",
        "gen_ai.prompt.1.content": "Where is ORD-1042?",
    }

    def span(n: int, attributes: dict[str, Any]) -> Any:
        return ReadableSpan(
            "openai.chat",
            SpanContext(trace_id, n, is_remote=False, trace_flags=TraceFlags(1)),
            resource=Resource({"service.name": "indexed-app"}),
            attributes={
                "gen_ai.system": "openai",
                "gen_ai.request.model": "gpt-4o",
                "llm.request.type": "chat",
                **prompt,
                **attributes,
            },
            kind=SpanKind.CLIENT,
            start_time=base + n * 1_000_000_000,
            end_time=base + n * 1_000_000_000 + 300_000_000,
        )

    first = span(
        1,
        {
            "gen_ai.completion.0.role": "assistant",
            "gen_ai.completion.0.finish_reason": "tool_calls",
            "gen_ai.completion.0.tool_calls.0.id": "call_ix1",
            "gen_ai.completion.0.tool_calls.0.name": "lookup_order",
            "gen_ai.completion.0.tool_calls.0.arguments": json.dumps(LOOKUP),
            "gen_ai.usage.prompt_tokens": 60,
            "gen_ai.usage.completion_tokens": 18,
        },
    )
    second = span(
        2,
        {
            "gen_ai.prompt.2.role": "assistant",
            "gen_ai.prompt.2.tool_calls.0.id": "call_ix1",
            "gen_ai.prompt.2.tool_calls.0.name": "lookup_order",
            "gen_ai.prompt.2.tool_calls.0.arguments": json.dumps(LOOKUP),
            "gen_ai.prompt.3.role": "tool",
            "gen_ai.prompt.3.tool_call_id": "call_ix1",
            "gen_ai.prompt.3.content": ORDER_TEXT,
            "gen_ai.completion.0.role": "assistant",
            "gen_ai.completion.0.content": "ORD-1042 was delivered.",
            "gen_ai.usage.prompt_tokens": 95,
            "gen_ai.usage.completion_tokens": 7,
        },
    )
    return _otel_request([first, second])


def _otel_details_event() -> Any:
    """v1.37+: the messages on the span's `gen_ai.client.inference.operation.details`
    event instead of its attributes."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import Event, ReadableSpan
    from opentelemetry.trace import SpanContext, SpanKind, TraceFlags

    base = 1_768_467_600_000_000_000
    trace_id = int.from_bytes(b"details-event\0\0\0", "big")
    messages = [{"role": "user", "parts": [{"type": "text", "content": "Refund window?"}]}]
    output = [{"role": "assistant", "parts": [{"type": "text", "content": "30 days."}]}]
    details = Event(
        "gen_ai.client.inference.operation.details",
        {
            "gen_ai.input.messages": json.dumps(messages),
            "gen_ai.output.messages": json.dumps(output),
        },
        base,
    )
    made = ReadableSpan(
        "chat gpt-4.1-mini",
        SpanContext(trace_id, 1, is_remote=False, trace_flags=TraceFlags(1)),
        resource=Resource({"service.name": "details-app"}),
        attributes={
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "openai",
            "gen_ai.request.model": "gpt-4.1-mini",
            "gen_ai.usage.input_tokens": 30,
            "gen_ai.usage.output_tokens": 4,
        },
        events=[details],
        kind=SpanKind.CLIENT,
        start_time=base,
        end_time=base + 200_000_000,
    )
    return _otel_request([made])


def responses_stream(final: Any) -> Any:
    """`responses.create(stream=True)`, every event saved: the items as they finish, then
    the completed response (with usage)."""
    from openai.types.responses import (
        ResponseCompletedEvent,
        ResponseCreatedEvent,
        ResponseOutputItemDoneEvent,
        ResponseTextDeltaEvent,
    )

    started = final.model_copy(update={"output": [], "usage": None, "status": "in_progress"})
    events: list[Any] = [
        ResponseCreatedEvent(type="response.created", sequence_number=0, response=started)
    ]
    for n, text in enumerate(("Check", "ing.")):
        events.append(
            ResponseTextDeltaEvent(
                type="response.output_text.delta",
                sequence_number=1 + n,
                item_id="msg_bare",
                output_index=0,
                content_index=0,
                delta=text,
                logprobs=[],
            )
        )
    for n, item in enumerate(final.output):
        events.append(
            ResponseOutputItemDoneEvent(
                type="response.output_item.done", sequence_number=3 + n, output_index=n, item=item
            )
        )
    events.append(
        ResponseCompletedEvent(type="response.completed", sequence_number=5, response=final)
    )
    return [
        {"role": "user", "content": "Where is ORD-1042?"},
        *(e.model_dump(mode="json", exclude_none=True) for e in events),
    ]


def cohere_stream() -> Any:
    """`chat_stream`, every event saved: a tool plan and a call, the result, the answer."""
    import cohere

    def start(n: int) -> Any:
        return cohere.MessageStartV2ChatStreamResponse(
            type="message-start",
            id=f"cohere-stream-{n}",
            delta=cohere.ChatMessageStartEventDelta(
                message=cohere.ChatMessageStartEventDeltaMessage(role="assistant")
            ),
        )

    def end(tokens: tuple[float, float], reason: str) -> Any:
        usage = cohere.Usage(
            tokens=cohere.UsageTokens(input_tokens=tokens[0], output_tokens=tokens[1])
        )
        return cohere.MessageEndV2ChatStreamResponse(
            type="message-end",
            delta=cohere.ChatMessageEndEventDelta(finish_reason=reason, usage=usage),
        )

    def plan(text: str) -> Any:
        return cohere.ToolPlanDeltaV2ChatStreamResponse(
            type="tool-plan-delta",
            delta=cohere.ChatToolPlanDeltaEventDelta(
                message=cohere.ChatToolPlanDeltaEventDeltaMessage(tool_plan=text)
            ),
        )

    def arguments(text: str) -> Any:
        function = cohere.ChatToolCallDeltaEventDeltaMessageToolCallsFunction(arguments=text)
        calls = cohere.ChatToolCallDeltaEventDeltaMessageToolCalls(function=function)
        return cohere.ToolCallDeltaV2ChatStreamResponse(
            type="tool-call-delta",
            index=0,
            delta=cohere.ChatToolCallDeltaEventDelta(
                message=cohere.ChatToolCallDeltaEventDeltaMessage(tool_calls=calls)
            ),
        )

    def text(piece: str) -> Any:
        content = cohere.ChatContentDeltaEventDeltaMessageContent(text=piece)
        return cohere.ContentDeltaV2ChatStreamResponse(
            type="content-delta",
            index=0,
            delta=cohere.ChatContentDeltaEventDelta(
                message=cohere.ChatContentDeltaEventDeltaMessage(content=content)
            ),
        )

    call = cohere.ToolCallV2(
        id="call_cs1",
        type="function",
        function=cohere.ToolCallV2Function(name="lookup_order", arguments=""),
    )
    first = [
        start(1),
        plan("I will look "),
        plan("up the order."),
        cohere.ToolCallStartV2ChatStreamResponse(
            type="tool-call-start",
            index=0,
            delta=cohere.ChatToolCallStartEventDelta(
                message=cohere.ChatToolCallStartEventDeltaMessage(tool_calls=call)
            ),
        ),
        arguments('{"order_id": '),
        arguments('"ORD-1042"}'),
        cohere.ToolCallEndV2ChatStreamResponse(type="tool-call-end", index=0),
        end((90, 21), "TOOL_CALL"),
    ]
    second = [
        start(2),
        cohere.ContentStartV2ChatStreamResponse(
            type="content-start",
            index=0,
            delta=cohere.ChatContentStartEventDelta(
                message=cohere.ChatContentStartEventDeltaMessage(
                    content=cohere.ChatContentStartEventDeltaMessageContent(type="text", text="")
                )
            ),
        ),
        text("It was "),
        text("delivered."),
        cohere.ContentEndV2ChatStreamResponse(type="content-end", index=0),
        end((140, 5), "COMPLETE"),
    ]
    result = cohere.ToolChatMessageV2(role="tool", tool_call_id="call_cs1", content=ORDER_TEXT)
    dumped = [e.model_dump(mode="json") for e in first]
    dumped.append(result.model_dump(mode="json"))
    dumped += [e.model_dump(mode="json") for e in second]
    return [{"role": "user", "content": "Where is ORD-1042?"}, *dumped]


LOSSES: dict[str, Callable[[], list[tuple[str, Any]]]] = {
    "openai-chat": openai_chat,
    "openai-responses": openai_responses,
    "anthropic-messages": anthropic_messages,
    "cohere-chat": cohere_chat,
    "google-genai": google_genai,
    "otel-genai": otel_genai,
}
