"""The "autogen" format: AutoGen AgentChat (0.4+) messages, `TaskResult` dumps and saved
team or agent state.

A message (`autogen_agentchat.messages`) is `{type, source, models_usage, metadata,
content, ...}`: chat messages (TextMessage, MultiModalMessage, StopMessage,
HandoffMessage {target}, ToolCallSummaryMessage {tool_calls, results},
StructuredMessage) and agent events (ToolCallRequestEvent [FunctionCall {id, name,
arguments}], ToolCallExecutionEvent [FunctionExecutionResult {call_id, name, content,
is_error}], ThoughtEvent, CodeGenerationEvent / CodeExecutionEvent {result: {exit_code,
output}}, ...). `source` is the agent that wrote it (v1.2 step field `agent`; "user" is
the task); a HandoffMessage puts the target agent's next steps under it
(`parent_step_id`). `models_usage` is the usage of the model call that made the message.
Documents: a message list (`TaskResult.messages`), a `TaskResult` {messages,
stop_reason}, a `TeamState` (the group chat manager's `message_thread` is the run; each
agent's model context repeats it) or an agent's own state (its `llm_context` messages:
UserMessage, AssistantMessage, FunctionExecutionResultMessage, SystemMessage).
"""

from __future__ import annotations

import json
from typing import Any

from ..core.base import Adapter
from ..core.common import TraceBuilder, fail, obj, opt_count, opt_list, opt_obj, opt_str
from ._autogen_context import read_context

NAME = "autogen"
_TEXT = ("TextMessage", "StopMessage", "MultiModalMessage", "StructuredMessage")
_EVENTS = (
    "ToolCallRequestEvent",
    "ToolCallExecutionEvent",
    "ToolCallSummaryMessage",
    "HandoffMessage",
    "ThoughtEvent",
    "CodeGenerationEvent",
    "CodeExecutionEvent",
    "MemoryQueryEvent",
)
# Events that repeat or steer the run without content of their own.
_BOOKKEEPING = {
    "ModelClientStreamingChunkEvent": "streaming chunk (the full message follows)",
    "UserInputRequestedEvent": "user input request event",
    "SelectSpeakerEvent": "speaker selection event",
    "SelectorEvent": "speaker selection event",
}
_KNOWN = (*_TEXT, *_EVENTS, *_BOOKKEEPING)
_STATES = ("TeamState", "AssistantAgentState")


def _is_message(value: Any) -> bool:
    if not isinstance(value, dict) or "source" not in value:
        return False
    kind = value.get("type")
    return isinstance(kind, str) and (kind in _KNOWN or kind.startswith("StructuredMessage"))


def detect(value: Any) -> bool:
    """A message list, a TaskResult, a TeamState or an AssistantAgentState."""
    if isinstance(value, list):
        return bool(value) and _is_message(value[0])
    if not isinstance(value, dict):
        return False
    if value.get("type") in _STATES:
        return True
    messages = value.get("messages")
    return isinstance(messages, list) and bool(messages) and _is_message(messages[0])


