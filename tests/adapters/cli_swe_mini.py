"""mini-swe-agent trajectories as its SWE-bench runner saves them (`instance_id` next to
`messages`): a 1.x run with a killed command and the submission as its last message, a
1.x run stopped by a limit, and a 2.x run ended by an exception (written to the shapes of
its templates and `save_traj`)."""

from __future__ import annotations

import json
from typing import Any

ISSUE = "Please solve this issue: separability_matrix is wrong for nested CompoundModels."
PATCH = "diff --git a/separable.py b/separable.py\n--- a/separable.py\n+++ b/separable.py\n"
SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"


def _turn(thought: str, command: str) -> dict[str, Any]:
    return {"role": "assistant", "content": f"THOUGHT: {thought}\n\n```bash\n{command}\n```"}


def _seen(code: int, output: str) -> dict[str, Any]:
    return {
        "role": "user",
        "content": f"<returncode>{code}</returncode>\n<output>\n{output}</output>",
    }


def _killed(command: str, output: str) -> dict[str, Any]:
    """mini-swe-agent 1.x's default `timeout_template`."""
    text = (
        f"The last command <command>{command}</command> timed out and has been killed.\n"
        f"The output of the command was:\n <output>\n{output}\n</output>\n"
        "Please try another command and make sure to avoid those requiring interactive input."
    )
    return {"role": "user", "content": text}


def _killed_long(command: str) -> dict[str, Any]:
    """The benchmark config's `timeout_template`, for an output it truncated."""
    text = (
        f"The last command <command>{command}</command> timed out and has been killed.\n"
        "The output of the command was:\n"
        "<warning>Output was too long and has been truncated.</warning>\n"
        "<output_head>\ncollected 2346 items\n</output_head>\n"
        "<elided_chars>12000 characters elided</elided_chars>\n"
        "<output_tail>\n....... [ 87%]\n</output_tail>\n"
        "Please try another command and make sure to avoid those requiring interactive input."
    )
    return {"role": "user", "content": text}


def _info(status: str, submission: str, calls: int, **extra: Any) -> dict[str, Any]:
    return {
        "exit_status": status,
        "submission": submission,
        "model_stats": {"instance_cost": 0.0042, "api_calls": calls},
        "mini_version": "1.15.0",
        **extra,
    }


def v1_swebench() -> dict[str, Any]:
    """1.x: a command killed on timeout (no `<returncode>`), the observations after it, and
    the submission (the submit command's output) as the last user message."""
    messages = [
        {
            "role": "system",
            "content": "You are a helpful assistant that can interact with a computer.",
        },
        {"role": "user", "content": ISSUE},
        _turn("run the tests.", "pytest tests/test_separable.py"),
        _killed("pytest tests/test_separable.py", "collected 12 items\n"),
        _turn("list the package.", "ls astropy/modeling"),
        _seen(0, "separable.py\n"),
        _turn("read a missing file.", "cat missing.py"),
        _seen(1, "cat: missing.py: No such file or directory\n"),
        _turn("submit.", SUBMIT),
        {"role": "user", "content": PATCH},
    ]
    return {
        "info": _info("Submitted", PATCH, 4),
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1",
        "instance_id": "astropy__astropy-12907",
    }


def v1_limits() -> dict[str, Any]:
    """1.x stopped by its step limit: a command killed on timeout (the benchmark template,
    output truncated), then the empty message of `LimitsExceeded`."""
    messages = [
        {
            "role": "system",
            "content": "You are a helpful assistant that can interact with a computer.",
        },
        {"role": "user", "content": ISSUE},
        _turn("run every test.", "pytest"),
        _killed_long("pytest"),
        _turn("list the package.", "ls astropy/modeling"),
        _seen(0, "separable.py\n"),
        {"role": "user", "content": ""},
    ]
    return {
        "info": _info("LimitsExceeded", "", 2),
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1",
        "instance_id": "astropy__astropy-13033",
    }


EXCEPTION = "litellm.InternalServerError: DeepseekException - [SSL: UNEXPECTED_EOF_WHILE_READING]"
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "minisweagent/models/litellm_model.py", line 65, in _query\n'
    "litellm.exceptions.InternalServerError: " + EXCEPTION + "\n"
)


def v2_exception() -> dict[str, Any]:
    """2.x ended by an exception of the model query: the `exit` message answers no command
    and holds the exception (its text, `exception_str`, `traceback`), as `info` does."""
    call = {
        "id": "call_x1",
        "type": "function",
        "function": {"name": "bash", "arguments": json.dumps({"command": "ls"})},
    }
    stopped = {"exit_status": "InternalServerError", "submission": ""}
    crash = {"exception_str": EXCEPTION, "traceback": TRACEBACK}
    messages = [
        {
            "role": "system",
            "content": "You are a helpful assistant that can interact with a computer.",
        },
        {"role": "user", "content": ISSUE},
        {
            "role": "assistant",
            "content": "List the package.",
            "tool_calls": [call],
            "extra": {"response": {"usage": {"prompt_tokens": 900, "completion_tokens": 30}}},
        },
        {
            "role": "tool",
            "tool_call_id": "call_x1",
            "content": "<returncode>0</returncode>\n<output>\nseparable.py\n</output>",
            "extra": {"returncode": 0, "raw_output": "separable.py\n"},
        },
        {"role": "exit", "content": EXCEPTION, "extra": {**stopped, **crash}},
    ]
    info = {**stopped, "model_stats": {"instance_cost": 0.0011, "api_calls": 2}}
    return {
        "info": {**info, "mini_version": "2.2.7", **crash},
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1.1",
        "instance_id": "pvlib__pvlib-python-1072",
    }


FIXTURES: dict[str, Any] = {
    "swe-agent/mini-v1-swebench.traj.json": v1_swebench(),
    "swe-agent/mini-v1-limits.traj.json": v1_limits(),
    "swe-agent/mini-v2-exception.traj.json": v2_exception(),
}
