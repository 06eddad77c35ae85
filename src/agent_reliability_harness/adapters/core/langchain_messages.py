"""Serialised LangChain messages (`dumpd`, `messages_to_dict`, `model_dump` forms) mapped onto
a TraceBuilder: shared by two families, frameworks (message lists and LangGraph state,
langchain.py; LangSmith runs, langsmith_runs.py) and tracing (LangSmith's OTel spans, the
ToolMessages of Langfuse tool spans)."""

from __future__ import annotations

from typing import Any

from .common import TraceBuilder, obj, opt_count, opt_list, opt_obj, opt_str

# Message classes by the `type` they serialise with (chunks keep their class name).
_CLASSES = {
    "HumanMessage": "human",
    "AIMessage": "ai",
    "SystemMessage": "system",
    "ToolMessage": "tool",
    "FunctionMessage": "function",
    "ChatMessage": "chat",
    "RemoveMessage": "remove",
    "AIMessageChunk": "ai",
    "HumanMessageChunk": "human",
    "SystemMessageChunk": "system",
    "ToolMessageChunk": "tool",
    "FunctionMessageChunk": "function",
    "ChatMessageChunk": "chat",
}
_TYPES = {*_CLASSES.values(), *_CLASSES}
_THINKING = ("thinking", "reasoning", "redacted_thinking")
_CALL_BLOCKS = ("tool_use", "tool_call", "function_call", "server_tool_use")


def message(raw: Any) -> tuple[str, dict[str, Any]] | None:
    """(type, fields) of a serialised message in any of the three forms, else None:
    `dumpd` ({"lc": 1, "type": "constructor", "id": [..., class], "kwargs"}),
    `messages_to_dict` ({"type", "data"}) and `model_dump` (the fields, with `type`)."""
    if not isinstance(raw, dict):
        return None
    if raw.get("lc") == 1 and raw.get("type") == "constructor" and isinstance(raw.get("id"), list):
        ids, kwargs = raw["id"], raw.get("kwargs")
        kind = _CLASSES.get(ids[-1]) if ids and isinstance(ids[-1], str) else None
        if not kind or not isinstance(kwargs, dict):
            return None
        if kind == "tool":  # `dumpd` leaves out fields at their default: status "success"
            kwargs = {"status": "success", **kwargs}
        return kind, kwargs
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in _TYPES:
        return None
    data = raw.get("data")
    if isinstance(data, dict) and "content" in data:
        return _CLASSES.get(kind, kind), data
    if "content" in raw and ("additional_kwargs" in raw or "response_metadata" in raw):
        return _CLASSES.get(kind, kind), raw
    return None


def add_message(
    b: TraceBuilder, raw: Any, at: str, executed: set[str], own_step: bool = False
) -> None:
    """Map one serialised message; calls whose ids are in `executed` are left to the run
    that executed them (LangSmith tool runs). With `own_step`, an AI message is always a
    model_response step of its own (an LLM run), before its calls."""
    found = message(raw)
    if found is None:
        b.note(at, "item that is not a LangChain message", raw)
        return
    kind, fields = found
    if add_input(b, found, at):
        return
    if kind == "ai":
        _ai(b, fields, at, executed, own_step)
    elif kind == "tool":
        _tool(b, fields, at)
    elif kind == "function":
        b.result(None, _text(b, fields, at), at, name=opt_str(fields, "name", at))
    elif kind == "chat" and fields.get("role") == "assistant":
        _ai(b, fields, at, executed, own_step)
    elif kind == "remove":
        b.skip(at, "RemoveMessage (a state update, no content)")
    else:
        b.note(at, f"{kind} message is not mapped", raw)


def add_input(b: TraceBuilder, found: tuple[str, dict[str, Any]], at: str) -> bool:
    """Map a human, system (or chat user/system/developer) message as a trusted input;
    False for a message of another kind."""
    kind, fields = found
    role = fields.get("role") if kind == "chat" else {"human": "user", "system": "system"}.get(kind)
    if role not in ("user", "system", "developer"):
        return False
    b.input(str(role), _text(b, fields, at), at)
    return True


def _text(b: TraceBuilder, fields: dict[str, Any], at: str) -> str:
    content = fields.get("content")
    if isinstance(content, str):
        return content
    texts: list[str] = []
    for index, block in enumerate(opt_list(fields, "content", at)):
        if isinstance(block, str):
            texts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            texts.append(opt_str(block, "text", f"{at}.content[{index}]") or "")
        else:
            b.note(f"{at}.content[{index}]", "content block that is not text", block)
    return "\n".join(texts)


def _key(value: Any) -> str | None:
    """A value usable as an id (JSON ids may be anything)."""
    return value if isinstance(value, str) else None


