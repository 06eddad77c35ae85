"""Fixtures in the file formats benchmarks write: tau-bench / tau2-bench results and
SWE-agent / mini-swe-agent trajectories, written to their published shapes."""

from __future__ import annotations

import json
from typing import Any

WIKI = "# Retail agent policy\nAuthenticate the user before any change."


def _call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "function": {"arguments": json.dumps(args), "name": name},
        "id": call_id,
        "type": "function",
    }


def _assistant(content: str | None, *calls: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"content": content, "role": "assistant"}
    if calls:
        message["tool_calls"] = list(calls)
    message["function_call"] = None  # litellm's dump keeps the legacy field
    return message


def _tool(call_id: str | None, name: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "name": name, "content": content}


def _info(reward: float, actions: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "task": {
            "user_id": "yusuf_rossi_9620",
            "actions": actions,
            "instruction": "You are Yusuf Rossi. Return the cleaner from order #W2378156.",
            "outputs": [],
        },
        "source": "user",
        "user_cost": 0.0041,
        "reward_info": {
            "reward": reward,
            "info": {"r_actions": reward, "gt_data_hash": "7c1f"},
            "actions": actions,
        },
    }


RETURN = {"order_id": "#W2378156", "item_ids": ["1151293680"], "payment_method_id": "cc_1"}


def tau_results() -> list[dict[str, Any]]:
    ok = [
        {"role": "system", "content": WIKI},
        {"role": "user", "content": "Hi, I want to return a cleaner I bought."},
        _assistant("Sure. Could you give me your email so I can find your account?"),
        {"role": "user", "content": "It is yusuf.rossi7301@example.com."},
        _assistant(
            None,
            _call("call_k1", "find_user_id_by_email", {"email": "yusuf.rossi7301@example.com"}),
        ),
        _tool("call_k1", "find_user_id_by_email", "yusuf_rossi_9620"),
        _assistant(None, _call("call_k2", "get_order_details", {"order_id": "#W2378156"})),
        _tool("call_k2", "get_order_details", '{"order_id": "#W2378156", "status": "delivered"}'),
        _assistant(None, _call("call_k3", "return_delivered_order_items", RETURN)),
        _tool(
            "call_k3",
            "return_delivered_order_items",
            '{"order_id": "#W2378156", "status": "return requested"}',
        ),
        _assistant("The return is requested; the refund goes to your card."),
        {"role": "user", "content": "###STOP###"},
    ]
    failed = [
        *ok[:4],
        _assistant(
            None, _call("call_m1", "find_user_id_by_email", {"email": "yusuf.rossi@example.com"})
        ),
        _tool("call_m1", "find_user_id_by_email", "Error: user not found"),
        _assistant("I could not find that account. Is there another email?"),
        {"role": "user", "content": "###STOP###"},
    ]
    expected = [{"name": "return_delivered_order_items", "kwargs": RETURN}]
    return [
        {"task_id": 7, "reward": 1.0, "info": _info(1.0, expected), "traj": ok, "trial": 0},
        {"task_id": 7, "reward": 0.0, "info": _info(0.0, expected), "traj": failed, "trial": 1},
    ]


def tau_failures() -> list[dict[str, Any]]:
    """Id-less calls (`id: ""`, `tool_call_id: null`), text failures, an unknown tool,
    reasoning content and a run that crashed before its first message."""
    traj = [
        {"role": "system", "content": WIKI},
        {"role": "user", "content": "Cancel my pending order #W4817420 please."},
        {
            **_assistant(None, _call("", "get_order_details", {"order_id": "#W4817420"})),
            "reasoning_content": "Look the order up first.",
        },
        _tool(None, "get_order_details", '{"status": "pending"}'),
        _assistant(
            None,
            _call(
                "", "cancel_pending_order", {"order_id": "#W4817420", "reason": "no longer needed"}
            ),
        ),
        _tool(None, "cancel_pending_order", "Error: payment method not found"),
        _assistant(None, _call("", "cancel_everything", {})),
        _tool(None, "cancel_everything", "Unknown action cancel_everything"),
        _assistant("I am sorry, I could not cancel the order."),
        {"role": "user", "content": "###STOP###"},
    ]
    crashed = {
        "task_id": 12,
        "reward": 0.0,
        "info": {"error": "litellm.RateLimitError: rate limited", "traceback": "Traceback ..."},
        "traj": [],
        "trial": 0,
    }
    return [
        {"task_id": 11, "reward": 0.0, "info": _info(0.0, []), "traj": traj, "trial": 0},
        crashed,
    ]


def tau_react() -> list[dict[str, Any]]:
    """The ReAct strategy: actions are JSON in the text, results come back as user text."""
    action = {"name": "get_user_details", "arguments": {"user_id": "mia_li_3668"}}
    reply = {"name": "respond", "arguments": {"content": "You have two certificates."}}
    traj = [
        {"role": "system", "content": WIKI + "\n#Available tools\n[]"},
        {"role": "user", "content": "Which certificates do I have? I am mia_li_3668."},
        {
            "role": "assistant",
            "content": "Thought:\nI should look the user up.\nAction:\n" + json.dumps(action),
        },
        {
            "role": "user",
            "content": 'API output: {"certificates": ["certificate_7504069", "certificate_4856383"]}',
        },
        {
            "role": "assistant",
            "content": "Thought:\nI can answer now.\nAction:\n" + json.dumps(reply),
        },
        {"role": "user", "content": "###STOP###"},
    ]
    return [{"task_id": 3, "reward": 1.0, "info": _info(1.0, []), "traj": traj, "trial": 2}]


