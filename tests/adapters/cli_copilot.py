"""A GitHub Copilot CLI session (`events.jsonl`) built with the Copilot SDK's own session
event classes (`copilot.generated.session_events`, `SessionEvent.to_dict()`: what the CLI
writes a line at a time): a turn with two tool calls (one fails), a sub-agent run under a
`task` call, per-request usage and the shutdown's model metrics (the run totals)."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from copilot.generated import session_events as se

_T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)
_Kind = se.SessionEventType


def _event(n: int, kind: se.SessionEventType, data: Any, parent: int | None = None) -> Any:
    event = se.SessionEvent(
        data=data,
        id=uuid.UUID(int=n),
        timestamp=_T0 + dt.timedelta(seconds=n),
        type=kind,
        parent_id=uuid.UUID(int=parent) if parent is not None else None,
    )
    return event.to_dict()


def _call(call_id: str, name: str, args: dict[str, Any]) -> se.AssistantMessageToolRequest:
    return se.AssistantMessageToolRequest(name=name, tool_call_id=call_id, arguments=args)


def _message(
    content: str, calls: list[se.AssistantMessageToolRequest], api: str, parent: str | None = None
) -> se.AssistantMessageData:
    return se.AssistantMessageData(
        content=content,
        message_id=f"m-{api}",
        api_call_id=api,
        tool_requests=calls or None,
        model="claude-sonnet-4.5",
        parent_tool_call_id=parent,
    )


def _usage(api: str, tokens: tuple[int, int], parent: str | None = None) -> se.AssistantUsageData:
    return se.AssistantUsageData(
        model="claude-sonnet-4.5",
        api_call_id=api,
        input_tokens=tokens[0],
        output_tokens=tokens[1],
        parent_tool_call_id=parent,
    )


def _done(
    call_id: str, text: str | None, parent: str | None = None
) -> se.ToolExecutionCompleteData:
    if text is None:
        error = se.ToolExecutionCompleteError(message="Path does not exist: docs/missing.md")
        return se.ToolExecutionCompleteData(success=False, tool_call_id=call_id, error=error)
    result = se.ToolExecutionCompleteResult(content=text)
    return se.ToolExecutionCompleteData(
        success=True, tool_call_id=call_id, result=result, parent_tool_call_id=parent
    )


def _head() -> list[Any]:
    start = se.SessionStartData(
        copilot_version="1.0.27",
        producer="copilot-agent",
        session_id="5f0c8e2a-1b7d-4c3e-9a10-2d4b6f8e0a1c",
        start_time=_T0,
        version=1,
    )
    bash = _call("toolu_1", "bash", {"command": "ls docs"})
    view = _call("toolu_2", "view", {"path": "docs/missing.md"})
    return [
        _event(1, _Kind.SESSION_START, start),
        _event(2, _Kind.USER_MESSAGE, se.UserMessageData(content="Summarise the docs.")),
        _event(3, _Kind.ASSISTANT_TURN_START, se.AssistantTurnStartData(turn_id="0")),
        _event(4, _Kind.ASSISTANT_REASONING, se.AssistantReasoningData("List first.", "r-1")),
        _event(5, _Kind.ASSISTANT_MESSAGE, _message("", [bash, view], "a1"), 3),
        _event(6, _Kind.ASSISTANT_USAGE, _usage("a1", (1200, 80))),
        _event(7, _Kind.TOOL_EXECUTION_START, se.ToolExecutionStartData("toolu_1", "bash")),
        _event(8, _Kind.TOOL_EXECUTION_COMPLETE, _done("toolu_1", "index.md\nusage.md")),
        _event(9, _Kind.TOOL_EXECUTION_START, se.ToolExecutionStartData("toolu_2", "view")),
        _event(10, _Kind.TOOL_EXECUTION_COMPLETE, _done("toolu_2", None)),
    ]


def _subagent() -> list[Any]:
    task = _call("toolu_3", "task", {"agent_type": "explore", "prompt": "Read usage.md"})
    started = se.SubagentStartedData(
        agent_description="Explores the codebase",
        agent_display_name="Explore",
        agent_name="explore",
        tool_call_id="toolu_3",
    )
    view = _call("toolu_4", "view", {"path": "docs/usage.md"})
    inner = se.ToolExecutionStartData("toolu_4", "view", parent_tool_call_id="toolu_3")
    completed = se.SubagentCompletedData(
        agent_display_name="Explore", agent_name="explore", tool_call_id="toolu_3"
    )
    return [
        _event(11, _Kind.ASSISTANT_MESSAGE, _message("Reading usage.", [task], "a2")),
        _event(12, _Kind.ASSISTANT_USAGE, _usage("a2", (1400, 60))),
        _event(13, _Kind.TOOL_EXECUTION_START, se.ToolExecutionStartData("toolu_3", "task")),
        _event(14, _Kind.SUBAGENT_STARTED, started),
        _event(15, _Kind.ASSISTANT_MESSAGE, _message("", [view], "a3", "toolu_3")),
        _event(16, _Kind.ASSISTANT_USAGE, _usage("a3", (300, 20), "toolu_3")),
        _event(17, _Kind.TOOL_EXECUTION_START, inner),
        _event(18, _Kind.TOOL_EXECUTION_COMPLETE, _done("toolu_4", "Run arh.", "toolu_3")),
        _event(19, _Kind.SUBAGENT_COMPLETED, completed),
        _event(20, _Kind.TOOL_EXECUTION_COMPLETE, _done("toolu_3", "usage.md: run arh.")),
    ]


def _tail() -> list[Any]:
    metric = se.ShutdownModelMetric(
        requests=se.ShutdownModelMetricRequests(count=4),
        usage=se.ShutdownModelMetricUsage(
            cache_read_tokens=0, cache_write_tokens=0, input_tokens=4000, output_tokens=200
        ),
    )
    shutdown = se.SessionShutdownData(
        code_changes=se.ShutdownCodeChanges(files_modified=[], lines_added=0, lines_removed=0),
        model_metrics={"claude-sonnet-4.5": metric},
        session_start_time=0,
        shutdown_type=se.ShutdownType.ROUTINE,
        total_api_duration=dt.timedelta(seconds=9),
    )
    return [
        _event(21, _Kind.ASSISTANT_MESSAGE, _message("The docs say: run arh.", [], "a4")),
        _event(22, _Kind.ASSISTANT_USAGE, _usage("a4", (1100, 40))),
        _event(23, _Kind.ASSISTANT_TURN_END, se.AssistantTurnEndData(turn_id="0")),
        _event(24, _Kind.SESSION_SHUTDOWN, shutdown),
    ]


FIXTURES: dict[str, Any] = {"copilot-cli/events.jsonl": [*_head(), *_subagent(), *_tail()]}
