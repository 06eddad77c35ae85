"""An AutoGen agent's model context (`llm_context.messages`, autogen_core LLM messages:
SystemMessage, UserMessage, AssistantMessage, FunctionExecutionResultMessage): the run as
the agent's model saw it, read when a saved state holds nothing else."""

from __future__ import annotations

from typing import Any

from ..core.common import TraceBuilder, obj, opt_list, opt_obj, opt_str


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p for p in content if isinstance(p, str))
    return ""


def read_context(b: TraceBuilder, state: dict[str, Any], at: str, agent: str | None) -> None:
    """Map the messages of an agent state's `llm_context` (its buffer is bookkeeping)."""
    context = opt_obj(state, "llm_context", at)
    if context is None:
        b.note(at, "agent state without a model context", state)
        return
    b.mark(at)
    for index, raw in enumerate(opt_list(context, "messages", f"{at}.llm_context")):
        where = f"{at}.llm_context.messages[{index}]"
        _message(b, obj(raw, where), where, agent)


def _message(b: TraceBuilder, message: dict[str, Any], at: str, agent: str | None) -> None:
    kind = message.get("type")
    content = message.get("content")
    if kind in ("SystemMessage", "UserMessage"):
        b.input("system" if kind == "SystemMessage" else "user", _text(content), at)
        return
    start = len(b.steps)
    if kind == "AssistantMessage":
        thought = opt_str(message, "thought", at)
        if thought:
            b.reasoning(thought, f"{at}.thought")
        if isinstance(content, list):
            for index, raw in enumerate(content):
                where = f"{at}.content[{index}]"
                call = obj(raw, where)
                name = opt_str(call, "name", where)
                b.call(
                    opt_str(call, "id", where), name, call.get("arguments"), f"{where}.arguments"
                )
        else:
            b.text(_text(content), at)
    elif kind == "FunctionExecutionResultMessage" and isinstance(content, list):
        for index, raw in enumerate(content):
            where = f"{at}.content[{index}]"
            result = obj(raw, where)
            failed = result.get("is_error")
            b.result(
                opt_str(result, "call_id", where),
                result.get("content"),
                where,
                is_error=failed if isinstance(failed, bool) else None,
                name=opt_str(result, "name", where),
            )
    else:
        b.note(at, "model context message of an unknown type", message)
    source = message.get("source") if isinstance(message.get("source"), str) else agent
    for step in b.steps[start:]:
        if source is not None:
            step["agent"] = source
