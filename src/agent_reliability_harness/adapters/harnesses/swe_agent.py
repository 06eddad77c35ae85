"""The "swe-agent" format: SWE-agent `.traj` files (mini-swe-agent trajectories: swe_agent_mini).

The `trajectory` is the record of what ran (thought, action, observation,
execution_time); `history` supplies the structured tool calls and the inputs.
"""

from __future__ import annotations

import re
from typing import Any

from ..core.base import Adapter
from ..core.common import (
    TraceBuilder,
    content_text,
    fail,
    obj,
    opt_amount,
    opt_count,
    opt_list,
    opt_obj,
    opt_str,
)
from .swe_agent_mini import convert_mini, is_mini

NAME = "swe-agent"
_NOT_EXECUTED = (
    "the action was not executed: SWE-agent rejected it (format error, blocked command or "
    "shell syntax error) and asked the model again"
)
# Failures SWE-agent's tools and environment write only as text: the lint-gated `edit`
# (tools/windowed_edit_linting/bin/edit; 0.x config/commands/edit_linting.sh) reverts an
# edit that introduces syntax errors and exits 1; swe_env.py interrupts a command past
# its timeout (or that produced no output for too long), or restarts a shell it failed.
_TEXT_FAILURES = (
    (
        re.compile(r"^Your changes have NOT been applied\. ", re.MULTILINE),
        "edit not applied: it introduced new syntax errors (SWE-agent's lint check)",
    ),
    (
        re.compile(r"^EXECUTION TIMED OUT", re.MULTILINE),
        "timed out: SWE-agent interrupted the command",
    ),
    (
        re.compile(r"^COMMAND FAILED TO EXECUTE\. RESTARTING PROCESS\.", re.MULTILINE),
        "SWE-agent could not run the command and restarted its shell",
    ),
)
_REPEATED_ACTION = "history turn of a trajectory step (the same action)"
_REPEATED_OBSERVATION = "history observation of a trajectory step (the trajectory holds it)"
_RUN_TOTAL = "run total (info.model_stats)"

History = list[tuple[str, dict[str, Any]]]


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


def _bare_messages(value: Any) -> bool:
    """A mini-swe-agent message list saved without its envelope (early versions, its test
    data): read only when `--format swe-agent` says so (it looks like any chat), and only
    with mini-swe-agent's own observations (`<returncode>` messages, `extra` records)."""
    if not isinstance(value, list) or not value:
        return False
    items = value[:1000]
    if not all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in items):
        return False
    return any(
        isinstance(m.get("extra"), dict)
        or (m["role"] == "user" and str(m.get("content")).lstrip().startswith("<returncode>"))
        for m in items
    )


def convert(value: Any, name_hint: str) -> list[Any]:
    if is_mini(value):
        return [convert_mini(value, name_hint, NAME)]
    if _bare_messages(value):
        return [convert_mini({"messages": value}, name_hint, NAME)]
    if not _is_swe(value):
        raise fail("$", "expected a SWE-agent trajectory (trajectory, history, info)")
    b = TraceBuilder(NAME, name_hint, agent_name="swe-agent")
    info = opt_obj(value, "info", "$") or {}
    _labels(b, value, info)
    turns = _history(b, opt_list(value, "history", "$"))
    trajectory = opt_list(value, "trajectory", "$")
    if trajectory:
        _trajectory(b, trajectory, turns, info)
    else:
        for at, message in turns:
            _history_turn(b, message, at)
    _run_totals(b, info)
    return [b.build()]


def _labels(b: TraceBuilder, value: dict[str, Any], info: dict[str, Any]) -> None:
    config = value.get("replay_config")
    if isinstance(config, dict):
        statement = config.get("problem_statement")
        if isinstance(statement, dict) and "id" in statement:
            b.labels({"task_id": statement.get("id")}, "replay_config.problem_statement")
        agent = config.get("agent")
        model = agent.get("model") if isinstance(agent, dict) else None
        if isinstance(model, dict) and isinstance(model.get("name"), str):
            b.metadata["model"] = model["name"]
        b.mark("replay_config")
    for key in ("exit_status", "submission", "swe_agent_version"):
        if info.get(key) is not None:
            b.metadata[key] = info[key]
    if info:
        b.mark("info")


def _history(b: TraceBuilder, history: list[Any]) -> History:
    """Record the inputs (messages before the first action) and return the agent's
    turns and the observations answering them, in order."""
    turns: History = []
    for index, raw in enumerate(history):
        at = f"history[{index}]"
        message = obj(raw, at)
        role = message.get("role")
        if message.get("is_demo"):
            b.skip(at, "demonstration (an in-context example, not this run)")
        elif role == "assistant" or (turns and role in ("user", "tool")):
            turns.append((at, message))
        elif role in ("system", "user"):
            text = content_text(message.get("content"), f"{at}.content", b, "\n")
            b.input(str(role), text or "", at)
        else:
            b.note(at, "message with an unknown role", message)
    return turns


