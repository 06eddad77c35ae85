"""Fixtures in SWE-agent's `.traj` shapes (1.x function calling, 0.x thought/action,
history-only demonstrations) and mini-swe-agent's trajectories (tool calls, text mode)."""

from __future__ import annotations

import json
from typing import Any

ISSUE = "TimeDelta serialization precision: 345 ms serializes as 344."
SYSTEM = "SETTING: You are an autonomous programmer working in a command line."


def _fc(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "function": {"arguments": json.dumps(args), "name": name},
        "id": call_id,
        "type": "function",
    }


def _step(
    action: str, observation: str, thought: str, seconds: float, **extra: Any
) -> dict[str, Any]:
    return {
        "action": action,
        "observation": observation,
        "response": thought,
        "thought": thought,
        "execution_time": seconds,
        "state": {"open_file": "/testbed/reproduce.py", "working_dir": "/testbed"},
        **extra,
    }


def _fc_turns() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """History and trajectory of three function-calling turns."""
    turns = [
        (
            "create reproduce.py",
            "create",
            {"filename": "reproduce.py"},
            "[File: reproduce.py (1 lines total)]",
            0.24,
        ),
        ("python reproduce.py", "bash", {"command": "python reproduce.py"}, "344", 0.33),
        (
            "str_replace fields.py",
            "str_replace_editor",
            {"command": "str_replace", "path": "fields.py"},
            "The file fields.py has been edited.",
            0.41,
        ),
    ]
    history: list[dict[str, Any]] = [
        {"message_type": "system_prompt", "role": "system", "content": SYSTEM, "agent": "main"},
        {"message_type": "observation", "role": "user", "content": ISSUE, "agent": "main"},
    ]
    trajectory = []
    for n, (action, name, args, observation, seconds) in enumerate(turns, start=1):
        thought = f"Step {n}: {action.split()[0]}."
        call_id = f"call_swe{n}"
        history.append(
            {
                "message_type": "action",
                "role": "assistant",
                "content": thought,
                "thought": thought,
                "action": action,
                "agent": "main",
                "tool_calls": [_fc(call_id, name, args)],
            }
        )
        history.append(
            {
                "message_type": "observation",
                "role": "tool",
                "content": observation + "\n(Open file: reproduce.py)\nbash-$",
                "agent": "main",
                "tool_call_ids": [call_id],
            }
        )
        trajectory.append(_step(action, observation, thought, seconds))
    return history, trajectory


def function_calling() -> dict[str, Any]:
    """SWE-agent 1.x: tool calls in the history, the final submit only in the trajectory."""
    history, trajectory = _fc_turns()
    trajectory.append(
        _step("submit", "diff --git a/fields.py b/fields.py", "Submitting the fix.", 0.27)
    )
    return {
        "environment": "main",
        "trajectory": trajectory,
        "history": history,
        "info": {
            "submission": "diff --git a/fields.py b/fields.py",
            "exit_status": "submitted",
            "model_stats": {
                "instance_cost": 0.0195,
                "tokens_sent": 7141,
                "tokens_received": 243,
                "api_calls": 4,
            },
            "swe_agent_version": "1.1.0",
        },
        "replay_config": {
            "problem_statement": {
                "text": ISSUE,
                "type": "text",
                "id": "marshmallow-code__marshmallow-1867",
            },
            "agent": {"model": {"name": "gpt-4o", "per_instance_cost_limit": 3.0}},
        },
    }


