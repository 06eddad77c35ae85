"""The "tau-bench" format: tau-bench result files and tau2-bench simulation results.

One trace per run, named `<task_id>-<trial>`; the reward becomes `outcome`.
tau-bench runs are OpenAI-chat message lists (`traj`); tau2 runs are its own messages.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ...errors import InputError
from ...io import decode_json
from ...models.common import is_number
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
    opt_str,
)
from ..core.values import label_text

NAME = "tau-bench"
# tau-bench and tau2-bench count a run as solved when its reward is 1 within this tolerance.
REWARD_TOLERANCE = 1e-6
# tau-bench's environment reports a failed tool as text: its tools return "Error: ...",
# an exception becomes "Error: <exception>", an unknown tool "Unknown action <name>".
_FAILURE_PREFIXES = ("Error:", "Unknown action ")
_REACT_ACTION = "Action:"
_REACT_OUTPUT = "API output: "
_RESPOND = "respond"
_NO_CONTENT = "assistant message without content"


def _is_tau1(item: Any) -> bool:
    return isinstance(item, dict) and "task_id" in item and isinstance(item.get("traj"), list)


def _is_tau2_run(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and "task_id" in item
        and "termination_reason" in item
        and ("messages" in item or "ticks" in item)
    )


def _runs(value: Any) -> list[Any] | None:
    if isinstance(value, dict) and isinstance(value.get("simulations"), list):
        return list(value["simulations"])
    if isinstance(value, dict):
        return [value] if (_is_tau1(value) or _is_tau2_run(value)) else None
    return value if isinstance(value, list) else None


def detect(value: Any) -> bool:
    """tau-bench records (`task_id` + `traj`), tau2 results (`simulations`) or simulation
    runs (`task_id` + `termination_reason` + `messages`/`ticks`), alone or in an array."""
    if isinstance(value, dict) and isinstance(value.get("simulations"), list):
        return True
    runs = _runs(value)
    return bool(runs) and any(_is_tau1(r) or _is_tau2_run(r) for r in (runs or [])[:1000])


def convert(value: Any, name_hint: str) -> list[Any]:
    runs = _runs(value)
    if runs is None:
        raise fail("$", "expected tau-bench records, a tau2 results object or simulation runs")
    where = "simulations" if isinstance(value, dict) and "simulations" in value else ""
    traces: list[Any] = []
    for n, raw in enumerate(runs, start=1):
        at = f"{where}[{n - 1}]" if where or isinstance(value, list) else "$"
        run = obj(raw, at)
        b = TraceBuilder(NAME, f"{name_hint}-{n}" if len(runs) > 1 else name_hint)
        if n == 1 and where:
            b.skip("$", "results header (run info and task definitions)")
        if "traj" in run:
            _tau1(b, run, at)
        else:
            _tau2(b, run, at)
        traces.append(b.build())
    return traces


def _labels(b: TraceBuilder, run: dict[str, Any], at: str, reward: Any, run_id: Any) -> None:
    """The run record's labels: `<task_id>-<trial>` (else the tau2 run id) and the reward
    as the benchmark grades it."""
    task, trial = label_text(run.get("task_id")), label_text(run.get("trial"))
    labels: dict[str, Any] = {"task_id": run.get("task_id")}
    labels["trace_id"] = f"{task}-{trial}" if task is not None and trial is not None else run_id
    if reward is not None:
        labels["outcome"] = {"reward": reward}
        if is_number(reward) and _finite(reward):
            labels["outcome"]["success"] = abs(reward - 1) <= REWARD_TOLERANCE
    b.labels(labels, at)
    b.mark(at)


def _finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer beyond the float range
        return False


def _tau1(b: TraceBuilder, run: dict[str, Any], at: str) -> None:
    _labels(b, run, at, run.get("reward"), None)
    info = opt_obj(run, "info", at) or {}
    b.metadata["tau_bench"] = {k: v for k, v in info.items() if k not in ("error", "traceback")}
    if "error" in info:
        b.note(f"{at}.info.error", "the run failed before it finished", info.get("error"))
    for index, raw in enumerate(arr(run.get("traj"), f"{at}.traj")):
        where = f"{at}.traj[{index}]"
        _chat_message(b, obj(raw, where), where)


def _chat_message(b: TraceBuilder, m: dict[str, Any], at: str) -> None:
    role = m.get("role")
    if role in ("system", "user", "developer"):
        content = m.get("content")
        text = content_text(content, f"{at}.content", b, what="message content")
        observed = text is not None and text.startswith(_REACT_OUTPUT) and role == "user"
        if observed and text is not None and b.is_open(None):  # a ReAct agent's observation
            output = text[len(_REACT_OUTPUT) :]
            b.result(None, output, at, **_status(output))
            return
        if text is not None or content is None:
            b.input(str(role), text or "", at)
    elif role == "assistant":
        _assistant(b, m, at)
        b.end_turn()
    elif role == "tool":
        content = m.get("content")
        call_id = opt_str(m, "tool_call_id", at) or None
        b.result(call_id, content, at, name=opt_str(m, "name", at), **_status(content))
    else:
        b.note(at, "message with an unknown role", m)


def _status(output: Any) -> dict[str, Any]:
    if isinstance(output, str):
        failed = output.startswith(_FAILURE_PREFIXES)
        return {"is_error": failed, "error": output if failed else None}
    return {}


def _assistant(b: TraceBuilder, m: dict[str, Any], at: str) -> None:
    before = (b.mapped, len(b.notes))
    reasoning = m.get("reasoning_content")
    if isinstance(reasoning, str) and reasoning:
        b.reasoning(reasoning, f"{at}.reasoning_content")
    calls = opt_list(m, "tool_calls", at)
    text = content_text(m.get("content"), f"{at}.content", b, what="assistant content")
    if not calls and text is not None and _REACT_ACTION in text and _react(b, text, at):
        return
    if text:
        b.text(text, at)
    for index, raw in enumerate(calls):
        where = f"{at}.tool_calls[{index}]"
        call = obj(raw, where)
        function = opt_obj(call, "function", where) or {}
        name = opt_str(function, "name", f"{where}.function")
        arguments = function.get("arguments")
        b.call(opt_str(call, "id", where) or None, name, arguments, f"{where}.function.arguments")
    if (b.mapped, len(b.notes)) == before:
        b.skip(at, _NO_CONTENT)


def _react(b: TraceBuilder, text: str, at: str) -> bool:
    """A ReAct/Act agent's turn ("Thought: ...\\nAction: {json}"), parsed as the agent
    itself parses it; False when the action is not a JSON object with a name."""
    head, _, action_text = text.rpartition(_REACT_ACTION)
    try:
        action = decode_json(action_text.strip())
    except InputError:
        return False
    if not (isinstance(action, dict) and isinstance(action.get("name"), str)):
        return False
    thought = head.strip().removeprefix("Thought:").strip() or None
    arguments = action.get("arguments")
    if action["name"] == _RESPOND:
        reply = arguments.get("content") if isinstance(arguments, dict) else None
        b.text(reply if isinstance(reply, str) else json.dumps(arguments), at, thought=thought)
        return True
    if thought:
        b.text(thought, at, react="thought")
    raw = arguments if isinstance(arguments, dict) else json.dumps(arguments)
    b.call(None, action["name"], raw, at)
    return True


def _tau2(b: TraceBuilder, run: dict[str, Any], at: str) -> None:
    reward_info = opt_obj(run, "reward_info", at)
    reward = run.get("reward") if reward_info is None else reward_info.get("reward")
    _labels(b, run, at, reward, opt_str(run, "id", at))
    keep = ("id", "termination_reason", "agent_cost", "user_cost", "duration", "seed", "mode")
    b.metadata["tau2_bench"] = {k: run[k] for k in keep if run.get(k) is not None}
    if reward_info is not None:
        b.metadata["tau2_bench"]["reward_info"] = reward_info
    messages = run.get("messages")
    if messages is None and run.get("ticks") is not None:
        ticks = run.get("ticks")
        b.note(
            f"{at}.ticks",
            "full-duplex (voice) simulation ticks are not mapped",
            len(ticks) if isinstance(ticks, list) else ticks,
        )
        return
    for index, raw in enumerate(arr(messages, f"{at}.messages")):
        where = f"{at}.messages[{index}]"
        m = obj(raw, where)
        if isinstance(m.get("tool_messages"), list):
            for sub, tool in enumerate(m["tool_messages"]):
                here = f"{where}.tool_messages[{sub}]"
                _tau2_tool(b, obj(tool, here), here)
        else:
            _tau2_message(b, m, where)


def _tau2_message(b: TraceBuilder, m: dict[str, Any], at: str) -> None:
    role = m.get("role")
    if role == "tool":
        _tau2_tool(b, m, at)
        return
    if role not in ("system", "user", "assistant"):
        b.note(at, "message with an unknown role", m)
        return
    content = m.get("content")
    readable = content is None or isinstance(content, str)
    if not readable:
        b.note(f"{at}.content", "message content that is not text", content)
        content = None
    calls = opt_list(m, "tool_calls", at)
    if role != "assistant":
        if readable and (content is not None or not calls):
            b.input(str(role), content or "", at)
        for index, call in enumerate(calls):
            where = f"{at}.tool_calls[{index}]"
            b.note(where, "tool call made by the simulated user, not the agent", call)
        return
    _tau2_assistant(b, m, content, calls, at)
    b.end_turn()


def _tau2_assistant(
    b: TraceBuilder, m: dict[str, Any], content: str | None, calls: list[Any], at: str
) -> None:
    start, before = len(b.steps), b.mapped
    if content:
        seconds = opt_amount(m, "generation_time_seconds", at)
        index = b.text(content, at)
        if seconds is not None:
            b.measure(index, latency_ms=seconds * 1000)
    for index, raw in enumerate(calls):
        where = f"{at}.tool_calls[{index}]"
        call = obj(raw, where)
        call_id = opt_str(call, "id", where) or None
        name = opt_str(call, "name", where)
        b.call(call_id, name, call.get("arguments"), f"{where}.arguments")
    usage = opt_obj(m, "usage", at)
    cost = opt_amount(m, "cost", at)
    prompt = opt_count(usage, "prompt_tokens", f"{at}.usage")
    completion = opt_count(usage, "completion_tokens", f"{at}.usage")
    if b.mapped == before and prompt is None and completion is None and cost is None:
        b.skip(at, _NO_CONTENT)
    b.tokens(start, prompt, completion, at, cost_usd=cost)


def _tau2_tool(b: TraceBuilder, m: dict[str, Any], at: str) -> None:
    if m.get("requestor") == "user":
        b.note(at, "tool result for the simulated user, not the agent", m)
        return
    error = m.get("error")
    b.result(
        opt_str(m, "id", at) or None,
        m.get("content"),
        at,
        is_error=error if isinstance(error, bool) else None,
    )


ADAPTER = Adapter(
    name=NAME,
    description="tau-bench result files and tau2-bench simulation results (one trace per run)",
    detect=detect,
    convert=convert,
)
