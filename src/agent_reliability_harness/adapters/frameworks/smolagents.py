"""The "smolagents" format: Hugging Face smolagents runs.

Three shapes: a run's messages (`agent.write_memory_to_messages()`: roles system, user,
assistant, `tool-call`, `tool-response`; the calls written as the text "Calling tools:"
and a Python literal), its memory steps (`agent.memory.get_full_steps()`: TaskStep,
ActionStep, PlanningStep, FinalAnswerStep dicts), and the benchmark's output records
(`examples/smolagents_benchmark/run.py`: one object per line with `intermediate_steps`,
`answer`, `true_answer`, `token_counts`). One trace per run.
"""

from __future__ import annotations

import re
from typing import Any

from ..core.base import Adapter
from ..core.common import (
    TraceBuilder,
    arr,
    content_text,
    fail,
    obj,
    opt_amount,
    opt_count,
    opt_list,
    opt_obj,
)
from ._smolagents_text import ERROR_PREFIX, call_list, failed_call, is_call_rendering

NAME = "smolagents"
_ROLES = ("tool-call", "tool-response")
_OBSERVATION = "Observation:\n"
_CALL_ID = re.compile(r"Call id: (\S+)\n")
_RECORD_KEYS = ("model_id", "agent_action_type", "source", "answer", "true_answer")
_RUN_TOTAL = "run total (token_counts)"


def _is_message(item: Any) -> bool:
    return isinstance(item, dict) and item.get("role") in _ROLES


def _is_step(item: Any) -> bool:
    return isinstance(item, dict) and (
        ("step_number" in item and "timing" in item and "model_output_message" in item)
        or ("plan" in item and "model_output_message" in item)
    )


def _is_record(item: Any) -> bool:
    steps = item.get("intermediate_steps") if isinstance(item, dict) else None
    if not isinstance(steps, list):
        return False
    own = "token_counts" in item or "agent_action_type" in item
    return own or any(_is_message(s) or _is_step(s) for s in steps[:1000])


def detect(value: Any) -> bool:
    """A benchmark record (`intermediate_steps` with `token_counts`), an array of them,
    messages with the roles `tool-call` / `tool-response`, or memory step dicts."""
    if isinstance(value, dict):
        return _is_record(value)
    if isinstance(value, list):
        return any(_is_record(v) or _is_message(v) or _is_step(v) for v in value[:1000])
    return False


def convert(value: Any, name_hint: str) -> list[Any]:
    if isinstance(value, dict) and _is_record(value):
        return [_record(value, "", name_hint)]
    if not isinstance(value, list):
        raise fail("$", "expected smolagents messages, memory steps or benchmark records")
    if value and all(isinstance(v, dict) and "intermediate_steps" in v for v in value):
        many = len(value) > 1
        return [
            _record(obj(v, f"[{n}]"), f"[{n}]", f"{name_hint}-{n + 1}" if many else name_hint)
            for n, v in enumerate(value)
        ]
    b = TraceBuilder(NAME, name_hint)
    _walk(b, value, "")
    return [b.build()]


def _record(record: dict[str, Any], at: str, hint: str) -> dict[str, Any]:
    b = TraceBuilder(NAME, hint)
    b.metadata["smolagents"] = {k: record[k] for k in _RECORD_KEYS if record.get(k) is not None}
    for key in ("start_time", "end_time"):
        if record.get(key) is not None:
            b.metadata["smolagents"][key] = record[key]
    where = f"{at}.intermediate_steps" if at else "intermediate_steps"
    _walk(b, arr(record.get("intermediate_steps"), where), where)
    counts = opt_obj(record, "token_counts", at or "$")
    here = f"{at}.token_counts" if at else "token_counts"
    prompt = opt_count(counts, "input_tokens", here)
    completion = opt_count(counts, "output_tokens", here)
    if b.steps and (prompt, completion) != (None, None):
        b.tokens(0, prompt, completion, here)
        b.measure(0, usage=_RUN_TOTAL)
    return b.build()


def _walk(b: TraceBuilder, items: list[Any], at: str) -> None:
    run = _Run(b)
    for index, raw in enumerate(items):
        where = f"{at}[{index}]"
        item = obj(raw, where)
        if "role" in item:
            run.message(item, where)
        else:
            run.step(item, where)


