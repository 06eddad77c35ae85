"""ATIF step parts the writers record in their own ways (see atif.py).

- Results without `source_call_id`: Harbor's writers (terminus-2, its mini-swe-agent
  converter, the computer-use agents) omit it when the observation belongs to the step's
  own calls. They are paired with the calls of the step that no result names: one result
  per call in order; fewer results than calls (terminus-2 records one terminal output for
  all the keystroke commands of a step): each result answers the call in its place and the
  last one answers every call left, its content kept once (on the last call) and the
  others saying where it is (`metadata.output_with`).
- A step `message` that is a chat message object (NeMo-Relay's early exporter): its
  text, reasoning and (when the step has no ATIF `tool_calls`) its OpenAI-style calls.
- A user or system step whose `message` is the request's chat message list: its user and
  system messages are inputs (each once); its assistant and tool messages repeat the
  trajectory's own steps.
"""

from __future__ import annotations

from typing import Any

from ..core.common import TraceBuilder, content_text, obj, opt_list, opt_str

_MESSAGE_KEYS = ("role", "content", "reasoning", "reasoning_content", "tool_calls")
_REPLAYED = "the request's chat history (the trajectory's own steps hold these messages)"
_DUPLICATE_CALLS = "the step's tool_calls as the chat message wrote them (read from tool_calls)"
_INPUT_ROLES = ("user", "system", "developer")


def pair_results(results: list[dict[str, Any]], calls: list[tuple[str, int]]) -> list[list[int]]:
    """For each result, the step indices of the calls it answers (empty: it names its
    call by `source_call_id`, or the step has no call left for it). `calls`: the step's
    calls as (step id, step index), in order."""
    named = {r["source_call_id"] for r in results if isinstance(r.get("source_call_id"), str)}
    waiting = [index for step_id, index in calls if step_id not in named]
    idless = [k for k, r in enumerate(results) if r.get("source_call_id") is None]
    answers: list[list[int]] = [[] for _ in results]
    if not waiting or not idless:
        return answers
    if len(idless) >= len(waiting):
        for k, index in zip(idless, waiting, strict=False):
            answers[k] = [index]
        return answers
    for position, k in enumerate(idless[:-1]):
        answers[k] = [waiting[position]]
    answers[idless[-1]] = waiting[len(idless) - 1 :]
    return answers


def agent_message(
    b: TraceBuilder, message: dict[str, Any], at: str, has_calls: bool
) -> tuple[str | None, str | None, list[Any]]:
    """(text, reasoning, OpenAI-style calls to read) of a step message that is a chat
    message object; what it holds besides is noted."""
    text = message.get("content")
    if isinstance(text, list):
        text = content_text(text, f"{at}.content", b, "\n")
    elif text is not None and not isinstance(text, str):
        b.note(f"{at}.content", "message content that is not text", text)
        text = None
    reasoning = opt_str(message, "reasoning_content", at) or opt_str(message, "reasoning", at)
    calls = opt_list(message, "tool_calls", at)
    if calls and has_calls:
        b.skip(f"{at}.tool_calls", _DUPLICATE_CALLS)
        calls = []
    for key in sorted(set(message) - set(_MESSAGE_KEYS)):
        if message[key] is not None:
            b.note(f"{at}.{key}", "chat message field that is not mapped", message[key])
    return text, reasoning, calls


def openai_call(raw: Any, at: str) -> tuple[str | None, str | None, Any]:
    """(id, name, arguments) of a chat message's call `{id, function: {name, arguments}}`."""
    call = obj(raw, at)
    function = call.get("function")
    function = function if isinstance(function, dict) else {}
    name = function.get("name")
    return (
        opt_str(call, "id", at),
        name if isinstance(name, str) else None,
        function.get("arguments"),
    )


def request_messages(b: TraceBuilder, messages: list[Any], role: str, at: str) -> None:
    """A user or system step's `message` that is the request's chat message list."""
    for index, raw in enumerate(messages):
        where = f"{at}[{index}]"
        if not isinstance(raw, dict):
            b.note(where, "chat message that is not an object", raw)
            continue
        said = raw.get("role", role)
        if said in _INPUT_ROLES:
            text = raw.get("content")
            if isinstance(text, list):
                text = content_text(text, f"{where}.content", b, "\n")
            if isinstance(text, str):
                b.input(str(said), text, where, once=True)
            else:
                b.note(f"{where}.content", "message content that is not text", text)
        elif said in ("assistant", "tool"):
            b.skip(where, _REPLAYED)
        else:
            b.note(where, "chat message with an unknown role", raw)


__all__ = ["agent_message", "openai_call", "pair_results", "request_messages"]