def thought_action() -> dict[str, Any]:
    """SWE-agent 0.x: a demonstration in the history, a blocked action SWE-agent rejected
    (in the trajectory only), and the step it wrote when the cost limit stopped the run."""
    history = [
        {"role": "system", "content": SYSTEM, "agent": "primary"},
        {
            "role": "user",
            "content": "Here is a demonstration ...",
            "agent": "primary",
            "is_demo": True,
        },
        {"role": "user", "content": ISSUE, "agent": "primary"},
        {
            "role": "assistant",
            "content": "Look at the field.\n```\nopen fields.py 1474\n```",
            "thought": "Look at the field.",
            "action": "open fields.py 1474\n",
            "agent": "primary",
        },
        {
            "role": "user",
            "content": "[File: fields.py (1997 lines total)]\n(Open file: fields.py)",
            "agent": "primary",
        },
        {
            "role": "assistant",
            "content": "Run the tests.\n```\npytest tests/test_fields.py\n```",
            "thought": "Run the tests.",
            "action": "pytest tests/test_fields.py\n",
            "agent": "primary",
        },
        {"role": "user", "content": "1 failed, 41 passed", "agent": "primary"},
    ]
    trajectory = [
        _step(
            "open fields.py 1474\n",
            "[File: fields.py (1997 lines total)]",
            "Look at the field.",
            0.12,
        ),
        _step("vim fields.py\n", "", "Edit it in vim.", 0.0),
        _step("pytest tests/test_fields.py\n", "1 failed, 41 passed", "Run the tests.", 3.5),
        _step("", "Exited (autosubmitted)", "Exit due to cost limit", 0.0),
    ]
    return {
        "environment": "swe_main",
        "trajectory": trajectory,
        "history": history,
        "info": {
            "exit_status": "submitted (exit_cost)",
            "submission": "diff --git a/fields.py b/fields.py",
            "model_stats": {
                "total_cost": 4.2,
                "instance_cost": 2.05,
                "tokens_sent": 201233,
                "tokens_received": 1722,
                "api_calls": 4,
            },
        },
    }


def history_only() -> dict[str, Any]:
    """A demonstration file: only the history, observations paired by `tool_call_ids`."""
    return {
        "history": [
            {"role": "system", "content": SYSTEM, "agent": "main", "message_type": "system_prompt"},
            {"role": "user", "content": ISSUE, "agent": "main", "message_type": "observation"},
            {
                "role": "assistant",
                "content": "Find the file.",
                "thought": "Find the file.",
                "action": "find_file fields.py",
                "agent": "main",
                "message_type": "action",
                "tool_calls": [_fc("call_d1", "find_file", {"file_name": "fields.py"})],
            },
            {
                "role": "tool",
                "content": "Found 1 matches for fields.py",
                "agent": "main",
                "message_type": "observation",
                "tool_call_ids": ["call_d1"],
            },
            {
                "role": "assistant",
                "content": "Submit.",
                "thought": "Submit.",
                "action": "submit",
                "agent": "main",
                "message_type": "action",
                "tool_calls": [_fc("call_d2", "submit", {})],
            },
            {
                "role": "tool",
                "content": "diff --git a/fields.py b/fields.py",
                "agent": "main",
                "message_type": "observation",
                "tool_call_ids": ["call_d2"],
            },
        ]
    }


def _bash(call_id: str, cmd: str) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": "bash", "arguments": json.dumps({"command": cmd})},
    }


def _usage(prompt: int, completion: int) -> dict[str, Any]:
    return {
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
    }