def _tau2_assistant(
    content: str | None, calls: list[dict[str, Any]], usage: tuple[int, int], cost: float
) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": calls or None,
        "turn_idx": None,
        "timestamp": "2026-03-02T10:00:01.000000",
        "cost": cost,
        "usage": {"completion_tokens": usage[1], "prompt_tokens": usage[0]},
        "raw_data": None,
        "generation_time_seconds": 1.25,
    }


def _tau2_tool(
    call_id: str, content: str, error: bool = False, requestor: str = "assistant"
) -> dict[str, Any]:
    return {
        "id": call_id,
        "role": "tool",
        "content": content,
        "requestor": requestor,
        "error": error,
        "turn_idx": None,
        "timestamp": "2026-03-02T10:00:02.000000",
    }


def _run(task: str, trial: int, reward: float, messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": f"8f1d0c2e-5b7a-4c1e-9a3f-{trial:012d}",
        "task_id": task,
        "timestamp": "2026-03-02T10:01:00.000000",
        "start_time": "2026-03-02T10:00:00.000000",
        "end_time": "2026-03-02T10:01:00.000000",
        "duration": 60.0,
        "termination_reason": "user_stop",
        "agent_cost": 0.0125,
        "user_cost": 0.002,
        "reward_info": {
            "reward": reward,
            "db_check": {"db_match": reward == 1.0, "db_reward": reward},
            "reward_basis": ["DB"],
        },
        "messages": messages,
        "trial": trial,
        "seed": 300,
        "mode": "half_duplex",
    }


def tau2_results() -> dict[str, Any]:
    """tau2 `Results`: parallel calls answered by a MultiToolMessage, a failed call
    (`error: true`), an id-less call, and the simulated user's own tool calls (telecom)."""
    lookup = {
        "id": "call_a1",
        "name": "get_user_details",
        "arguments": {"user_id": "raj_sanchez_7340"},
        "requestor": "assistant",
    }
    res = {
        "id": "call_a2",
        "name": "get_reservation_details",
        "arguments": {"reservation_id": "Q69X3R"},
        "requestor": "assistant",
    }
    first = [
        {
            "role": "system",
            "content": "# Airline policy",
            "turn_idx": None,
            "timestamp": "2026-03-02T10:00:00.000000",
        },
        {"role": "user", "content": "Hi, please cancel reservation Q69X3R.", "tool_calls": None},
        _tau2_assistant(None, [lookup, res], (1830, 64), 0.0051),
        {
            "role": "tool",
            "tool_messages": [
                _tau2_tool("call_a1", '{"name": "Raj Sanchez"}'),
                _tau2_tool("call_a2", "Error: Reservation Q69X3R not found", True),
            ],
        },
        _tau2_assistant("I could not find that reservation.", [], (1950, 20), 0.0049),
    ]
    check = {"id": "", "name": "check_status_bar", "arguments": {}, "requestor": "user"}
    toggle = {"id": "", "name": "toggle_airplane_mode", "arguments": {}, "requestor": "assistant"}
    second = [
        {"role": "user", "content": "My phone has no signal.", "tool_calls": None},
        _tau2_assistant("Let me check your line.", [toggle], (900, 30), 0.002),
        _tau2_tool("", "Airplane mode is now OFF."),
        {"role": "user", "content": None, "tool_calls": [check]},
        _tau2_tool("", "Status bar: 4G, 3 bars", requestor="user"),
        {"role": "user", "content": "It works now, thanks!", "tool_calls": None},
        _tau2_assistant("Glad it works.", [], (990, 8), 0.0015),
    ]
    return {
        "timestamp": "2026-03-02T10:00:00.000000",
        "info": {"git_commit": "a2c0247", "num_trials": 1, "max_steps": 100, "max_errors": 10},
        "tasks": [{"id": "0", "description": {"purpose": "cancel"}}, {"id": "telecom_4"}],
        "simulations": [_run("0", 0, 0.0, first), _run("telecom_4", 0, 1.0, second)],
    }


def tau2_voice() -> dict[str, Any]:
    """A full-duplex (voice) simulation stores ticks, not messages: noted, never guessed."""
    run = _run("40", 0, 1.0, [])
    run["messages"] = None
    run["mode"] = "full_duplex"
    run["ticks"] = [
        {"tick_id": 0, "timestamp": "2026-06-30T11:40:23", "agent_chunk": None, "user_chunk": None}
    ]
    return run


FIXTURES: dict[str, Any] = {
    "tau-bench/results-clean.json": tau_results(),
    "tau-bench/results-failures.json": tau_failures(),
    "tau-bench/react-agent.json": tau_react(),
    "tau-bench/tau2-results.json": tau2_results(),
    "tau-bench/tau2-voice.json": tau2_voice(),
}
