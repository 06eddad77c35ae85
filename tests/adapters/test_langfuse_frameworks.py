"""Langfuse exports as framework integrations write them (observations built here to
Langfuse's documented observation schema, with each integration's documented attributes
and output shapes), and the 19 real `{trace, observations}` exports of
../shared/real-runs/2026-12-06/langfuse-framework-traces (skipped where absent)."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.adapters import to_canonical
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams

HERE = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("ARH_REAL_RUNS") or HERE.parents[1] / ".." / "shared" / "real-runs")
REAL = ROOT / "2026-12-06" / "langfuse-framework-traces" / "raw"


def obs(n: int, kind: str, name: str, parent: int | None = None, **fields: Any) -> dict[str, Any]:
    return {
        "id": f"obs-{n}",
        "traceId": "trace-1",
        "type": kind,
        "name": name,
        "startTime": f"2026-01-15T09:00:{n:02d}.000Z",
        "endTime": f"2026-01-15T09:00:{n:02d}.500Z",
        "parentObservationId": f"obs-{parent}" if parent is not None else None,
        "level": "DEFAULT",
        **fields,
    }


def export(*observations: dict[str, Any]) -> dict[str, Any]:
    return {"trace": {"id": "trace-1", "name": "run"}, "observations": list(observations)}


def read(value: dict[str, Any]) -> dict[str, Any]:
    (trace,) = to_canonical(value)
    assert isinstance(trace, dict) and trace["source"] == "langfuse"
    return trace


def attrs(**values: Any) -> dict[str, Any]:
    return {"attributes": values}


USAGE = {"usageDetails": {"input": 10, "output": 5, "total": 15}}
ASKED = [{"role": "user", "content": "Greet Bob."}]


def test_koog_tool_spans_and_calls_written_as_json_text() -> None:
    call = {"id": "call_1", "type": "function"}
    call["function"] = {"name": "HelloTool", "arguments": '{"name": "Bob"}'}
    said = {"role": "assistant", "content": json.dumps([call]), "finish_reason": "tool_calls"}
    trace = read(
        export(
            obs(1, "AGENT", "run.1"),
            obs(2, "SPAN", "node.__start__", 1),
            obs(3, "GENERATION", "llm.chat", 1, input=ASKED, output=[said], **USAGE),
            obs(
                4,
                "SPAN",
                "tool.HelloTool",
                1,
                input='{"name":"Bob"}',
                output="Hello Bob!",
                metadata=attrs(
                    **{"gen_ai.tool.name": "HelloTool", "gen_ai.tool.call.id": "call_1"}
                ),
            ),
            obs(
                5,
                "GENERATION",
                "llm.chat",
                1,
                input=ASKED,
                output=[{"role": "assistant", "content": "Hi Bob!"}],
                **USAGE,
            ),
        )
    )
    steps = [
        (s["type"], s.get("tool_name"), s.get("output"), s.get("text")) for s in trace["steps"]
    ]
    assert steps == [
        ("model_response", None, None, None),
        ("tool_call", "HelloTool", "Hello Bob!", None),
        ("model_response", None, None, "Hi Bob!"),
    ]
    assert {s["agent"] for s in trace["steps"]} == {"run.1"}
    assert trace["metadata"]["adapter"]["notes"] == []


def test_langgraph_plumbing_is_bookkeeping_and_a_tool_message_span_is_the_result() -> None:
    state = json.dumps({"messages": [{"role": "user", "content": "Weather?"}], "_privateState": {}})
    asked = {"role": "assistant", "content": "", "additional_kwargs": {}}
    asked["additional_kwargs"]["tool_calls"] = [
        {"id": "call_7", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
    ]
    told = {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "ToolMessage"]}
    told["kwargs"] = {"content": "Sunny.", "tool_call_id": "call_7", "status": "error"}
    trace = read(
        export(
            obs(1, "SPAN", "LangGraph", None, input=state, output=state),
            obs(2, "GENERATION", "ChatOpenAI", 1, input=ASKED, output=asked, **USAGE),
            obs(3, "SPAN", "ChannelWrite<...>", 1, input=state, output=state),
            obs(4, "SPAN", "Branch<agent,tools,__end__>", 1, input=state, output="tools"),
            obs(5, "SPAN", "get_weather", 1, input="{'city': 'Oslo'}", output=json.dumps(told)),
        )
    )
    call = next(s for s in trace["steps"] if s["type"] == "tool_call")
    assert (call["step_id"], call["tool_name"], call["output"], call["status"]) == (
        "call_7",
        "get_weather",
        "Sunny.",
        "error",
    )
    adapter = trace["metadata"]["adapter"]
    assert adapter["notes"] == []
    assert sum(adapter["skipped"].values()) == 3  # the graph span, the write, the branch


@pytest.mark.parametrize(
    ("output", "text", "tools"),
    [
        # Gemini GenerateContentResponse (google-genai / Vertex)
        ({"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi."}]}}]}, "Hi.", []),
        # ADK LlmResponse, a function call without an id
        (
            {
                "content": {
                    "role": "model",
                    "parts": [{"function_call": {"name": "say_hello", "args": {}}}],
                }
            },
            None,
            ["say_hello"],
        ),
        # the OTel GenAI choice event
        ({"index": 0, "message": {"role": "assistant", "content": "Hi."}}, "Hi.", []),
        # Microsoft.Extensions.AI: a redacted reasoning part beside the text
        (
            [
                {
                    "role": "assistant",
                    "parts": [
                        {"type": "text", "content": "Hi."},
                        {
                            "type": "Microsoft.Extensions.AI.TextReasoningContent",
                            "content": {"text": "", "protectedData": "x"},
                        },
                    ],
                }
            ],
            "Hi.",
            [],
        ),
        # Anthropic message content with a tool_use block
        (
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "get_weather",
                        "input": {"city": "Oslo"},
                    }
                ],
            },
            None,
            ["get_weather"],
        ),
        # the Vercel AI SDK's tool calls
        (
            [{"toolCallId": "call_2", "toolName": "getWeather", "input": '{"city":"Oslo"}'}],
            None,
            ["getWeather"],
        ),
        # Python's None written as text: no output
        ("None", None, []),
    ],
)
def test_provider_responses_read_as_the_answer(
    output: Any, text: str | None, tools: list[str]
) -> None:
    trace = read(export(obs(1, "GENERATION", "chat", None, input=ASKED, output=output, **USAGE)))
    answer = trace["steps"][0]
    assert answer["type"] == "model_response" and answer.get("text") == text
    assert [s["tool_name"] for s in trace["steps"] if s["type"] == "tool_call"] == tools
    assert trace["metadata"]["adapter"]["notes"] == []


def test_an_adk_tool_span_answers_the_call_without_an_id_and_names_the_tool() -> None:
    call = {
        "content": {
            "role": "model",
            "parts": [{"function_call": {"name": "say_hello", "args": {}}}],
        }
    }
    tool = {
        "gen_ai.tool.name": "say_hello",
        "gen_ai.tool.call.id": "adk-1",
        "gen_ai.operation.name": "execute_tool",
    }
    trace = read(
        export(
            obs(1, "GENERATION", "call_llm", None, input=ASKED, output=call, **USAGE),
            obs(
                2,
                "TOOL",
                "execute_tool say_hello",
                None,
                input="{}",
                output='{"greeting": "Hello"}',
                metadata=attrs(**tool),
            ),
        )
    )
    calls = [s for s in trace["steps"] if s["type"] == "tool_call"]
    assert [(c["step_id"], c["tool_name"]) for c in calls] == [("adk-1", "say_hello")]


def test_agents_of_agent_run_spans() -> None:
    trace = read(
        export(
            obs(
                1,
                "SPAN",
                "joke_agent run",
                None,
                metadata=attrs(**{"gen_ai.agent.name": "joke_agent"}),
            ),
            obs(2, "GENERATION", "chat", 1, input=ASKED, output="Ha.", **USAGE),
        )
    )
    assert trace["steps"][0]["agent"] == "joke_agent"


def test_run_totals_equal_langfuse_totals() -> None:
    agent_usage = {"usageDetails": {"input": 4, "output": 6, "total": 10}}
    trace = read(
        export(
            obs(1, "AGENT", "agent", None, **agent_usage),
            obs(2, "GENERATION", "chat", 1, input=ASKED, output="Hi.", **USAGE),
        )
    )
    (step,) = trace["steps"]
    assert (step["input_tokens"], step["output_tokens"]) == (14, 11)
    assert step["metadata"]["arh_recorded_totals"]["input_tokens"]["added"] == 4


# --- real exports --------------------------------------------------------------------

# file -> (tool calls, calls with an outcome, agents, the final answer's start)
_REAL = {
    "agno-2025-06-11.trace.json": (1, 1, 1, "To find out what's currently trending"),
    "autogen-2025-06-06.trace.json": (0, 0, 0, "Hello World!"),
    "claude-agent-2025-12-22.trace.json": (2, 2, 0, "Great! Here's the current weather"),
    "crewai-2025-07-11.trace.json": (0, 0, 1, "I now can give a great answer"),
    "csharp-agent-with-gemini-2026-03-09.trace.json": (2, 2, 0, "I couldn't retrieve"),
    "google-adk-2025-08-28.trace.json": (1, 1, 1, "Hello Langfuse"),
    "google-gemini-2025-08-01.trace.json": (0, 0, 0, "**Langfuse** is an"),
    "koog-2025-08-26.trace.json": (2, 2, 1, "Hello my darling Bob!"),
    "langgraph-js-2025-10-30.trace.json": (1, 1, 0, "It's always sunny"),
    "langgraph-python-2025-08-22.trace.json": (1, 1, 0, 'The search for "example"'),
    "llamaindex-2025-06-05.trace.json": (0, 0, 0, "Langfuse is a tool"),
    "microsoft-agent-2025-12-17.trace.json": (1, 1, 1, "Current conditions in Tokyo"),
    "openai-agents-2025-09-30.trace.json": (1, 1, 1, "The weather in Tokyo"),
    "openai-assistants-2024-05-29.json": (0, 0, 0, "Sure, first subtract 11"),
    "pydantic-ai-2025-06-06.trace.json": (0, 0, 0, "Langfuse is a tool"),
    # the evaluator agent answers through its output tool, which runs no tool span
    "pydantic-ai-tools-2025-12-04.trace.json": (4, 3, 2, "Why do programmers hate nature?"),
    "pydantic-ai-with-gemini-2025-12-24.trace.json": (0, 0, 0, '{"answer": "2"'),
    "vercel-aisdk-2025-11-17.trace.json": (1, 1, 0, None),  # the run ends on its call
    "vertex-ai-2025-08-01.trace.json": (0, 0, 0, "**Langfuse** is an"),
}
# Named content left as notes: the @observe'd app functions of the Assistants example.
_NOTED = {"openai-assistants-2024-05-29.json": 2}


def _langfuse_totals(value: dict[str, Any]) -> tuple[int, int]:
    found = [o.get("usageDetails") or {} for o in value["observations"]]
    return sum(u.get("input") or 0 for u in found), sum(u.get("output") or 0 for u in found)


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/real-runs is absent")
@pytest.mark.parametrize("name", sorted(_REAL))
def test_real_exports_read_faithfully(name: str) -> None:
    value = json.loads((REAL / name).read_text("utf-8"))
    out, err = io.StringIO(), io.StringIO()
    code = main(["convert", str(REAL / name)], Streams(out, err, io.BytesIO()))
    assert (code, err.getvalue()) == (0, "")
    trace = json.loads(out.getvalue())
    assert trace["source"] == "langfuse"
    calls = [s for s in trace["steps"] if s["type"] == "tool_call"]
    answered = [c for c in calls if "output" in c]
    agents = {s["agent"] for s in trace["steps"] if s.get("agent")}
    texts = [s["text"] for s in trace["steps"] if s["type"] == "model_response" and s.get("text")]
    expected = _REAL[name]
    assert (len(calls), len(answered), len(agents)) == expected[:3]
    assert all(" " not in c["tool_name"] for c in calls)  # named by the tool, not the span
    if expected[3] is None:
        assert trace["steps"][-1]["type"] == "tool_call"
    else:
        assert texts[-1].startswith(expected[3])
    steps = trace["steps"]
    tokens = (
        sum(s.get("input_tokens") or 0 for s in steps),
        sum(s.get("output_tokens") or 0 for s in steps),
    )
    assert tokens == _langfuse_totals(value)
    assert len(trace["metadata"]["adapter"]["notes"]) == _NOTED.get(name, 0)
