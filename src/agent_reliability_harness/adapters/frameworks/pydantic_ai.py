"""The "pydantic-ai" format: Pydantic AI message histories as `ModelMessagesTypeAdapter` dumps
them (`result.all_messages_json()`): `ModelRequest` / `ModelResponse` objects (`kind`) whose
`parts` carry a `part_kind`. One trace per history; retried or failed tool returns (and the
legacy `retry-prompt` parts) are failed calls."""

from __future__ import annotations

import json
from typing import Any

from ...models.common import is_number
from ..core.base import Adapter
from ..core.common import TraceBuilder, arr, fail, obj, opt_count, opt_obj, opt_str

NAME = "pydantic-ai"
_KINDS = ("request", "response")
_FAILED = ("failed", "retried")
# Parts that carry no run content: deltas and digests of instructions, tools and settings
# that pydantic-ai keeps to rebuild a request.
_BOOKKEEPING = (
    "instruction-digest",
    "instruction-baseline",
    "tool-availability-delta",
    "capability-load-delta",
    "model-settings-delta",
)


def _messages(value: Any) -> list[Any] | None:
    if isinstance(value, list):
        return value
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        return list(value["messages"])
    return None


def _is_message(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    parts = item.get("parts")
    return (
        item.get("kind") in _KINDS
        and isinstance(parts, list)
        and any(isinstance(p, dict) and isinstance(p.get("part_kind"), str) for p in parts)
    )


def detect(value: Any) -> bool:
    """A list (or `{"messages": [...]}`) of objects with `kind` request/response whose
    parts have a `part_kind` (Gemini's contents have `parts` but never these)."""
    messages = _messages(value)
    return bool(messages) and any(_is_message(m) for m in (messages or [])[:1000])


def convert(value: Any, name_hint: str) -> list[Any]:
    messages = _messages(value)
    if messages is None:
        raise fail("$", "expected a message history (an array of requests and responses)")
    where = "messages" if isinstance(value, dict) else ""
    b = TraceBuilder(NAME, name_hint)
    runs: list[str] = []
    conversations: list[str] = []
    for index, raw in enumerate(messages):
        at = f"{where}[{index}]"
        message = obj(raw, at)
        for key, seen in (("run_id", runs), ("conversation_id", conversations)):
            label = opt_str(message, key, at)
            if label and label not in seen:
                seen.append(label)
        kind = message.get("kind")
        if kind == "request":
            _request(b, message, at)
        elif kind == "response":
            _response(b, message, at)
        else:
            b.note(at, "message that is neither a request nor a response", message)
    # One conversation (or, without one, one run) names the trace; labels written next
    # to the messages of a body win.
    if len(conversations) == 1:
        b.trace_id = conversations[0]
    elif len(runs) == 1:
        b.trace_id = runs[0]
    if runs:
        b.metadata["run_ids"] = runs
    if isinstance(value, dict):
        b.labels(value)
    return [b.build()]


def _text(content: Any, b: TraceBuilder, at: str) -> str | None:
    """A prompt's text: a string, or the strings of a multi-modal content list (the rest
    are noted)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for index, item in enumerate(content):
            if isinstance(item, str):
                texts.append(item)
            else:
                b.note(f"{at}[{index}]", "prompt content that is not text", item)
        return "\n".join(texts)
    b.note(at, "prompt content that is not text", content)
    return None


def _request(b: TraceBuilder, message: dict[str, Any], at: str) -> None:
    instructions = opt_str(message, "instructions", at)
    if instructions:  # every request of a run repeats the agent's instructions
        b.input("system", instructions, f"{at}.instructions", once=True)
    for index, raw in enumerate(arr(message.get("parts"), f"{at}.parts")):
        where = f"{at}.parts[{index}]"
        part = obj(raw, where)
        kind = part.get("part_kind")
        if kind in ("system-prompt", "instruction", "instruction-delta"):
            text = _text(part.get("content"), b, f"{where}.content")
            if text is not None:
                b.input("system", text, where)
        elif kind == "user-prompt":
            text = _text(part.get("content"), b, f"{where}.content")
            if text is not None:
                b.input("user", text, where)
        elif kind in ("tool-return", "builtin-tool-return"):
            _tool_return(b, part, where)
        elif kind == "retry-prompt" and part.get("tool_name") is not None:
            # Legacy histories: a retry that answers a tool call is that call's failure.
            content = part.get("content")
            b.result(
                opt_str(part, "tool_call_id", where),
                content,
                where,
                error=_error_text(content),
                is_error=True,
                name=opt_str(part, "tool_name", where),
            )
        elif kind in _BOOKKEEPING:
            b.skip(where, f"{kind} part")
        else:
            b.note(where, f"{kind or 'untyped'} request part is not mapped", part)


def _tool_return(b: TraceBuilder, part: dict[str, Any], at: str) -> None:
    call_id = opt_str(part, "tool_call_id", at)
    outcome = part.get("outcome", "success")
    failed = outcome in _FAILED
    content = part.get("content")
    b.result(
        call_id,
        content,
        at,
        error=_error_text(content) if failed else None,
        is_error=failed,
        name=opt_str(part, "tool_name", at),
    )
    if outcome != "success" and call_id:
        answered = (i for i in range(len(b.steps) - 1, -1, -1) if b.steps[i]["step_id"] == call_id)
        index = next((i for i in answered if "output" in b.steps[i]), None)
        if index is not None:
            b.measure(index, outcome=outcome)


def _error_text(content: Any) -> str:
    """Why a retried call failed: its text, or the messages of validation error details."""
    if isinstance(content, str) and content.strip():
        return content
    if isinstance(content, list):
        messages = [d.get("msg") for d in content if isinstance(d, dict)]
        if messages and all(isinstance(m, str) for m in messages):
            return "; ".join(str(m) for m in messages)
    return json.dumps(content, sort_keys=True, ensure_ascii=False)[:2000]


def _response(b: TraceBuilder, message: dict[str, Any], at: str) -> None:
    meta = {
        "model": opt_str(message, "model_name", at),
        "response_id": opt_str(message, "provider_response_id", at),
    }
    start = len(b.steps)
    texts: list[str] = []
    thought = False

    def flush(where: str) -> None:  # consecutive text parts are one model response
        if texts:
            b.text("".join(texts), where, **meta)
            texts.clear()

    for index, raw in enumerate(arr(message.get("parts"), f"{at}.parts")):
        where = f"{at}.parts[{index}]"
        part = obj(raw, where)
        kind = part.get("part_kind")
        if kind == "text":
            texts.append(opt_str(part, "content", where) or "")
            continue
        flush(where)
        if kind in ("tool-call", "builtin-tool-call"):
            built_in = True if kind == "builtin-tool-call" else None
            b.call(
                opt_str(part, "tool_call_id", where),
                opt_str(part, "tool_name", where),
                part.get("args"),
                f"{where}.args",
                **meta,
                built_in=built_in,
            )
        elif kind == "builtin-tool-return":
            _tool_return(b, part, where)
        elif kind == "thinking":
            b.reasoning(opt_str(part, "content", where) or "", where)
            thought = True
        else:
            b.note(where, f"{kind or 'untyped'} response part is not mapped", part)
    flush(at)
    usage = opt_obj(message, "usage", at)
    cost = usage.get("cost") if usage else None
    has_cost = isinstance(cost, int | float) and is_number(cost) and cost >= 0
    if start == len(b.steps) and (thought or has_cost):
        b.text(None, at, **meta)  # a turn that only reasoned: its step carries usage and cost
    b.tokens(
        start,
        opt_count(usage, "input_tokens", f"{at}.usage"),
        opt_count(usage, "output_tokens", f"{at}.usage"),
        at,
        cost_usd=cost if has_cost else None,
    )


ADAPTER = Adapter(
    name=NAME,
    description="Pydantic AI message history (ModelMessagesTypeAdapter JSON)",
    detect=detect,
    convert=convert,
)
