"""The "tau-bench" format: tau-bench result files and tau2-bench simulation results.

One trace per run, named `<task_id>-<trial>`; the reward becomes `outcome`.
tau-bench runs are OpenAI-chat message lists (`traj`); tau2 runs are its own messages.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import InputError
from ..io import decode_json
from ._cli_common import IdlessResults, add_measure, label, opt_amount, reward_outcome, text_of
from ._common import TraceBuilder, arr, fail, obj, opt_count, opt_list, opt_obj, opt_str
from .base import Adapter

NAME = "tau-bench"
# tau-bench's environment reports a failed tool as text: its tools return "Error: ...",
# an exception becomes "Error: <exception>", an unknown tool "Unknown action <name>".
_FAILURE_PREFIXES = ("Error:", "Unknown action ")
_REACT_ACTION = "Action:"
_REACT_OUTPUT = "API output: "
_RESPOND = "respond"


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
        hint = f"{name_hint}-{n}" if len(runs) > 1 else name_hint
        b = TraceBuilder(NAME, hint)
        if "traj" in run:
            _tau1(b, run, at)
        else:
            _tau2(b, run, at)
        if n == 1 and where:
            b.skip("$", "results header (run info and task definitions)")
        traces.append(b.build())
    return traces


def _labels(b: TraceBuilder, run: dict[str, Any], at: str, run_id: str | None) -> None:
    task = label(run.get("task_id"))
    trial = label(run.get("trial"))
    b.task_id = task
    if task is not None and trial is not None:
        b.trace_id = f"{task}-{trial}"
    elif run_id is not None:
        b.trace_id = run_id
    b.outcome = reward_outcome(run.get("reward"), f"{at}.reward")


def _tau1(b: TraceBuilder, run: dict[str, Any], at: str) -> None:
    _labels(b, run, at, None)
    info = opt_obj(run, "info", at) or {}
    b.metadata["tau_bench"] = {k: v for k, v in info.items() if k not in ("error", "traceback")}
    if "error" in info:
        b.note(f"{at}.info.error", "the run failed before it finished", info.get("error"))
    idless = IdlessResults()
    messages = arr(run.get("traj"), f"{at}.traj")
    for index, raw in enumerate(messages):
        where = f"{at}.traj[{index}]"
        _chat_message(b, obj(raw, where), where, idless)


def _chat_message(b: TraceBuilder, m: dict[str, Any], at: str, idless: IdlessResults) -> None:
    role = m.get("role")
    if role in ("system", "user", "developer"):
        text = text_of(m.get("content"))
        if role == "user" and text is not None and text.startswith(_REACT_OUTPUT) and idless:
            output = text[len(_REACT_OUTPUT) :]
            b.result(None, output, at, name=idless.name_for(None, None), **_status(output))
        elif text is not None:
            b.input(role, text, at)
        else:
            b.note(f"{at}.content", "message content that is not text", m.get("content"))
    elif role == "assistant":
        _assistant(b, m, at, idless)
    elif role == "tool":
        call_id = opt_str(m, "tool_call_id", at)
        name = idless.name_for(call_id, opt_str(m, "name", at))
        content = m.get("content")
        b.result(call_id or None, content, at, name=name, **_status(content))
    else:
        b.note(at, "message with an unknown role", m)


def _status(output: Any) -> dict[str, Any]:
    if isinstance(output, str):
        failed = output.startswith(_FAILURE_PREFIXES)
        return {"is_error": failed, "error": output if failed else None}
    return {}


def _assistant(b: TraceBuilder, m: dict[str, Any], at: str, idless: IdlessResults) -> None:
    meta = {"reasoning": m.get("reasoning_content") or None}
    calls = opt_list(m, "tool_calls", at)
    text = text_of(m.get("content"))
    if not calls and text is not None and _REACT_ACTION in text and _react(b, text, at, idless):
        return
    if text:
        b.text(text, at, **meta)
        meta = {}
    elif m.get("content") is not None and text is None:
        b.note(f"{at}.content", "assistant content that is not text", m.get("content"))
    for index, raw in enumerate(calls):
        where = f"{at}.tool_calls[{index}]"
        call = obj(raw, where)
        function = opt_obj(call, "function", where) or {}
        name = opt_str(function, "name", f"{where}.function")
        call_id = opt_str(call, "id", where)
        b.call(
            call_id or None, name, function.get("arguments"), f"{where}.function.arguments", **meta
        )
        idless.called(call_id, name)
        meta = {}
    if meta.get("reasoning") and not calls and not text:
        b.text(None, at, **meta)


def _react(b: TraceBuilder, text: str, at: str, idless: IdlessResults) -> bool:
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
    idless.called(None, action["name"])
    return True


def _tau2(b: TraceBuilder, run: dict[str, Any], at: str) -> None:
    _labels(b, run, at, opt_str(run, "id", at))
    reward_info = opt_obj(run, "reward_info", at)
    if reward_info is not None:
        b.outcome = reward_outcome(reward_info.get("reward"), f"{at}.reward_info.reward")
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
    idless = IdlessResults()
    for index, raw in enumerate(arr(messages, f"{at}.messages")):
        where = f"{at}.messages[{index}]"
        m = obj(raw, where)
        if isinstance(m.get("tool_messages"), list):
            for sub, tool in enumerate(m["tool_messages"]):
                _tau2_tool(
                    b,
                    obj(tool, f"{where}.tool_messages[{sub}]"),
                    f"{where}.tool_messages[{sub}]",
                    idless,
                )
        else:
            _tau2_message(b, m, where, idless)


def _tau2_message(b: TraceBuilder, m: dict[str, Any], at: str, idless: IdlessResults) -> None:
    role = m.get("role")
    if role == "tool":
        _tau2_tool(b, m, at, idless)
        return
    if role not in ("system", "user", "assistant"):
        b.note(at, "message with an unknown role", m)
        return
    content = m.get("content")
    if content is not None and not isinstance(content, str):
        b.note(f"{at}.content", "message content that is not text", content)
        content = None
    calls = opt_list(m, "tool_calls", at)
    if role != "assistant":
        if content:
            b.input(role, content, at)
        for index, call in enumerate(calls):
            b.note(
                f"{at}.tool_calls[{index}]",
                "tool call made by the simulated user, not the agent",
                call,
            )
        return
    start = len(b.steps)
    if content:
        text_at = b.text(content, at)
        seconds = opt_amount(m, "generation_time_seconds", at)
        add_measure(b, text_at, "latency_ms", None if seconds is None else seconds * 1000)
    for index, raw in enumerate(calls):
        where = f"{at}.tool_calls[{index}]"
        call = obj(raw, where)
        call_id = opt_str(call, "id", where)
        name = opt_str(call, "name", where)
        b.call(call_id or None, name, call.get("arguments"), f"{where}.arguments")
        idless.called(call_id, name)
    usage = opt_obj(m, "usage", at)
    b.tokens(
        start,
        opt_count(usage, "prompt_tokens", f"{at}.usage"),
        opt_count(usage, "completion_tokens", f"{at}.usage"),
        at,
    )
    add_measure(b, start, "cost_usd", opt_amount(m, "cost", at))


def _tau2_tool(b: TraceBuilder, m: dict[str, Any], at: str, idless: IdlessResults) -> None:
    if m.get("requestor") == "user":
        b.note(at, "tool result for the simulated user, not the agent", m)
        return
    call_id = opt_str(m, "id", at)
    error = m.get("error")
    b.result(
        call_id or None,
        m.get("content"),
        at,
        name=idless.name_for(call_id, None),
        is_error=error if isinstance(error, bool) else None,
    )


ADAPTER = Adapter(
    name=NAME,
    description="tau-bench result files and tau2-bench simulation results (one trace per run)",
    detect=detect,
    convert=convert,
)
