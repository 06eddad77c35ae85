"""The "letta" format: Letta agent files (`.af`), an agent's state and message history.

The current schema (`AgentFileSchema`) holds `agents[]`, each with its `messages`, next
to the shared `blocks`, `tools`, `groups`, `files`, `sources`, `mcp_servers`; the
2025-03 schema is one agent object with a top-level `messages` list. Messages are
OpenAI-shaped (`tool_calls`; `role: "tool"` with `tool_call_id`) with Letta's content
parts (`text`, `reasoning`, `redacted_reasoning`, `omitted_reasoning`) and, in the current
schema, `tool_returns` with their `status`. One trace per agent with messages.
"""

from __future__ import annotations

from typing import Any

from ...errors import InputError
from ...io import decode_json
from ..core.base import Adapter
from ..core.common import TraceBuilder, arr, fail, obj, opt_list, opt_obj, opt_str

NAME = "letta"
_INPUTS = ("system", "user")
_REDACTED = ("redacted_reasoning", "omitted_reasoning")
# Letta tools report how they ended in their JSON reply (`package_function_response`):
# {"status": "OK" | "Failed", "message": ...}.
_FAILED = "Failed"
_STATE = "agent file state (memory blocks, tools, groups, files, sources, MCP servers)"


def _is_agent(item: Any) -> bool:
    return isinstance(item, dict) and "agent_type" in item and "llm_config" in item


def detect(value: Any) -> bool:
    """An agent file: `agents[]` of agent objects (`agent_type`, `llm_config`), or one
    agent object with its `messages` (the 2025-03 schema)."""
    if not isinstance(value, dict):
        return False
    agents = value.get("agents")
    if isinstance(agents, list):
        return any(_is_agent(a) for a in agents[:1000])
    return _is_agent(value) and isinstance(value.get("messages"), list)


def convert(value: Any, name_hint: str) -> list[Any]:
    if not detect(value):
        raise fail("$", "expected a Letta agent file (agents[] or one agent with messages)")
    if not isinstance(value.get("agents"), list):
        b = TraceBuilder(NAME, name_hint)
        _agent(b, value, "")
        return [b.build()]
    agents = [(n, obj(a, f"agents[{n}]")) for n, a in enumerate(value["agents"])]
    talking = [(n, a) for n, a in agents if a.get("messages")]
    silent = [n for n, a in agents if talking and not a.get("messages")]
    talking = talking or agents
    many = len(talking) > 1
    traces: list[Any] = []
    for number, (n, agent) in enumerate(talking, start=1):
        b = TraceBuilder(NAME, f"{name_hint}-{number}" if many else name_hint)
        if number == 1:
            for key in ("blocks", "tools", "groups", "files", "sources", "mcp_servers", "skills"):
                if value.get(key):
                    b.skip(key, _STATE)
            for m in silent:
                b.skip(f"agents[{m}]", "agent without messages")
        _groups(b, value, agent)
        _agent(b, agent, f"agents[{n}]")
        traces.append(b.build())
    return traces


def _groups(b: TraceBuilder, value: dict[str, Any], agent: dict[str, Any]) -> None:
    """The multi-agent groups the agent belongs to (a sleep-time agent's manager)."""
    ids = agent.get("group_ids")
    groups = value.get("groups")
    if isinstance(ids, list) and isinstance(groups, list):
        mine = [g for g in groups if isinstance(g, dict) and g.get("id") in ids]
        managing = [
            g
            for g in groups
            if isinstance(g, dict)
            and isinstance(g.get("agent_ids"), list)
            and agent.get("id") in g["agent_ids"]
        ]
        if mine or managing:
            b.metadata["letta_groups"] = mine + [g for g in managing if g not in mine]


