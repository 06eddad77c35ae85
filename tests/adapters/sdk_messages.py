"""Render scenarios as message-list transcripts with the vendors' own SDK classes (offline).

Each function returns what a user persists: the message list sent back to the
API, with each model turn as the SDK's response object dumped to JSON.
"""

# The SDKs are an optional test extra: import them only when a fixture is built.
# ruff: noqa: PLC0415

from __future__ import annotations

import json
from typing import Any

from scenarios import Call, Result, Scenario, Turn


def _text(output: str | dict[str, Any]) -> str:
    return output if isinstance(output, str) else json.dumps(output)


def _args(call: Call) -> str:
    return call.raw_args if call.raw_args is not None else json.dumps(call.args)


# --- OpenAI Chat Completions ---------------------------------------------------------


def openai_chat(s: Scenario) -> list[Any]:
    from openai.types.chat import (
        ChatCompletion,
        ChatCompletionMessage,
        ChatCompletionMessageFunctionToolCall,
        ChatCompletionToolMessageParam,
        ChatCompletionUserMessageParam,
    )
    from openai.types.chat.chat_completion import Choice
    from openai.types.chat.chat_completion_message_function_tool_call import Function
    from openai.types.completion_usage import CompletionUsage

    items: list[Any] = [ChatCompletionUserMessageParam(role="user", content=s.user)]
    for n, event in enumerate(s.events):
        if isinstance(event, Turn):
            calls = [
                ChatCompletionMessageFunctionToolCall(
                    id=c.call_id,
                    type="function",
                    function=Function(name=c.name, arguments=_args(c)),
                )
                for c in event.calls
            ]
            content: Any = None
            if len(event.texts) == 1:
                content = event.texts[0]
            message = ChatCompletionMessage(
                role="assistant", content=content, tool_calls=calls or None
            )
            completion = ChatCompletion(
                id=f"chatcmpl-{s.name}-{n}",
                object="chat.completion",
                created=1_767_000_000 + n,
                model="gpt-4.1-mini-2025-04-14",
                choices=[
                    Choice(
                        index=0, finish_reason="tool_calls" if calls else "stop", message=message
                    )
                ],
                usage=CompletionUsage(
                    prompt_tokens=event.usage[0],
                    completion_tokens=event.usage[1],
                    total_tokens=sum(event.usage),
                ),
            )
            dumped = completion.model_dump(mode="json")
            if len(event.texts) > 1:  # multi-part content, as sent back in the next request
                dumped["choices"][0]["message"]["content"] = [
                    {"type": "text", "text": t} for t in event.texts
                ]
            items.append(dumped)
        else:
            for r in event:
                items.append(_chat_tool_message(ChatCompletionToolMessageParam, r))
    if s.orphan is not None:
        items.append(_chat_tool_message(ChatCompletionToolMessageParam, s.orphan))
    return items


def _chat_tool_message(cls: Any, r: Result) -> Any:
    if r.parts:
        return cls(
            role="tool",
            tool_call_id=r.call_id,
            content=[{"type": "text", "text": p} for p in r.parts],
        )
    return cls(role="tool", tool_call_id=r.call_id, content=_text(r.output))


# --- OpenAI Responses ----------------------------------------------------------------


def openai_responses(s: Scenario) -> list[Any]:
    from openai.types.responses import (
        Response,
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
        ResponseUsage,
    )
    from openai.types.responses.response_input_item_param import FunctionCallOutput
    from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails

    items: list[Any] = [{"role": "user", "content": s.user}]
    for n, event in enumerate(s.events):
        if isinstance(event, Turn):
            output: list[Any] = []
            if event.texts:
                parts = [
                    ResponseOutputText(type="output_text", text=t, annotations=[])
                    for t in event.texts
                ]
                output.append(
                    ResponseOutputMessage(
                        id=f"msg_{s.name}_{n}",
                        type="message",
                        role="assistant",
                        status="completed",
                        content=parts,
                    )
                )
            for c in event.calls:
                output.append(
                    ResponseFunctionToolCall(
                        id=f"fc_{c.call_id}",
                        type="function_call",
                        call_id=c.call_id,
                        name=c.name,
                        arguments=_args(c),
                        status="completed",
                    )
                )
            response = Response(
                id=f"resp_{s.name}_{n}",
                object="response",
                created_at=1_767_000_000 + n,
                model="gpt-4.1-mini-2025-04-14",
                output=output,
                parallel_tool_calls=True,
                tool_choice="auto",
                tools=[],
                status="completed",
                usage=ResponseUsage(
                    input_tokens=event.usage[0],
                    output_tokens=event.usage[1],
                    total_tokens=sum(event.usage),
                    input_tokens_details=InputTokensDetails(cached_tokens=0, cache_write_tokens=0),
                    output_tokens_details=OutputTokensDetails(reasoning_tokens=0),
                ),
            )
            items.append(response.model_dump(mode="json", exclude_none=True))
        else:
            items.extend(_responses_output(FunctionCallOutput, r) for r in event)
    if s.orphan is not None:
        items.append(_responses_output(FunctionCallOutput, s.orphan))
    return items


def _responses_output(cls: Any, r: Result) -> Any:
    if r.parts:
        return cls(
            type="function_call_output",
            call_id=r.call_id,
            output=[{"type": "input_text", "text": p} for p in r.parts],
        )
    return cls(type="function_call_output", call_id=r.call_id, output=_text(r.output))


# --- Anthropic Messages --------------------------------------------------------------


