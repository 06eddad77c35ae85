"""smolagents runs built with smolagents' own memory classes (TaskStep, ActionStep,
PlanningStep, FinalAnswerStep, ToolCall, ChatMessage, TokenUsage, Timing and its agent
errors), written as smolagents writes them: the run's messages
(`write_memory_to_messages`: each step's `to_messages`), its memory steps
(`get_full_steps`: each step's `dict()`) and a benchmark output record
(examples/smolagents_benchmark/run.py). Times are fixed; no model is called."""

# The SDKs are an optional test extra: import them only when a fixture is built.
# ruff: noqa: PLC0415

from __future__ import annotations

import json
from typing import Any

SYSTEM = "You are an expert assistant who can solve any task using tool calls."
TASK = "How many people live in Paris, times two?"
PARSE_ERROR = "Error while parsing tool call from model output: no tool call found"


def _memory() -> Any:
    """A run: a search, a python call that fails (smolagents records no call for it,
    only the error text), a failed model output, two parallel calls answered by one
    observation, a plan, and the final answer."""
    from smolagents.memory import (
        ActionStep,
        AgentMemory,
        FinalAnswerStep,
        PlanningStep,
        TaskStep,
        ToolCall,
    )
    from smolagents.models import ChatMessage, MessageRole
    from smolagents.monitoring import AgentLogger, LogLevel, Timing, TokenUsage
    from smolagents.utils import AgentParsingError, AgentToolExecutionError

    logger = AgentLogger(level=LogLevel.OFF)
    memory = AgentMemory(SYSTEM)
    memory.steps.append(TaskStep(task=TASK))
    memory.steps.append(
        PlanningStep(
            model_input_messages=[],
            model_output_message=ChatMessage(role=MessageRole.ASSISTANT, content="1. search"),
            plan="1. Search the population.\n2. Double it.",
            timing=Timing(start_time=0.0, end_time=0.5),
            token_usage=TokenUsage(input_tokens=50, output_tokens=10),
        )
    )
    search = ToolCall(name="web_search", arguments={"query": "population of Paris"}, id="call_1")
    memory.steps.append(
        ActionStep(
            step_number=1,
            timing=Timing(start_time=1.0, end_time=2.5),
            model_output_message=ChatMessage(role=MessageRole.ASSISTANT, content=None),
            tool_calls=[search],
            observations="Paris has 2,102,650 inhabitants.",
            token_usage=TokenUsage(input_tokens=120, output_tokens=20),
        )
    )
    failed = (
        "Error executing tool 'python_interpreter' with arguments {'code': '2102650 *'}: "
        "InterpreterError: Code execution failed: invalid syntax\n"
        "Please try again or use another tool"
    )
    memory.steps.append(
        ActionStep(
            step_number=2,
            timing=Timing(start_time=3.0, end_time=4.0),
            model_output_message=ChatMessage(role=MessageRole.ASSISTANT, content=None),
            error=AgentToolExecutionError(failed, logger),
            token_usage=TokenUsage(input_tokens=150, output_tokens=25),
        )
    )
    memory.steps.append(
        ActionStep(
            step_number=3,
            timing=Timing(start_time=4.0, end_time=4.5),
            model_output="I will call the tool now",
            error=AgentParsingError(PARSE_ERROR, logger),
            token_usage=TokenUsage(input_tokens=160, output_tokens=8),
        )
    )
    double = ToolCall(name="python_interpreter", arguments={"code": "2102650 * 2"}, id="call_3")
    check = ToolCall(name="web_search", arguments={"query": "Paris census 2024"}, id="call_4")
    memory.steps.append(
        ActionStep(
            step_number=4,
            timing=Timing(start_time=5.0, end_time=6.0),
            model_output="Computing and checking in parallel.",
            tool_calls=[double, check],
            observations="4205300\nThe 2024 census confirms 2,102,650.",
            token_usage=TokenUsage(input_tokens=200, output_tokens=30),
        )
    )
    answer = ToolCall(name="final_answer", arguments={"answer": "4,205,300"}, id="call_5")
    memory.steps.append(
        ActionStep(
            step_number=5,
            timing=Timing(start_time=6.0, end_time=6.5),
            tool_calls=[answer],
            observations="4,205,300",
            action_output="4,205,300",
            token_usage=TokenUsage(input_tokens=230, output_tokens=12),
            is_final_answer=True,
        )
    )
    memory.steps.append(FinalAnswerStep(output="4,205,300"))
    return memory


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def messages() -> list[Any]:
    """`agent.write_memory_to_messages()` as dicts (ChatMessage.dict())."""
    memory = _memory()
    found = memory.system_prompt.to_messages()
    for step in memory.steps:
        if hasattr(step, "to_messages") and type(step).__name__ != "FinalAnswerStep":
            found.extend(step.to_messages())
    return [_plain(m.dict()) for m in found]


def steps() -> list[Any]:
    """`agent.memory.get_full_steps()`."""
    return [_plain(s) for s in _memory().get_full_steps()]


def record() -> dict[str, Any]:
    """One line of the benchmark's output file (run.py's answer_single_question)."""
    return {
        "model_id": "gpt-4o",
        "agent_action_type": "tool-calling",
        "question": TASK,
        "original_question": TASK,
        "answer": "4,205,300",
        "true_answer": "4205300",
        "source": "fixture",
        "intermediate_steps": messages(),
        "start_time": 1753384542.0,
        "end_time": "2025-07-24 21:15:46",
        "token_counts": {"input_tokens": 910, "output_tokens": 105, "total_tokens": 1015},
    }


def extras() -> list[tuple[str, Any]]:
    return [
        ("messages.json", messages()),
        ("memory-steps.json", steps()),
        ("benchmark-record.json", record()),
    ]
