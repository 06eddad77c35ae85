"""AutoGen AgentChat fixtures, built with autogen-agentchat's own message, TaskResult and
state classes (ids and times fixed, so that the files are reproducible)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from autogen_agentchat.base import TaskResult
from autogen_agentchat.messages import (
    CodeExecutionEvent,
    CodeGenerationEvent,
    HandoffMessage,
    ModelClientStreamingChunkEvent,
    StopMessage,
    TextMessage,
    ThoughtEvent,
    ToolCallExecutionEvent,
    ToolCallRequestEvent,
    ToolCallSummaryMessage,
)
from autogen_agentchat.state import (
    AssistantAgentState,
    ChatAgentContainerState,
    RoundRobinManagerState,
    TeamState,
)
from autogen_core import FunctionCall
from autogen_core.code_executor import CodeBlock, CodeResult
from autogen_core.models import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    RequestUsage,
    UserMessage,
)

_AT = datetime(2026, 4, 2, 9, 0, 0, tzinfo=UTC)
_ids = iter(f"00000000-0000-4000-8000-{n:012d}" for n in range(1, 1000))


def _fixed() -> dict[str, Any]:
    return {"id": next(_ids), "created_at": _AT}


def _call(call_id: str, name: str, arguments: str) -> FunctionCall:
    return FunctionCall(id=call_id, name=name, arguments=arguments)


def _result(call_id: str, name: str, content: str, error: bool = False) -> FunctionExecutionResult:
    return FunctionExecutionResult(call_id=call_id, name=name, content=content, is_error=error)


def _tools_run() -> dict[str, Any]:
    calls = [
        _call("call_1", "get_weather", '{"city": "Paris"}'),
        _call("call_2", "get_weather", '{"city": "Atlantis"}'),
    ]
    results = [
        _result("call_1", "get_weather", "18C, clear"),
        _result("call_2", "get_weather", "Error: unknown city Atlantis", error=True),
    ]
    usage = RequestUsage(prompt_tokens=120, completion_tokens=30)
    messages = [
        TextMessage(source="user", content="Weather in Paris and Atlantis?", **_fixed()),
        ThoughtEvent(source="weather_agent", content="Two cities: two calls.", **_fixed()),
        ToolCallRequestEvent(source="weather_agent", content=calls, models_usage=usage, **_fixed()),
        ToolCallExecutionEvent(source="weather_agent", content=results, **_fixed()),
        ToolCallSummaryMessage(
            source="weather_agent",
            content="18C, clear\nError: unknown city Atlantis",
            tool_calls=calls,
            results=results,
            **_fixed(),
        ),
        ModelClientStreamingChunkEvent(source="weather_agent", content="Paris is", **_fixed()),
        TextMessage(
            source="weather_agent",
            content="Paris is 18C and clear; Atlantis is not a known city.",
            models_usage=RequestUsage(prompt_tokens=200, completion_tokens=25),
            **_fixed(),
        ),
    ]
    return TaskResult(messages=messages, stop_reason="Text 'TERMINATE' mentioned").model_dump(
        mode="json"
    )


def _swarm() -> list[Any]:
    transfer = [_call("call_t", "transfer_to_refunds", "{}")]
    done = [_result("call_t", "transfer_to_refunds", "Transferred to refunds, adopting the role.")]
    messages = [
        TextMessage(source="user", content="I want a refund for order 42.", **_fixed()),
        ToolCallRequestEvent(
            source="triage",
            content=transfer,
            models_usage=RequestUsage(prompt_tokens=90, completion_tokens=12),
            **_fixed(),
        ),
        ToolCallExecutionEvent(source="triage", content=done, **_fixed()),
        HandoffMessage(
            source="triage",
            target="refunds",
            content="Transferred to refunds, adopting the role.",
            **_fixed(),
        ),
        ToolCallRequestEvent(
            source="refunds",
            content=[_call("call_r", "issue_refund", '{"order_id": 42}')],
            models_usage=RequestUsage(prompt_tokens=150, completion_tokens=20),
            **_fixed(),
        ),
        ToolCallExecutionEvent(
            source="refunds",
            content=[_result("call_r", "issue_refund", "refund issued")],
            **_fixed(),
        ),
        TextMessage(
            source="refunds",
            content="Your refund for order 42 is issued.",
            models_usage=RequestUsage(prompt_tokens=180, completion_tokens=15),
            **_fixed(),
        ),
        StopMessage(source="refunds", content="Handoff to user from refunds detected.", **_fixed()),
    ]
    return [m.model_dump(mode="json") for m in messages]


def _team_state() -> dict[str, Any]:
    thread = [
        TextMessage(source="user", content="Write a haiku about tests.", **_fixed()),
        TextMessage(
            source="poet",
            content="Green bar at dawn / ...",
            models_usage=RequestUsage(prompt_tokens=40, completion_tokens=18),
            **_fixed(),
        ),
        TextMessage(
            source="critic",
            content="APPROVE",
            models_usage=RequestUsage(prompt_tokens=70, completion_tokens=2),
            **_fixed(),
        ),
    ]
    context = [
        UserMessage(content="Write a haiku about tests.", source="user").model_dump(mode="json"),
        AssistantMessage(content="Green bar at dawn / ...", source="poet").model_dump(mode="json"),
    ]
    poet = ChatAgentContainerState(
        agent_state=AssistantAgentState(llm_context={"messages": context}).model_dump(mode="json"),
        message_buffer=[],
    )
    manager = RoundRobinManagerState(
        message_thread=[m.model_dump(mode="json") for m in thread],
        current_turn=2,
        next_speaker_index=0,
    )
    state = TeamState(
        agent_states={
            "poet": poet.model_dump(mode="json"),
            "RoundRobinGroupChatManager": manager.model_dump(mode="json"),
        }
    )
    return state.model_dump(mode="json")


def _agent_state() -> dict[str, Any]:
    context = [
        UserMessage(content="Delete the temp dir.", source="user"),
        AssistantMessage(
            content=[_call("call_d", "run_shell", '{"command": "rm -rf /tmp/x"}')],
            thought="Use the shell.",
            source="ops",
        ),
        FunctionExecutionResultMessage(
            content=[_result("call_d", "run_shell", "permission denied", error=True)]
        ),
        AssistantMessage(content="I could not delete it: permission denied.", source="ops"),
    ]
    state = AssistantAgentState(
        llm_context={"messages": [m.model_dump(mode="json") for m in context]}
    )
    return state.model_dump(mode="json")


def _code_run() -> dict[str, Any]:
    code = "print(1 / 0)"
    messages = [
        TextMessage(source="user", content="Divide one by zero in Python.", **_fixed()),
        CodeGenerationEvent(
            source="coder",
            retry_attempt=0,
            content=f"```python\n{code}\n```",
            code_blocks=[CodeBlock(code=code, language="python")],
            models_usage=RequestUsage(prompt_tokens=60, completion_tokens=14),
            **_fixed(),
        ),
        CodeExecutionEvent(
            source="coder",
            retry_attempt=0,
            result=CodeResult(exit_code=1, output="ZeroDivisionError: division by zero"),
            **_fixed(),
        ),
        TextMessage(source="coder", content="It raises ZeroDivisionError.", **_fixed()),
    ]
    return TaskResult(messages=messages, stop_reason=None).model_dump(mode="json")


def extras() -> list[tuple[str, Any]]:
    return [
        ("taskresult-tools.json", _tools_run()),
        ("swarm-handoff.json", _swarm()),
        ("team-state.json", _team_state()),
        ("agent-state.json", _agent_state()),
        ("code-executor.json", _code_run()),
    ]