class _Run:
    def __init__(self, name_hint: str) -> None:
        self.b = TraceBuilder(NAME, name_hint)
        self.parents: dict[str, str] = {}  # agent -> the hand-off step it runs under
        self.agents: list[str] = []
        self.code_calls = 0

    def message(self, message: dict[str, Any], at: str) -> None:
        b = self.b
        kind = str(message.get("type"))
        source = opt_str(message, "source", at)
        start = len(b.steps)
        if kind in _BOOKKEEPING:
            b.skip(at, _BOOKKEEPING[kind])
            return
        if source == "user" and (kind in _TEXT or kind == "HandoffMessage"):
            self._images(message, at)
            b.input("user", _text(message.get("content")), at)  # a user's hand-off resumes a run
            return
        if source is not None and source not in self.agents:
            self.agents.append(source)
        if kind in _TEXT or kind.startswith("StructuredMessage"):
            self._images(message, at)
            b.text(_text(message.get("content")), at)
        elif kind == "HandoffMessage":
            self._handoff(message, at)
        elif kind == "ToolCallRequestEvent":
            self._calls(message.get("content"), f"{at}.content")
        elif kind == "ToolCallExecutionEvent":
            self._results(message.get("content"), f"{at}.content")
        elif kind == "ToolCallSummaryMessage":
            self._summary(message, at)
        elif kind == "ThoughtEvent":
            b.reasoning(_text(message.get("content")), at)
        elif kind in ("CodeGenerationEvent", "CodeExecutionEvent"):
            self._code(message, kind, at)
        elif kind == "MemoryQueryEvent":
            b.metadata.setdefault("memory_queries", []).append(message.get("content"))
            b.mark(at)
        else:
            b.note(at, "message of an unknown type", message)
        self._own(start, source)
        usage = opt_obj(message, "models_usage", at)
        where = f"{at}.models_usage"
        b.tokens(
            start,
            opt_count(usage, "prompt_tokens", where),
            opt_count(usage, "completion_tokens", where),
            at,
        )

    def _images(self, message: dict[str, Any], at: str) -> None:
        """A MultiModalMessage's images: the trace keeps text only."""
        content = message.get("content")
        if isinstance(content, list):
            for index, part in enumerate(content):
                if not isinstance(part, str):
                    self.b.note(f"{at}.content[{index}]", "content part that is not text", part)

    def _own(self, start: int, source: str | None) -> None:
        """The v1.2 fields of the message's steps: its agent and the hand-off it ran under."""
        if source is None:
            return
        parent = self.parents.get(source)
        for step in self.b.steps[start:]:
            step["agent"] = source
            if parent is not None and step["step_id"] != parent:
                step["parent_step_id"] = parent

    def _handoff(self, message: dict[str, Any], at: str) -> None:
        target = opt_str(message, "target", at)
        index = self.b.text(_text(message.get("content")), at, handoff_target=target)
        if target is not None:
            self.parents[target] = self.b.steps[index]["step_id"]

    def _calls(self, calls: Any, at: str) -> None:
        if not isinstance(calls, list):
            self.b.note(at, "tool call request without a list of calls", calls)
            return
        for index, raw in enumerate(calls):
            where = f"{at}[{index}]"
            call = obj(raw, where)
            call_id, name = opt_str(call, "id", where), opt_str(call, "name", where)
            self.b.call(call_id, name, call.get("arguments"), f"{where}.arguments")

    def _results(self, results: Any, at: str) -> None:
        if not isinstance(results, list):
            self.b.note(at, "tool execution event without a list of results", results)
            return
        for index, raw in enumerate(results):
            where = f"{at}[{index}]"
            result = obj(raw, where)
            failed = result.get("is_error")
            content = result.get("content")
            self.b.result(
                opt_str(result, "call_id", where),
                content,
                where,
                is_error=failed if isinstance(failed, bool) else None,
                error=_text(content) or "tool reported an error" if failed is True else None,
                name=opt_str(result, "name", where),
            )

    def _summary(self, message: dict[str, Any], at: str) -> None:
        """The agent's reply that sums up its tool calls: the calls and results it repeats
        were read from their events; without those events, they are read from it."""
        b = self.b
        calls = message.get("tool_calls")
        ids = (
            {_call_id(c.get("id")) for c in calls if isinstance(c, dict)}
            if isinstance(calls, list)
            else set()
        )
        seen = {s["step_id"] for s in b.steps if s.get("type") == "tool_call"}
        if ids and ids <= seen:
            b.skip(at, "tool call summary repeating the calls' events")
            return
        self._calls(calls or [], f"{at}.tool_calls")
        self._results(message.get("results") or [], f"{at}.results")

    def _code(self, message: dict[str, Any], kind: str, at: str) -> None:
        b = self.b
        if kind == "CodeGenerationEvent":
            self.code_calls += 1
            call_id = f"code-{self.code_calls}"
            blocks = message.get("code_blocks")
            said = _text(message.get("content"))
            if said:  # the model's reply that holds the code
                b.text(said, at)
            b.call(call_id, "execute_code", {"code_blocks": blocks}, f"{at}.code_blocks")
            return
        result = opt_obj(message, "result", at) or {}
        code = result.get("exit_code")
        failed = isinstance(code, int) and not isinstance(code, bool) and code != 0
        b.result(
            f"code-{self.code_calls}" if self.code_calls else None,
            result.get("output"),
            at,
            is_error=failed if isinstance(code, int) else None,
            error=f"exit code {code}" if failed else None,
        )

    def build(self) -> dict[str, Any]:
        if len(self.agents) == 1:
            self.b.agent_name = self.agents[0]
        elif self.agents:
            self.b.metadata["agents"] = list(self.agents)
        return self.b.build()


def _call_id(value: Any) -> str | None:
    """A call id that can name a step (None for any other value: it names none)."""
    return value if isinstance(value, str) else None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # multimodal: text parts (images are not text)
        return "\n".join(p for p in content if isinstance(p, str))
    if content is None:
        return ""
    return json.dumps(content, sort_keys=True, ensure_ascii=False)


def _messages(run: _Run, messages: list[Any], at: str) -> None:
    for index, raw in enumerate(messages):
        where = f"{at}[{index}]"
        if _is_message(raw):
            run.message(raw, where)
        else:
            run.b.note(where, "item that is not an AgentChat message", raw)


def _team(run: _Run, state: dict[str, Any]) -> None:
    """A TeamState: the manager's message thread is the run; the agents' own states hold
    their model context (a copy of the thread) and message buffer."""
    agents = obj(state.get("agent_states"), "$.agent_states")
    threads = [
        (name, s) for name, s in agents.items() if isinstance(s, dict) and "message_thread" in s
    ]
    for name, manager in threads:
        at = f"$.agent_states.{name}"
        run.b.metadata["team_manager"] = name
        run.b.mark(at)
        _messages(run, opt_list(obj(manager, at), "message_thread", at), f"{at}.message_thread")
    for name, agent in agents.items():
        if (name, agent) in threads:
            continue
        at = f"$.agent_states.{name}"
        if threads:
            run.b.skip(at, "agent state (its model context repeats the team's thread)")
        else:
            inner = obj(agent, at).get("agent_state")
            read_context(run.b, inner if isinstance(inner, dict) else agent, at, name)


def convert(value: Any, name_hint: str) -> list[Any]:
    if not detect(value):
        raise fail("$", "expected AutoGen AgentChat messages, a TaskResult or a TeamState")
    run = _Run(name_hint)
    if isinstance(value, list):
        _messages(run, value, "$")
    elif value.get("type") == "TeamState":
        run.b.mark("$")
        _team(run, value)
    elif value.get("type") == "AssistantAgentState":
        run.b.mark("$")
        read_context(run.b, value, "$", None)
    else:
        stop = value.get("stop_reason")
        if stop is not None:
            run.b.metadata["stop_reason"] = stop
        run.b.mark("$")
        _messages(run, value["messages"], "$.messages")
    return [run.build()]


ADAPTER = Adapter(
    name=NAME,
    description="AutoGen AgentChat messages, TaskResult and TeamState dumps",
    detect=detect,
    convert=convert,
)