def _blocks(
    b: TraceBuilder, content: Any, at: str, call_ids: set[str]
) -> tuple[list[str], list[tuple[str, str | None]]]:
    """The text and the reasoning (location, text or None when redacted) of an AI
    message's content (a string or blocks); the provider's copies of `tool_calls` are
    skipped, other blocks noted."""
    texts: list[str] = []
    thinking: list[tuple[str, str | None]] = []
    blocks = content if isinstance(content, list) else [content]
    for index, block in enumerate(blocks):
        where = f"{at}.content[{index}]" if isinstance(content, list) else f"{at}.content"
        kind = block.get("type") if isinstance(block, dict) else None
        if isinstance(block, str):
            texts.append(block)
        elif kind == "text":
            texts.append(opt_str(block, "text", where) or "")
        elif isinstance(block, dict) and kind in _THINKING:
            thinking.append((where, _reasoning_text(block)))
        elif kind in _CALL_BLOCKS and isinstance(block, dict) and _key(block.get("id")) in call_ids:
            b.skip(where, "provider content block repeating a tool_calls entry")
        elif block is not None:
            b.note(where, "content block that is not text", block)
    return texts, thinking


def _reasoning_text(block: dict[str, Any]) -> str | None:
    """The text of a reasoning block: Anthropic `thinking`, LangChain's standard
    `reasoning`, or OpenAI's `summary` parts; None when it holds none (redacted or
    encrypted reasoning)."""
    for key in ("thinking", "reasoning"):
        if isinstance(block.get(key), str):
            return str(block[key])
    summary = block.get("summary")
    if isinstance(summary, list):
        parts = [s.get("text") for s in summary if isinstance(s, dict)]
        texts = [s for s in parts if isinstance(s, str)]
        if texts:
            return "\n".join(texts)
    return None


def _ai(
    b: TraceBuilder, fields: dict[str, Any], at: str, executed: set[str], own_step: bool
) -> None:
    response = opt_obj(fields, "response_metadata", at) or {}
    model = response.get("model_name") or response.get("model")
    meta = {"model": model if isinstance(model, str) else None, "response_id": fields.get("id")}
    if not isinstance(meta["response_id"], str):
        meta["response_id"] = None
    calls = [
        obj(c, f"{at}.tool_calls[{i}]") for i, c in enumerate(opt_list(fields, "tool_calls", at))
    ]
    call_ids = {c["id"] for c in calls if isinstance(c.get("id"), str)}
    texts, thinking = _blocks(b, fields.get("content"), at, call_ids)
    kwargs = fields.get("additional_kwargs")
    if isinstance(kwargs, dict) and isinstance(kwargs.get("reasoning_content"), str):
        where = f"{at}.additional_kwargs.reasoning_content"
        thinking.insert(0, (where, kwargs["reasoning_content"]))
    for where, reasoning in thinking:
        b.reasoning(reasoning, where)
    start, before = len(b.steps), b.mapped
    text = "".join(texts)
    invalid = opt_list(fields, "invalid_tool_calls", at)
    if text or own_step:
        b.text(text or None, at, **meta)
    for index, call in enumerate(calls):
        call_id = opt_str(call, "id", f"{at}.tool_calls[{index}]")
        if call_id and call_id in executed:
            continue
        b.call(
            call_id,
            opt_str(call, "name", at),
            call.get("args"),
            f"{at}.tool_calls[{index}].args",
            **meta,
        )
    for index, raw in enumerate(invalid):
        where = f"{at}.invalid_tool_calls[{index}]"
        call = obj(raw, where)
        error = call.get("error")
        b.call(
            opt_str(call, "id", where),
            opt_str(call, "name", where),
            call.get("args"),
            f"{where}.args",
            **meta,
            invalid=error if isinstance(error, str) and error else True,
        )
    usage = opt_obj(fields, "usage_metadata", at)
    where = f"{at}.usage_metadata"
    if b.mapped == before and len(b.steps) == start and not usage and not calls:
        b.skip(at, "AI message without content, tool calls or reasoning")
    b.tokens(
        start,
        opt_count(usage, "input_tokens", where),
        opt_count(usage, "output_tokens", where),
        at,
        key=meta["response_id"],
    )


def _tool(b: TraceBuilder, fields: dict[str, Any], at: str) -> None:
    status = fields.get("status")
    failed = status == "error" if isinstance(status, str) else None
    output = _text(b, fields, at)
    b.result(opt_str(fields, "tool_call_id", at), output, at, is_error=failed)
    if fields.get("artifact") is not None:
        b.note(
            f"{at}.artifact",
            "tool artifact (not shown to the model) is not carried",
            fields["artifact"],
        )