def _agent(b: TraceBuilder, agent: dict[str, Any], at: str) -> None:
    prefix = f"{at}." if at else ""
    name = opt_str(agent, "name", at or "$")
    if name:
        b.agent_name = name
    meta: dict[str, Any] = {}
    for key in ("id", "agent_type", "description"):
        if agent.get(key) is not None:
            meta[key] = agent[key]
    llm = opt_obj(agent, "llm_config", at or "$")
    if llm and isinstance(llm.get("model"), str):
        meta["model"] = llm["model"]
    b.metadata["letta"] = meta
    messages = arr(agent.get("messages"), f"{prefix}messages") if "messages" in agent else []
    for index, raw in enumerate(messages):
        where = f"{prefix}messages[{index}]"
        _message(b, obj(raw, where), where)


def _message(b: TraceBuilder, m: dict[str, Any], at: str) -> None:
    role = m.get("role")
    if role in _INPUTS:
        texts = _parts(b, m, at, inputs=True)
        b.input(str(role), "\n".join(texts), at)
    elif role == "assistant":
        _assistant(b, m, at)
    elif role == "tool":
        _tool(b, m, at)
    else:
        b.note(at, "message with an unknown role", m)


def _parts(b: TraceBuilder, m: dict[str, Any], at: str, inputs: bool = False) -> list[str]:
    """The text of a message's parts; reasoning parts go to the next step's metadata."""
    content = m.get("content")
    if isinstance(content, str) or content is None:
        return [content] if content else []
    texts: list[str] = []
    for n, raw in enumerate(arr(content, f"{at}.content")):
        where = f"{at}.content[{n}]"
        part = obj(raw, where)
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif kind == "reasoning" and not inputs:
            b.reasoning(opt_str(part, "reasoning", where) or "", where)
        elif kind in _REDACTED and not inputs:
            b.reasoning(None, where)
        else:
            b.note(where, "content part that is not text", part)
    return texts


def _assistant(b: TraceBuilder, m: dict[str, Any], at: str) -> None:
    before = (b.mapped, len(b.notes))
    text = "".join(_parts(b, m, at))
    if text.strip():
        b.text(text, at, model=m.get("model") if isinstance(m.get("model"), str) else None)
    for n, raw in enumerate(opt_list(m, "tool_calls", at)):
        where = f"{at}.tool_calls[{n}]"
        call = obj(raw, where)
        function = opt_obj(call, "function", where) or {}
        name = opt_str(function, "name", f"{where}.function")
        call_id = opt_str(call, "id", where) or None
        b.call(call_id, name, function.get("arguments"), f"{where}.function.arguments")
    if (b.mapped, len(b.notes)) == before:
        b.skip(at, "assistant message without content")
    b.end_turn()


def _tool(b: TraceBuilder, m: dict[str, Any], at: str) -> None:
    """A tool message: its `tool_returns` (status "success" / "error"), else its text,
    failed when the tool's JSON reply says `"status": "Failed"`."""
    returns = opt_list(m, "tool_returns", at)
    if not returns:
        text = "\n".join(_parts(b, m, at))
        failed = _reply_failed(text)
        call_id = opt_str(m, "tool_call_id", at) or None
        b.result(call_id, text, at, name=opt_str(m, "name", at), is_error=failed)
        return
    for n, raw in enumerate(returns):
        where = f"{at}.tool_returns[{n}]"
        ret = obj(raw, where)
        status = opt_str(ret, "status", where)
        output = ret.get("func_response")
        stderr = ret.get("stderr")
        error = None
        if status == "error":
            error = _error_text(output, stderr)
        call_id = opt_str(ret, "tool_call_id", where) or opt_str(m, "tool_call_id", at) or None
        b.result(
            call_id,
            output,
            where,
            error=error,
            is_error=None if status is None else status == "error",
        )


def _error_text(output: Any, stderr: Any) -> str:
    if isinstance(stderr, list) and stderr:
        return "\n".join(str(s) for s in stderr)
    return output if isinstance(output, str) and output else "tool returned status error"


def _reply_failed(text: str) -> bool | None:
    try:
        reply = decode_json(text)
    except InputError:
        return None
    if isinstance(reply, dict) and isinstance(reply.get("status"), str):
        return bool(reply["status"] == _FAILED)
    return None


ADAPTER = Adapter(
    name=NAME,
    description="Letta agent files (.af): each agent's message history",
    detect=detect,
    convert=convert,
    suffixes=(".af",),
)
