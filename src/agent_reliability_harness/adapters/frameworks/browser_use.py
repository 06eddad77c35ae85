"""The "browser-use" format: browser-use's `AgentHistoryList` dump
(`history.save_to_file(...)`: `{"history": [...]}`, one entry per agent step).

An entry holds the model's output (`thinking`, `evaluation_previous_goal`, `memory`,
`next_goal`, `action`: a list of `{<action name>: <params>}`; before 0.3 the three goals
sit under `current_state`), the results of the actions it ran (`result[i]` answers
`action[i]`: `extracted_content`, `error`, `is_done`, `success`), the browser state and
the step's timing. One trace per dump.
"""

from __future__ import annotations

from typing import Any

from ..core.base import Adapter
from ..core.common import TraceBuilder, arr, fail, obj, opt_amount, opt_count, opt_obj, opt_str

NAME = "browser-use"
_BRAIN = ("evaluation_previous_goal", "memory", "next_goal")
_RESULT_KEYS = ("is_done", "extracted_content", "error", "long_term_memory")


def _is_entry(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and "model_output" in item
        and isinstance(item.get("result"), list)
        and ("state" in item or "metadata" in item)
    )


def detect(value: Any) -> bool:
    """`{"history": [...]}` whose entries hold `model_output`, `result` and `state`."""
    history = value.get("history") if isinstance(value, dict) else None
    return isinstance(history, list) and any(_is_entry(e) for e in history[:1000])


def convert(value: Any, name_hint: str) -> list[Any]:
    if not detect(value):
        raise fail("$", 'expected a browser-use AgentHistoryList ({"history": [...]})')
    b = TraceBuilder(NAME, name_hint)
    for index, raw in enumerate(arr(value.get("history"), "history")):
        at = f"history[{index}]"
        _entry(b, obj(raw, at), at)
    _usage(b, value)
    return [b.build()]


def _entry(b: TraceBuilder, entry: dict[str, Any], at: str) -> None:
    start = len(b.steps)
    output = opt_obj(entry, "model_output", at)
    calls: list[int] = []
    if output is not None:
        calls = _model_output(b, output, f"{at}.model_output")
    results = arr(entry.get("result"), f"{at}.result")
    for n, raw in enumerate(results):
        where = f"{at}.result[{n}]"
        result = obj(raw, where)
        if n < len(calls):
            _settle(b, calls[n], result, where)
        elif result.get("error") is not None and not calls:
            # The step failed before the model gave actions (a model, parsing or
            # browser error browser-use recorded as the step's result).
            index = b.text(None, where, browser_use="failed step")
            b.settle(index, error=str(result["error"]))
        else:
            b.note(where, "action result without an action", result)
        _judgement(b, result, where)
    meta = opt_obj(entry, "metadata", at)
    began = opt_amount(meta, "step_start_time", f"{at}.metadata")
    ended = opt_amount(meta, "step_end_time", f"{at}.metadata")
    if began is not None and ended is not None and ended >= began and start < len(b.steps):
        b.measure(start, latency_ms=(ended - began) * 1000)
    if len(b.steps) == start and not results:
        b.skip(at, "step without model output or results")


def _model_output(b: TraceBuilder, output: dict[str, Any], at: str) -> list[int]:
    """The model's turn: its thinking (reasoning), its brain (next goal as text, the
    evaluation and memory as step metadata) and its actions as calls."""
    thinking = opt_str(output, "thinking", at)
    if thinking:
        b.reasoning(thinking, f"{at}.thinking")
    brain = opt_obj(output, "current_state", at) or output
    goal = brain.get("next_goal")
    meta = {k: brain[k] for k in _BRAIN[:2] if isinstance(brain.get(k), str) and brain[k]}
    if isinstance(goal, str) and goal:
        b.text(goal, at, **meta)
    elif meta:
        b.text(None, at, **meta)
    calls: list[int] = []
    for n, raw in enumerate(arr(output.get("action", []), f"{at}.action")):
        where = f"{at}.action[{n}]"
        action = obj(raw, where)
        named = [(k, v) for k, v in action.items() if k != "interacted_element"]
        if len(named) != 1:
            b.note(where, "action that is not one {name: params} object", action)
            continue
        name, params = named[0]
        calls.append(b.call(None, name, params if params is not None else {}, where))
    return calls


def _settle(b: TraceBuilder, index: int, result: dict[str, Any], at: str) -> None:
    """An action's result: its extracted content (the done action's is the final
    answer); `error` fails it."""
    error = opt_str(result, "error", at)
    content = result.get("extracted_content")
    b.settle(index, content, error=error, is_error=error is not None)
    b.mark(at)
    extra = {k: result[k] for k in ("is_done", "success") if result.get(k) is not None}
    if extra.get("is_done"):
        b.measure(index, **extra)
        b.metadata["browser_use"] = {**b.metadata.get("browser_use", {}), **extra}
        if "success" in extra:
            b.metadata["browser_use"]["final_result"] = content


def _judgement(b: TraceBuilder, result: dict[str, Any], at: str) -> None:
    """A judge's verdict on the run (browser-use's `judgement`), the trace outcome."""
    judgement = opt_obj(result, "judgement", at)
    verdict = judgement.get("verdict") if judgement else None
    if isinstance(verdict, bool):
        b.labels({"outcome": {"success": verdict}}, at)


def _usage(b: TraceBuilder, value: dict[str, Any]) -> None:
    """The run's usage summary (`usage`, written by recent versions): on the first step,
    once, as a run total."""
    usage = opt_obj(value, "usage", "$")
    prompt = opt_count(usage, "total_prompt_tokens", "usage")
    completion = opt_count(usage, "total_completion_tokens", "usage")
    cost = opt_amount(usage, "total_cost", "usage")
    if b.steps and (prompt, completion, cost) != (None, None, None):
        b.tokens(0, prompt, completion, "usage", cost_usd=cost)
        b.measure(0, usage="run total (usage)")


ADAPTER = Adapter(
    name=NAME,
    description="browser-use AgentHistoryList dumps (agent history JSON)",
    detect=detect,
    convert=convert,
)