def anthropic_messages(s: Scenario) -> list[Any]:
    from anthropic.types import (
        Message,
        TextBlock,
        TextBlockParam,
        ToolResultBlockParam,
        ToolUseBlock,
        Usage,
    )

    items: list[Any] = [{"role": "user", "content": s.user}]
    pending: list[Any] = []

    def flush() -> None:
        if pending:
            items.append({"role": "user", "content": list(pending)})
            pending.clear()

    for n, event in enumerate(s.events):
        if isinstance(event, Turn):
            flush()
            blocks: list[Any] = [TextBlock(type="text", text=t) for t in event.texts]
            blocks += [
                ToolUseBlock(type="tool_use", id=c.call_id, name=c.name, input=c.args)
                for c in event.calls
            ]
            message = Message(
                id=f"msg_{s.name}_{n}",
                type="message",
                role="assistant",
                model="claude-sonnet-4-5",
                content=blocks,
                stop_reason="tool_use" if event.calls else "end_turn",
                stop_sequence=None,
                usage=Usage(input_tokens=event.usage[0], output_tokens=event.usage[1]),
            )
            items.append(message.model_dump(mode="json"))
        else:
            for r in event:
                pending.append(_anthropic_result(ToolResultBlockParam, TextBlockParam, r))
    if s.orphan is not None:
        pending.append(_anthropic_result(ToolResultBlockParam, TextBlockParam, s.orphan))
    flush()
    return items


def _anthropic_result(cls: Any, text_cls: Any, r: Result) -> Any:
    content: Any = [text_cls(type="text", text=p) for p in r.parts] if r.parts else _text(r.output)
    if r.error is not None:
        return cls(type="tool_result", tool_use_id=r.call_id, content=r.error, is_error=True)
    return cls(type="tool_result", tool_use_id=r.call_id, content=content)


# --- Cohere Chat v2 ------------------------------------------------------------------


def cohere_chat(s: Scenario) -> list[Any]:
    import cohere

    items: list[Any] = [
        cohere.UserChatMessageV2(role="user", content=s.user).model_dump(mode="json")
    ]
    for n, event in enumerate(s.events):
        if isinstance(event, Turn):
            calls = [
                cohere.ToolCallV2(
                    id=c.call_id,
                    type="function",
                    function=cohere.ToolCallV2Function(name=c.name, arguments=_args(c)),
                )
                for c in event.calls
            ]
            # Cohere writes the text before tool calls as tool_plan, final text as content.
            plan = "".join(event.texts) if calls and event.texts else None
            content = (
                [
                    cohere.TextAssistantMessageResponseContentItem(type="text", text=t)
                    for t in event.texts
                ]
                if event.texts and not calls
                else None
            )
            response = cohere.V2ChatResponse(
                id=f"cohere-{s.name}-{n}",
                finish_reason="TOOL_CALL" if calls else "COMPLETE",
                message=cohere.AssistantMessageResponse(
                    role="assistant", tool_plan=plan, tool_calls=calls or None, content=content
                ),
                usage=cohere.Usage(
                    billed_units=cohere.UsageBilledUnits(
                        input_tokens=event.usage[0], output_tokens=event.usage[1]
                    ),
                    tokens=cohere.UsageTokens(
                        input_tokens=event.usage[0], output_tokens=event.usage[1]
                    ),
                ),
            )
            items.append(response.model_dump(mode="json"))
        else:
            items.extend(_cohere_result(cohere, r) for r in event)
    if s.orphan is not None:
        items.append(_cohere_result(cohere, s.orphan))
    return items


def _cohere_result(cohere: Any, r: Result) -> Any:
    if r.parts:
        content = [cohere.TextToolContent(type="text", text=p) for p in r.parts]
    elif isinstance(r.output, dict):
        content = [
            cohere.DocumentToolContent(
                type="document", document=cohere.Document(data=r.output, id=r.call_id)
            )
        ]
    else:
        content = [cohere.TextToolContent(type="text", text=r.output)]
    message = cohere.ToolChatMessageV2(role="tool", tool_call_id=r.call_id, content=content)
    return message.model_dump(mode="json")


# --- Google Gen AI -------------------------------------------------------------------


def google_genai(s: Scenario) -> list[Any]:
    from google.genai import types as g

    items: list[Any] = [
        g.Content(role="user", parts=[g.Part(text=s.user)]).model_dump(
            mode="json", exclude_none=True
        )
    ]
    pending: list[Any] = []

    def flush() -> None:
        if pending:
            items.append(
                g.Content(role="user", parts=list(pending)).model_dump(
                    mode="json", exclude_none=True
                )
            )
            pending.clear()

    for n, event in enumerate(s.events):
        if isinstance(event, Turn):
            flush()
            parts = [g.Part(text=t) for t in event.texts]
            parts += [
                g.Part(function_call=g.FunctionCall(id=c.call_id, name=c.name, args=c.args))
                for c in event.calls
            ]
            response = g.GenerateContentResponse(
                response_id=f"gemini-{s.name}-{n}",
                model_version="gemini-2.5-flash",
                candidates=[
                    g.Candidate(
                        content=g.Content(role="model", parts=parts),
                        finish_reason=g.FinishReason.STOP,
                        index=0,
                    )
                ],
                usage_metadata=g.GenerateContentResponseUsageMetadata(
                    prompt_token_count=event.usage[0],
                    candidates_token_count=event.usage[1],
                    total_token_count=sum(event.usage),
                ),
            )
            items.append(response.model_dump(mode="json", exclude_none=True))
        else:
            pending.extend(_gemini_result(g, r) for r in event)
    if s.orphan is not None:
        pending.append(_gemini_result(g, s.orphan))
    flush()
    return items


def _gemini_result(g: Any, r: Result) -> Any:
    body: dict[str, Any] = {"error": r.error} if r.error is not None else {"output": r.output}
    return g.Part(function_response=g.FunctionResponse(id=r.call_id, name=r.name, response=body))