def _trajectory(
    b: TraceBuilder, trajectory: list[Any], turns: History, info: dict[str, Any]
) -> None:
    actions = [(at, m) for at, m in turns if m.get("role") == "assistant"]
    for at, message in turns:
        if message.get("role") != "assistant":
            b.skip(at, _REPEATED_OBSERVATION)
    have_history = bool(actions)
    pointer = 0
    last = len(trajectory) - 1
    for index, raw in enumerate(trajectory):
        at = f"trajectory[{index}]"
        step = obj(raw, at)
        action = opt_str(step, "action", at) or ""
        turn = None
        if pointer < len(actions) and (actions[pointer][1].get("action") or "") == action:
            b.skip(actions[pointer][0], _REPEATED_ACTION)
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
    thought = _said(opt_str(step, "thought", at))
    action = (opt_str(step, "action", at) or "").strip()
    if thought:
        b.text(thought, at)
    if not action:
        if not thought:
            b.note(at, "trajectory step with neither thought nor action", step)
        return
    index, native, name = _call(b, turn, action, at)
    seconds = opt_amount(step, "execution_time", at)
    if seconds is not None:
        b.measure(index, latency_ms=seconds * 1000)
    observation = step.get("observation")
    output = observation if observation not in (None, "") or executed else None
    if executed:
        _settle(b, native, output, at, name)
    else:
        b.result(native, output, at, name=name, is_error=True, error=_NOT_EXECUTED)


def _settle(b: TraceBuilder, native: str | None, output: Any, at: str, name: str | None) -> None:
    """The result of an executed action, `status: error` when its text says it failed."""
    failure = _text_failure(output)
    if failure is None:
        b.result(native, output, at, name=name)
    else:
        b.result(native, output, at, name=name, is_error=True, error=failure)


def _text_failure(observation: Any) -> str | None:
    """The failure an observation writes only as text (SWE-agent records no exit code):
    the lint-gated `edit` reverting an edit that adds syntax errors, a command the
    environment interrupted past its timeout or could not run. None: no such failure."""
    if not isinstance(observation, str):
        return None
    for pattern, error in _TEXT_FAILURES:
        if pattern.search(observation):
            return error
    return None


def _said(text: str | None) -> str | None:
    """A thought as the model wrote it; blank text (a lone newline) is no thought, as blank
    arguments are no arguments and a blank action no action."""
    return text if text and text.strip() else None


def _call(
    b: TraceBuilder, turn: dict[str, Any] | None, action: str, at: str
) -> tuple[int, str | None, str | None]:
    """The tool call of one action (its step index, native id and tool name): the function
    call of its history turn where the model used tool calling, else the command SWE-agent
    dispatches (the action's first word)."""
    calls = opt_list(turn, "tool_calls", at) if turn is not None else []
    for index, raw in enumerate(calls[1:], start=1):
        where = f"{at}(history).tool_calls[{index}]"
        b.note(where, "further tool call of one action (SWE-agent runs the first)", raw)
    if not calls:
        command = action.split(maxsplit=1)[0]
        return b.call(None, command, {"command": action}, at), None, command
    where = f"{at}(history).tool_calls[0]"
    call = obj(calls[0], where)
    function = opt_obj(call, "function", where) or {}
    call_id = opt_str(call, "id", where) or None
    name = opt_str(function, "name", where)
    args = function.get("arguments")
    index = b.call(call_id, name, args, f"{where}.function.arguments", action=action)
    return index, call_id, name


def _history_turn(b: TraceBuilder, message: dict[str, Any], at: str) -> None:
    """A history-only file (no trajectory): assistant turns and the observations after them."""
    if message.get("role") == "assistant":
        thought = _said(opt_str(message, "thought", at))
        if not thought:
            thought = _said(content_text(message.get("content"), f"{at}.content", b))
        action = (opt_str(message, "action", at) or "").strip()
        if thought:
            b.text(thought, at)
        if action:
            _call(b, message, action, at)
        elif not thought:
            b.note(at, "history turn with neither thought nor action", message)
        return
    ids: list[str | None] = []
    for index, call_id in enumerate(opt_list(message, "tool_call_ids", at)):
        if isinstance(call_id, str) and call_id:
            ids.append(call_id)
        else:
            b.note(f"{at}.tool_call_ids[{index}]", "call id that is not a string", call_id)
    content = message.get("content")
    output = (
        content_text(content, f"{at}.content", b, "\n") if isinstance(content, list) else content
    )
    for call_id in ids or [None]:
        _settle(b, call_id, output, at, None)


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
    b.tokens(0, sent, received, where, cost_usd=cost)
    if b.steps and (sent, received, cost) != (None, None, None):
        b.measure(0, usage=_RUN_TOTAL)


ADAPTER = Adapter(
    name=NAME,
    description="SWE-agent .traj trajectories and mini-swe-agent trajectories",
    detect=detect,
    convert=convert,
    suffixes=(".traj",),
    markers=lambda value: detect(value) or _bare_messages(value),
)
