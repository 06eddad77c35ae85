"""Render scenarios as Pydantic AI message histories: a real `Agent` run offline on a
FunctionModel that replays the scenario's model turns, with tools that return (or raise
ModelRetry for) the scenario's results, dumped by `ModelMessagesTypeAdapter`."""

# The SDKs are an optional test extra: import them only when a fixture is built.
# ruff: noqa: PLC0415
# No `from __future__ import annotations`: pydantic-ai reads the tools' annotations at run
# time, and RunContext is imported inside the function that defines them.

import json
import warnings
from typing import Any

from scenarios import LOOKUP, ORDER, Call, Result, Scenario, Turn

MODEL = "gpt-4.1-mini"


def _response(turn: Turn) -> Any:
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.usage import RequestUsage

    parts: list[Any] = [TextPart(t) for t in turn.texts]
    parts += [
        ToolCallPart(c.name, c.raw_args if c.raw_args is not None else dict(c.args), c.call_id)
        for c in turn.calls
    ]
    usage = RequestUsage(input_tokens=turn.usage[0], output_tokens=turn.usage[1])
    return ModelResponse(parts=parts, usage=usage, model_name=MODEL)


def _agent(turns: list[Any], results: dict[str, Result], **options: Any) -> Any:
    """An Agent whose model replays `turns` (ModelResponses) and whose tools answer from
    `results` by call id (an error result raises ModelRetry: pydantic-ai's retry)."""
    from pydantic_ai import Agent, ModelRetry, RunContext
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    replay = iter(turns)

    def model(messages: list[Any], info: AgentInfo) -> Any:
        return next(replay)

    agent: Any = Agent(FunctionModel(model, model_name=MODEL), **options)

    def answer(ctx: RunContext[None]) -> Any:
        result = results[ctx.tool_call_id or ""]
        if result.error:
            raise ModelRetry(result.error)
        return result.output

    @agent.tool
    def lookup_order(ctx: RunContext[None], order_id: str) -> Any:
        """Look up an order."""
        return answer(ctx)

    @agent.tool
    def search_kb(ctx: RunContext[None], query: str, top_k: int = 3) -> Any:
        """Search the knowledge base."""
        return answer(ctx)

    @agent.tool
    def issue_refund(ctx: RunContext[None], order_id: str, amount: float, currency: str) -> Any:
        """Refund an order."""
        return answer(ctx)

    return agent


def _dump(messages: list[Any], name: str) -> Any:
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    return normalise(json.loads(ModelMessagesTypeAdapter.dump_json(messages)), name)


def normalise(value: Any, name: str) -> Any:
    """Fixed clocks and ids in place of the run's wall-clock times and random ids."""
    counter = iter(range(1_000_000))

    def walk(item: Any) -> Any:
        if isinstance(item, dict):
            out = {}
            for k, v in item.items():
                fixed = v
                if k == "timestamp" and isinstance(v, str):
                    fixed = f"2026-01-15T09:00:{next(counter):02d}.000000Z"
                elif k in ("run_id", "conversation_id") and isinstance(v, str):
                    fixed = f"{k.split('_')[0]}-{name}"
                out[k] = walk(fixed)
            return out
        if isinstance(item, list):
            return [walk(v) for v in item]
        return item

    return walk(value)


def pydantic_ai(s: Scenario) -> Any:
    from pydantic_ai.messages import ModelRequest, ToolReturnPart

    agent = _agent([_response(t) for t in s.turns], s.results, system_prompt="You help.")
    messages = list(agent.run_sync(s.user).all_messages())
    if s.orphan is not None:  # a result for a call never made, sent after everything
        part = ToolReturnPart(s.orphan.name, s.orphan.output, s.orphan.call_id)
        messages.append(ModelRequest(parts=[part]))
    return _dump(messages, s.name)


def extras() -> list[tuple[str, Any]]:
    return [
        ("invalid-args-thinking.json", _invalid_args()),
        ("legacy-retry-prompt.json", _legacy()),
    ]


def _invalid_args() -> Any:
    """Arguments that fail validation (pydantic-ai retries the call with the errors), a
    thinking part, a multi-modal prompt and agent instructions."""
    from pydantic_ai.messages import ImageUrl, ModelResponse, TextPart, ThinkingPart, ToolCallPart
    from pydantic_ai.usage import RequestUsage

    turns = [
        ModelResponse(
            parts=[
                ThinkingPart("The user wants the order status."),
                ToolCallPart("lookup_order", {"order": 1042}, "call_bad1"),
            ],
            usage=RequestUsage(input_tokens=210, output_tokens=30),
            model_name=MODEL,
        ),
        _response(Turn((), (Call("call_lookup2", "lookup_order", LOOKUP),), (260, 12))),
        ModelResponse(
            parts=[TextPart("ORD-1042 was delivered.")],
            usage=RequestUsage(input_tokens=300, output_tokens=9),
            model_name=MODEL,
        ),
    ]
    results = {"call_lookup2": Result("call_lookup2", "lookup_order", ORDER)}
    agent = _agent(turns, results, instructions="Answer order questions only.")
    prompt = ["Where is this order?", ImageUrl("https://example.com/receipt.png")]
    return _dump(list(agent.run_sync(prompt).all_messages()), "invalid-args-thinking")


def _legacy() -> Any:
    """A history stored by an older pydantic-ai: tool retries as `retry-prompt` parts."""
    from pydantic_ai.messages import (
        ModelRequest,
        RetryPromptPart,
        SystemPromptPart,
        ToolReturnPart,
        UserPromptPart,
    )

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        retry = RetryPromptPart(
            "upstream timeout", tool_name="lookup_order", tool_call_id="call_lookup1"
        )
    first = _response(Turn((), (Call("call_lookup1", "lookup_order", LOOKUP),), (100, 12)))
    second = _response(
        Turn(("Retrying.",), (Call("call_lookup2", "lookup_order", LOOKUP),), (140, 20))
    )
    final = _response(Turn(("Order ORD-1042 was delivered.",), (), (190, 9)))
    messages = [
        ModelRequest(parts=[SystemPromptPart("You help."), UserPromptPart("Where is ORD-1042?")]),
        first,
        ModelRequest(parts=[retry]),
        second,
        ModelRequest(parts=[ToolReturnPart("lookup_order", ORDER, "call_lookup2")]),
        final,
    ]
    return _dump(messages, "legacy-retry-prompt")
