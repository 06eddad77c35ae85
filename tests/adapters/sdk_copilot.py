"""GitHub Copilot CLI session logs built with the Copilot SDK's own event classes
(`copilot.generated.session_events`: SessionEvent and its data classes, serialised by
their `to_dict`), one event a line as `events.jsonl` holds them."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from copilot.generated import session_events as ev

_T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


class _Log:
    """Events in order, each with a fixed id and time, chained by `parentId`."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def add(self, kind: ev.SessionEventType, data: Any) -> None:
        n = len(self.events)
        parent = UUID(int=n) if n else None
        event = ev.SessionEvent(
            data=data,
            id=UUID(int=n + 1),
            timestamp=_T0 + timedelta(seconds=n),
            type=kind,
            parent_id=parent,
        )
        self.events.append(event.to_dict())

    def jsonl(self) -> bytes:
        return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in self.events).encode()


def _request(call_id: str, name: str, arguments: dict[str, Any]) -> Any:
    return ev.AssistantMessageToolRequest(name=name, tool_call_id=call_id, arguments=arguments)


def _done(
    call_id: str, content: str | None, error: str | None = None, parent: str | None = None
) -> Any:
    return ev.ToolExecutionCompleteData(
        success=error is None,
        tool_call_id=call_id,
        result=ev.ToolExecutionCompleteResult(content=content) if content is not None else None,
        error=ev.ToolExecutionCompleteError(message=error) if error is not None else None,
        parent_tool_call_id=parent,
    )


def _usage(model: str, inp: int, out: int) -> Any:
    return ev.AssistantUsageData(model=model, input_tokens=inp, output_tokens=out)


def _shutdown(inp: int, out: int) -> Any:
    usage = ev.ShutdownModelMetricUsage(
        cache_read_tokens=0, cache_write_tokens=0, input_tokens=inp, output_tokens=out
    )
    return ev.SessionShutdownData(
        code_changes=ev.ShutdownCodeChanges(
            files_modified=["calc.py"], lines_added=1, lines_removed=1
        ),
        model_metrics={
            "gpt-5": ev.ShutdownModelMetric(
                requests=ev.ShutdownModelMetricRequests(count=3), usage=usage
            )
        },
        session_start_time=0,
        shutdown_type=ev.ShutdownType.ROUTINE,
        total_api_duration=timedelta(seconds=4),
    )


def session() -> bytes:
    """A session: a shell call that fails, an edit, a sub-agent's search, the answer; the
    shutdown's totals exceed the usage events (a request whose usage event is missing)."""
    t = ev.SessionEventType
    log = _Log()
    log.add(
        t.SESSION_START,
        ev.SessionStartData(
            copilot_version="0.0.369",
            producer="copilot-agent",
            session_id="9d9f07e1-2696-40b4-87af-eab2d03b4e01",
            start_time=_T0,
            version=1,
            context=ev.WorkingDirectoryContext(cwd="/repo"),
        ),
    )
    log.add(t.USER_MESSAGE, ev.UserMessageData(content="Fix the failing test"))
    log.add(t.ASSISTANT_TURN_START, ev.AssistantTurnStartData(turn_id="0"))
    log.add(
        t.ASSISTANT_MESSAGE,
        ev.AssistantMessageData(
            content="Running the tests.",
            message_id="m1",
            reasoning_text="Tests first.",
            tool_requests=[_request("call_1", "bash", {"command": "pytest -q"})],
        ),
    )
    log.add(t.ASSISTANT_USAGE, _usage("gpt-5", 1200, 40))
    log.add(
        t.TOOL_EXECUTION_START,
        ev.ToolExecutionStartData(
            tool_call_id="call_1", tool_name="bash", arguments={"command": "pytest -q"}
        ),
    )
    log.add(
        t.TOOL_EXECUTION_COMPLETE, _done("call_1", "1 failed", error="Command exited with code 1")
    )
    log.add(
        t.ASSISTANT_MESSAGE,
        ev.AssistantMessageData(
            content="",
            message_id="m2",
            tool_requests=[
                _request(
                    "call_2",
                    "edit",
                    {"path": "/repo/calc.py", "old_str": "a - b", "new_str": "a + b"},
                ),
                _request("call_3", "task", {"agent_type": "explore", "prompt": "find other uses"}),
            ],
        ),
    )
    log.add(t.ASSISTANT_USAGE, _usage("gpt-5", 1500, 60))
    log.add(t.TOOL_EXECUTION_COMPLETE, _done("call_2", "File /repo/calc.py updated"))
    log.add(
        t.SUBAGENT_STARTED,
        ev.SubagentStartedData(
            agent_description="Explores the code",
            agent_display_name="Explore",
            agent_name="explore",
            tool_call_id="call_3",
        ),
    )
    log.add(
        t.TOOL_EXECUTION_START,
        ev.ToolExecutionStartData(
            tool_call_id="call_4",
            tool_name="grep",
            arguments={"pattern": "add("},
            parent_tool_call_id="call_3",
        ),
    )
    log.add(
        t.TOOL_EXECUTION_COMPLETE, _done("call_4", "calc.py:3: def add(a, b):", parent="call_3")
    )
    log.add(t.TOOL_EXECUTION_COMPLETE, _done("call_3", "add() is used only in calc.py"))
    log.add(
        t.ASSISTANT_MESSAGE,
        ev.AssistantMessageData(content="Fixed: add() now adds.", message_id="m3"),
    )
    log.add(t.ASSISTANT_USAGE, _usage("gpt-5", 1800, 30))
    log.add(t.ASSISTANT_TURN_END, ev.AssistantTurnEndData(turn_id="0"))
    log.add(t.SESSION_SHUTDOWN, _shutdown(4700, 150))
    return log.jsonl()


def extras() -> list[tuple[str, Any]]:
    return [("copilot-session.jsonl", session())]
