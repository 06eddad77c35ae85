"""The "swe-agent" format: SWE-agent `.traj` files (mini-swe-agent trajectories: swe_agent_mini).

The `trajectory` is the record of what ran (thought, action, observation,
execution_time); `history` supplies the structured tool calls and the inputs.
"""

from __future__ import annotations

from typing import Any

from ._cli_common import add_measure, label, opt_amount, text_of
from ._common import TraceBuilder, fail, obj, opt_count, opt_list, opt_obj, opt_str
from .base import Adapter
from .swe_agent_mini import convert_mini, is_mini

NAME = "swe-agent"
_NOT_EXECUTED = (
    "the action was not executed: SWE-agent rejected it (format error, blocked command or "
    "shell syntax error) and asked the model again"
)


def _is_swe(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if isinstance(value.get("trajectory"), list) and ("history" in value or "info" in value):
        return True
    history = value.get("history")
    return isinstance(history, list) and any(
        isinstance(h, dict) and ("message_type" in h or "agent" in h) for h in history[:50]
    )


def detect(value: Any) -> bool:
    """SWE-agent `.traj` objects (`trajectory` + `history`/`info`, or a `history` of agent
    messages) and mini-swe-agent trajectories (`messages` + `trajectory_format`)."""
    return _is_swe(value) or is_mini(value)


def convert(value: Any, name_hint: str) -> list[Any]:
    if is_mini(value):
        return [convert_mini(value, name_hint, NAME)]
    if not _is_swe(value):
        raise fail("$", "expected a SWE-agent trajectory (trajectory, history, info)")
    b = TraceBuilder(NAME, name_hint, agent_name="swe-agent")
    info = opt_obj(value, "info", "$") or {}
    _labels(b, value, info)
    assistants = _history(b, opt_list(value, "history", "$"))
    trajectory = opt_list(value, "trajectory", "$")
    if trajectory:
        _trajectory(b, trajectory, assistants, info)
    else:
        for at, message in assistants:
            _history_turn(b, message, at)
    _run_totals(b, info)
    return [b.build()]


def _labels(b: TraceBuilder, value: dict[str, Any], info: dict[str, Any]) -> None:
    config = value.get("replay_config")
    if isinstance(config, dict):
        statement = config.get("problem_statement")
        if isinstance(statement, dict):
            b.task_id = label(statement.get("id"))
        agent = config.get("agent")
        model = agent.get("model") if isinstance(agent, dict) else None
        if isinstance(model, dict) and isinstance(model.get("name"), str):
            b.metadata["model"] = model["name"]
    for key in ("exit_status", "submission", "swe_agent_version"):
        if info.get(key) is not None:
            b.metadata[key] = info[key]


def _history(b: TraceBuilder, history: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    """Record the inputs (messages before the first action) and return the agent's
    turns and the observations answering them, in order."""
    turns: list[tuple[str, dict[str, Any]]] = []
    for index, raw in enumerate(history):
        at = f"history[{index}]"
        message = obj(raw, at)
        role = message.get("role")
        if message.get("is_demo"):
            b.skip(at, "demonstration (an in-context example, not this run)")
        elif role == "assistant" or (turns and role in ("user", "tool")):
            turns.append((at, message))
        elif role in ("system", "user"):
            text = text_of(message.get("content"))
            if text is None:
                b.note(f"{at}.content", "message content that is not text", message.get("content"))
            else:
                b.input(role, text, at)
        else:
            b.note(at, "message with an unknown role", message)
    return turns


def _trajectory(
    b: TraceBuilder,
    trajectory: list[Any],
    turns: list[tuple[str, dict[str, Any]]],
    info: dict[str, Any],
) -> None:
    actions = [(at, m) for at, m in turns if m.get("role") == "assistant"]
    have_history = bool(actions)
    pointer = 0
    last = len(trajectory) - 1
    for index, raw in enumerate(trajectory):
        at = f"trajectory[{index}]"
        step = obj(raw, at)
        action = opt_str(step, "action", at) or ""
        turn = None
        if pointer < len(actions) and (actions[pointer][1].get("action") or "") == action:
            turn = actions[pointer][1]
            pointer += 1
        if not action.strip() and index == last and _stopped(info):
            keep = {k: step.get(k) for k in ("thought", "observation") if step.get(k)}
            b.note(
                at, f"step SWE-agent wrote when it stopped the run ({info['exit_status']})", keep
            )
            continue
        # Steps SWE-agent rejected before running them are kept out of the history and
        # have no observation; the final submit step is also absent from the history.
        rejected = have_history and turn is None and index != last and not step.get("observation")
        _step(b, step, at, turn, executed=not rejected)
    for at, message in actions[pointer:]:
        b.note(at, "history action with no trajectory step", message)


def _stopped(info: dict[str, Any]) -> bool:
    status = info.get("exit_status")
    return isinstance(status, str) and "exit_" in status


def _step(
    b: TraceBuilder, step: dict[str, Any], at: str, turn: dict[str, Any] | None, executed: bool
) -> None:
    thought = opt_str(step, "thought", at)
    action = (opt_str(step, "action", at) or "").strip()
    if thought:
        b.text(thought, at)
    if not action:
        if not thought:
            b.note(at, "trajectory step with neither thought nor action", step)
        return
    index, native = _call(b, turn, action, at)
    seconds = opt_amount(step, "execution_time", at)
    add_measure(b, index, "latency_ms", None if seconds is None else seconds * 1000)
    observation = step.get("observation")
    output = observation if observation not in (None, "") or executed else None
    named = b.steps[index].get("tool_name")
    if executed:
        b.result(native, output, at, name=named)
    else:
        b.result(native, output, at, name=named, is_error=True, error=_NOT_EXECUTED)


def _call(
    b: TraceBuilder, turn: dict[str, Any] | None, action: str, at: str
) -> tuple[int, str | None]:
    """The tool call of one action: the function call of its history turn where the model
    used tool calling, else the command SWE-agent dispatches (the action's first word)."""
    calls = opt_list(turn, "tool_calls", at) if turn is not None else []
    for index, raw in enumerate(calls[1:], start=1):
        where = f"{at}(history).tool_calls[{index}]"
        b.note(where, "further tool call of one action (SWE-agent runs the first)", raw)
    if not calls:
        return b.call(None, action.split(maxsplit=1)[0], {"command": action}, at), None
    where = f"{at}(history).tool_calls[0]"
    call = obj(calls[0], where)
    function = opt_obj(call, "function", where) or {}
    call_id = opt_str(call, "id", where) or None
    name = opt_str(function, "name", where)
    args = function.get("arguments")
    return b.call(call_id, name, args, f"{where}.function.arguments", action=action), call_id


def _history_turn(b: TraceBuilder, message: dict[str, Any], at: str) -> None:
    """A history-only file (no trajectory): assistant turns and the observations after them."""
    role = message.get("role")
    if role == "assistant":
        thought = opt_str(message, "thought", at) or text_of(message.get("content"))
        action = (opt_str(message, "action", at) or "").strip()
        if thought:
            b.text(thought, at)
        if action:
            _call(b, message, action, at)
        return
    ids: list[str | None] = [
        i for i in opt_list(message, "tool_call_ids", at) if isinstance(i, str)
    ]
    content = message.get("content")
    output = text_of(content, "\n") if text_of(content) is not None else content
    for call_id in ids or [None]:
        b.result(call_id, output, at, name=None if call_id else _last_open_name(b))


def _last_open_name(b: TraceBuilder) -> str | None:
    for step in reversed(b.steps):
        if step["type"] == "tool_call":
            return step.get("tool_name") if "output" not in step else None
    return None


def _run_totals(b: TraceBuilder, info: dict[str, Any]) -> None:
    """SWE-agent records usage and cost per run only (`info.model_stats`): they go on the
    first step, once, so the trace totals equal the run's."""
    stats = opt_obj(info, "model_stats", "info")
    if stats is None:
        return
    where = "info.model_stats"
    sent = opt_count(stats, "tokens_sent", where)
    received = opt_count(stats, "tokens_received", where)
    cost = opt_amount(stats, "instance_cost", where)
    if sent is None and received is None and cost is None:
        return
    if not b.steps:
        b.text(None, where)
    b.tokens(0, sent, received, where)
    add_measure(b, 0, "cost_usd", cost)
    b.steps[0].setdefault("metadata", {})["usage"] = "run total (info.model_stats)"


ADAPTER = Adapter(
    name=NAME,
    description="SWE-agent .traj trajectories and mini-swe-agent trajectories",
    detect=detect,
    convert=convert,
    suffixes=(".traj",),
)