class _Run:
    """One run's items in order; the calls of the last call message wait for results."""

    def __init__(self, b: TraceBuilder) -> None:
        self.b = b
        self.open: list[tuple[str | None, int]] = []  # the last call item's calls: (id, step)

    # --- messages (write_memory_to_messages) ----------------------------------------

    def message(self, m: dict[str, Any], at: str) -> None:
        b, role = self.b, m.get("role")
        text = content_text(m.get("content"), f"{at}.content", b, "\n")
        if role in ("system", "user"):
            b.input(str(role), text or "", at)
        elif role == "assistant":
            if text is not None and is_call_rendering(text):
                b.skip(at, "smolagents' text of the tool calls the next message holds")
            else:
                b.text(text, at)
        elif role == "tool-call":
            self.open = []
            calls = call_list(text or "")
            if calls is None:
                b.note(at, "tool-call message that is not a list of calls", text)
                return
            for n, call in enumerate(calls):
                self.call(call, f"{at}.content[{n}]")
        elif role == "tool-response":
            self.response(text or "", at)
        else:
            b.note(at, "message with an unknown role", m)

    def call(self, call: dict[str, Any], at: str) -> None:
        nested = call.get("function")
        function: dict[str, Any] = nested if isinstance(nested, dict) else call
        call_id = call.get("id") if isinstance(call.get("id"), str) else None
        name = function.get("name") if isinstance(function.get("name"), str) else None
        index = self.b.call(call_id or None, name, _arguments(name, function.get("arguments")), at)
        self.open.append((call_id or None, index))

    def response(self, text: str, at: str) -> None:
        """An observation answers the open calls of the last call message; an error
        answers them failed, or (none open) is a call smolagents failed before recording
        it, or a failed model turn."""
        if text.startswith(_OBSERVATION):
            self.answer(text[len(_OBSERVATION) :], at, None)
            return
        match = _CALL_ID.match(text)
        body = text[match.end() :] if match else text
        if not body.startswith(ERROR_PREFIX):
            self.answer(text, at, None)
            return
        error = body[len(ERROR_PREFIX) :]
        named = [c for c in self.open if match and c[0] == match.group(1)]
        self.open = named or self.open
        if self.open:
            self.answer(body, at, error)
            return
        parsed = failed_call(error)
        if parsed is None:  # a model output smolagents could not generate or parse
            index = self.b.text(None, at, smolagents="failed step")
            self.b.settle(index, error=error)
            return
        name, arguments = parsed
        index = self.b.call(None, name, _arguments(name, arguments), at)
        self.b.settle(index, body, error=error)  # the item is the call and its result

    def answer(self, output: str, at: str, error: str | None) -> None:
        """All calls of one step are answered by one observation (smolagents joins the
        outputs of parallel calls): the first open call gets it, the others are closed."""
        if not self.open:
            self.b.result(None, output, at, error=error, is_error=error is not None)
            return
        (first, _), *rest = self.open
        self.b.result(first, output, at, error=error, is_error=error is not None)
        for _, index in rest:
            self.b.answered(index)
        self.open = []

    # --- memory steps (get_full_steps) ----------------------------------------------

    def step(self, s: dict[str, Any], at: str) -> None:
        b = self.b
        if "task" in s:
            b.input("user", str(s.get("task") or ""), at)
        elif "plan" in s:
            start = len(b.steps)
            b.text(str(s.get("plan") or ""), at, smolagents="plan")
            self.usage(s, at, start)
        elif "step_number" in s:
            self.action(s, at)
        elif "output" in s and len(s) == 1:
            b.metadata["final_answer"] = s["output"]
            b.mark(at)
        else:
            b.note(at, "memory step of an unknown kind", s)

    def action(self, s: dict[str, Any], at: str) -> None:
        b, start = self.b, len(self.b.steps)
        output = s.get("model_output")
        if isinstance(output, str) and output.strip() and not is_call_rendering(output):
            b.text(output, f"{at}.model_output")
        self.open = []
        for n, raw in enumerate(opt_list(s, "tool_calls", at)):
            self.call(obj(raw, f"{at}.tool_calls[{n}]"), f"{at}.tool_calls[{n}]")
        error = s.get("error")
        message = error.get("message") if isinstance(error, dict) else error
        if self.open and (s.get("observations") is not None or message is not None):
            observed = s.get("observations")
            self.answer(str(observed if observed is not None else message), at, message)
        elif message is not None:
            parsed = failed_call(str(message))
            if parsed is None:
                index = b.text(None, f"{at}.error", smolagents="failed step")
                b.settle(index, error=str(message))
            else:
                index = b.call(None, parsed[0], _arguments(parsed[0], parsed[1]), f"{at}.error")
                b.settle(index, str(message), error=str(message))
        self.usage(s, at, start)
        if len(b.steps) == start:
            b.skip(at, "action step without output, calls or error")

    def usage(self, s: dict[str, Any], at: str, start: int) -> None:
        usage = opt_obj(s, "token_usage", at)
        where = f"{at}.token_usage"
        prompt = opt_count(usage, "input_tokens", where)
        completion = opt_count(usage, "output_tokens", where)
        self.b.tokens(start, prompt, completion, where)
        timing = opt_obj(s, "timing", at)
        seconds = opt_amount(timing, "duration", f"{at}.timing")
        if seconds is not None and start < len(self.b.steps):
            self.b.measure(start, latency_ms=seconds * 1000)


def _arguments(name: str | None, raw: Any) -> Any:
    """A call's arguments: an object, JSON text, or (CodeAgent's `python_interpreter`)
    the code itself, as `{"code": ...}`."""
    if isinstance(raw, str) and name == "python_interpreter" and not raw.lstrip().startswith("{"):
        return {"code": raw}
    return raw


ADAPTER = Adapter(
    name=NAME,
    description="smolagents runs: memory messages and steps, benchmark output records",
    detect=detect,
    convert=convert,
)