# mini-swe-agent 2.x: bash tool calls, a failing command, a rejected (malformed) turn whose usage lives in the feedback message, and the exit message of the submission.
_MINI_MESSAGES = [
    {
        "role": "system",
        "content": "You are a helpful assistant that can interact with a computer.",
    },
    {"role": "user", "content": "Please solve this issue: " + ISSUE},
    {
        "role": "assistant",
        "content": "List the repository.",
        "tool_calls": [_bash("call_m1", "ls")],
        "extra": {
            "actions": [{"command": "ls", "tool_call_id": "call_m1"}],
            "response": _usage(1200, 40),
            "cost": 0.0031,
            "timestamp": 1706000000.0,
        },
    },
    {
        "role": "tool",
        "tool_call_id": "call_m1",
        "content": '{"returncode": 0, "output": "src\\ntests\\n"}',
        "extra": {"raw_output": "src\ntests\n", "returncode": 0, "timestamp": 1706000001.0},
    },
    {
        "role": "user",
        "content": "No tool calls found in the response. Every response MUST include at least one tool call.",
        "extra": {
            "interrupt_type": "FormatError",
            "cost": 0.0012,
            "response": {
                "choices": [{"message": {"role": "assistant", "content": "I think I am done."}}],
                **_usage(1300, 12),
            },
        },
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [_bash("call_m2", "pytest -x tests"), _bash("call_m3", "git diff")],
        "extra": {"actions": [], "response": _usage(1400, 55), "cost": 0.0035},
    },
    {
        "role": "tool",
        "tool_call_id": "call_m2",
        "content": '{"returncode": 1, "output": "1 failed"}',
        "extra": {"returncode": 1, "raw_output": "1 failed"},
    },
    {
        "role": "tool",
        "tool_call_id": "call_m3",
        "content": '{"returncode": -1, "output": ""}',
        "extra": {"returncode": -1, "exception_info": "action was not executed"},
    },
    {
        "role": "assistant",
        "content": "Submit.",
        "tool_calls": [_bash("call_m4", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")],
        "extra": {"response": _usage(1500, 20), "cost": 0.0032},
    },
    {
        "role": "exit",
        "content": "diff --git a/fields.py b/fields.py",
        "extra": {
            "exit_status": "Submitted",
            "submission": "diff --git a/fields.py b/fields.py",
        },
    },
]
MINI_TOOLCALL = {
    "info": {
        "model_stats": {"instance_cost": 0.011, "api_calls": 4},
        "config": {
            "model": {"model_name": "anthropic/claude-sonnet-4-5-20250929"},
            "agent_type": "minisweagent.agents.default.DefaultAgent",
        },
        "mini_version": "2.0.0",
        "exit_status": "Submitted",
        "submission": "diff --git a/fields.py b/fields.py",
    },
    "messages": _MINI_MESSAGES,
    "trajectory_format": "mini-swe-agent-1.1",
}


def mini_textbased() -> dict[str, Any]:
    """mini-swe-agent 1.x: commands in fenced blocks, `<returncode>` observations, a format
    error (two blocks) answered by feedback, and only a run total for cost."""
    messages = [
        {"role": "system", "content": "Your response must contain exactly ONE bash code block."},
        {"role": "user", "content": "Please solve this issue: " + ISSUE},
        {"role": "assistant", "content": "THOUGHT: look around.\n\n```bash\nls -la\n```"},
        {"role": "user", "content": "<returncode>0</returncode>\n<output>\nsrc\ntests\n</output>"},
        {
            "role": "assistant",
            "content": "THOUGHT: two at once.\n\n```bash\ncat a\n```\n\n```bash\ncat b\n```",
        },
        {
            "role": "user",
            "content": "Please always provide EXACTLY ONE action in triple backticks, found 2 actions.",
        },
        {"role": "assistant", "content": "THOUGHT: read it.\n\n```bash\ncat missing.py\n```"},
        {
            "role": "user",
            "content": "<returncode>1</returncode>\n<output>\ncat: missing.py: No such file or directory\n</output>",
        },
        {
            "role": "assistant",
            "content": "THOUGHT: done.\n\n```bash\necho MINI_SWE_AGENT_FINAL_OUTPUT\n```",
        },
        {"role": "user", "content": ""},
    ]
    return {
        "info": {
            "exit_status": "Submitted",
            "submission": "",
            "model_stats": {"instance_cost": 0.0213, "api_calls": 4},
            "mini_version": "1.9.1",
        },
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1",
    }


def mini_bare() -> list[dict[str, Any]]:
    """An early mini-swe-agent trajectory: the message list alone, no envelope (it looks
    like any plain conversation, so only `--format swe-agent` reads it)."""
    done = "THOUGHT: done.\n\n```mswea_bash_command\ngit diff\n```"
    return [
        *mini_textbased()["messages"][:4],
        {"role": "assistant", "content": done},
        {"role": "user", "content": "<returncode>0</returncode>\n<output>\n</output>"},
    ]


FIXTURES: dict[str, Any] = {
    "swe-agent/function-calling.traj": function_calling(),
    "swe-agent/thought-action.traj": thought_action(),
    "swe-agent/history-only.traj": history_only(),
    "swe-agent/mini-toolcall.traj.json": MINI_TOOLCALL,
    "swe-agent/mini-textbased.traj.json": mini_textbased(),
}
