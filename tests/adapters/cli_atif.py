"""Fixtures in the Agent Trajectory Interchange Format (Harbor RFC 0001-trajectory-format:
ATIF-v1.4 fields, and the v1.6 content parts and v1.7 embedded subagent trajectories)."""

from __future__ import annotations

from typing import Any

AGENT = {"name": "terminus-2", "version": "2.0.0", "model_name": "claude-sonnet-4-5"}

BASIC: dict[str, Any] = {
    "schema_version": "ATIF-v1.4",
    "session_id": "025B810F-B3A2-4C67-93C0-FE7A142A947A",
    "agent": AGENT,
    "notes": "Terminal-Bench task hello-world",
    "final_metrics": {
        "total_prompt_tokens": 2100,
        "total_completion_tokens": 160,
        "total_cached_tokens": 900,
        "total_cost_usd": 0.0091,
        "total_steps": 4,
    },
    "steps": [
        {
            "step_id": 1,
            "timestamp": "2025-10-11T10:30:00Z",
            "source": "system",
            "message": "You are a terminal agent.",
        },
        {
            "step_id": 2,
            "timestamp": "2025-10-11T10:30:00Z",
            "source": "user",
            "message": "Create hello.txt saying Hello.",
        },
        {
            "step_id": 3,
            "timestamp": "2025-10-11T10:30:02Z",
            "source": "agent",
            "model_name": "claude-sonnet-4-5",
            "message": "I will write the file and check it.",
            "reasoning_content": "Write, then verify.",
            "tool_calls": [
                {
                    "tool_call_id": "call_1",
                    "function_name": "bash",
                    "arguments": {"command": "echo Hello > hello.txt"},
                },
                {
                    "tool_call_id": "call_2",
                    "function_name": "bash",
                    "arguments": {"command": "cat hello.txt"},
                },
            ],
            "observation": {
                "results": [
                    {"source_call_id": "call_1", "content": ""},
                    {"source_call_id": "call_2", "content": "Hello\n"},
                ]
            },
            "metrics": {
                "prompt_tokens": 1000,
                "completion_tokens": 120,
                "cached_tokens": 400,
                "cost_usd": 0.0055,
            },
        },
        {
            "step_id": 4,
            "timestamp": "2025-10-11T10:30:05Z",
            "source": "agent",
            "message": "hello.txt now says Hello.",
            "metrics": {
                "prompt_tokens": 1100,
                "completion_tokens": 40,
                "cached_tokens": 500,
                "cost_usd": 0.0036,
            },
        },
    ],
}

SUBAGENT: dict[str, Any] = {
    "schema_version": "ATIF-v1.7",
    "session_id": "run-7",
    "trajectory_id": "root",
    "agent": {"name": "planner", "version": "0.3.1"},
    "final_metrics": {"total_prompt_tokens": 900, "total_completion_tokens": 75},
    "steps": [
        {"step_id": 1, "source": "user", "message": "Find the failing test and report it."},
        {
            "step_id": 2,
            "source": "agent",
            "message": "",
            "tool_calls": [
                {
                    "tool_call_id": "delegate_1",
                    "function_name": "delegate",
                    "arguments": {"task": "run the tests"},
                }
            ],
            "observation": {
                "results": [
                    {
                        "source_call_id": "delegate_1",
                        "content": [{"type": "text", "text": "1 failure: test_parse"}],
                        "subagent_trajectory_ref": [
                            {"trajectory_id": "tester-1", "session_id": "run-7"}
                        ],
                    }
                ]
            },
        },
        {
            "step_id": 3,
            "source": "agent",
            "message": "test_parse fails.",
            "observation": {"results": [{"content": "report filed"}]},
        },
    ],
    "subagent_trajectories": [
        {
            "schema_version": "ATIF-v1.7",
            "session_id": "run-7",
            "trajectory_id": "tester-1",
            "agent": {"name": "tester", "version": "0.3.1"},
            "steps": [
                {"step_id": 1, "source": "user", "message": "run the tests"},
                {
                    "step_id": 2,
                    "source": "agent",
                    "message": "",
                    "tool_calls": [
                        {
                            "tool_call_id": "t_1",
                            "function_name": "bash",
                            "arguments": {"command": "pytest -q"},
                        }
                    ],
                    "observation": {
                        "results": [{"source_call_id": "t_1", "content": "1 failed, 41 passed"}]
                    },
                },
                {"step_id": 3, "source": "agent", "message": "1 failure: test_parse"},
            ],
        }
    ],
}


def _terminal(screen: str) -> str:
    return f"New Terminal Output:\n\nroot@box:/app# {screen}\nroot@box:/app# "


def _keys(step: int, index: int, keystrokes: str) -> dict[str, Any]:
    return {
        "tool_call_id": f"call_{step}_{index}",
        "function_name": "bash_command",
        "arguments": {"keystrokes": keystrokes, "duration": 0.1},
    }


# Harbor's terminus-2 writer (harbor/agents/terminus_2): one agent step per model turn, its
# keystroke commands as bash_command calls, and ONE observation result, without
# source_call_id, holding the terminal screen after all of them; a turn whose response
# could not be parsed has no call and the parser's feedback as its observation.
TERMINUS: dict[str, Any] = {
    "schema_version": "ATIF-v1.5",
    "session_id": "0b7e6a52-terminus",
    "agent": {"name": "terminus-2", "version": "2.0.0", "model_name": "openrouter/some-model"},
    "final_metrics": {
        "total_prompt_tokens": 3000,
        "total_completion_tokens": 230,
        "total_cached_tokens": 0,
        "total_cost_usd": 0.003,
    },
    "steps": [
        {"step_id": 1, "source": "user", "message": "Create /app/out.txt listing /app."},
        {
            "step_id": 2,
            "source": "agent",
            "model_name": "openrouter/some-model",
            "message": "Analysis: empty terminal. Plan: list, then write the file.",
            "tool_calls": [
                _keys(0, 1, "cd /app\n"),
                _keys(0, 2, "ls > out.txt\n"),
                _keys(0, 3, "cat out.txt\n"),
            ],
            "observation": {"results": [{"content": _terminal("cat out.txt\nout.txt")}]},
            "metrics": {"prompt_tokens": 1000, "completion_tokens": 100, "cost_usd": 0.001},
        },
        {
            "step_id": 3,
            "source": "agent",
            "model_name": "openrouter/some-model",
            "message": "oops {not json",
            "observation": {
                "results": [
                    {"content": "Previous response had parsing errors:\nERROR: No valid JSON"}
                ]
            },
            "metrics": {"prompt_tokens": 900, "completion_tokens": 30, "cost_usd": 0.001},
        },
        {
            "step_id": 4,
            "source": "agent",
            "model_name": "openrouter/some-model",
            "message": "Analysis: out.txt is written. Plan: done.",
            "tool_calls": [
                {
                    "tool_call_id": "call_2_task_complete",
                    "function_name": "mark_task_complete",
                    "arguments": {},
                }
            ],
            "observation": {"results": [{"content": _terminal("")}]},
            "metrics": {"prompt_tokens": 1100, "completion_tokens": 100, "cost_usd": 0.001},
        },
    ],
}


def _bash(step: int, command: str) -> dict[str, Any]:
    return {
        "tool_call_id": f"call_{step}_1",
        "function_name": "bash_command",
        "arguments": {"command": command},
    }


def _agent(step: int, command: str, observation: str, tokens: int) -> dict[str, Any]:
    return {
        "step_id": step,
        "source": "agent",
        "model_name": "some-model",
        "message": f"THOUGHT: run it.\n\n```bash\n{command}\n```",
        "tool_calls": [_bash(step, command)],
        "observation": {"results": [{"content": observation}]},
        "metrics": {"prompt_tokens": tokens, "completion_tokens": 10, "cost_usd": 0.0001},
    }


# Harbor's mini-swe-agent converter (harbor/agents/installed/mini_swe_agent): one call per
# turn, its observation (mini-swe-agent's templates: `<returncode>`, the timeout and the
# format-error feedback) as a result without source_call_id.
MINI: dict[str, Any] = {
    "schema_version": "ATIF-v1.2",
    "session_id": "mini-1",
    "agent": {"name": "mini-swe-agent", "version": "1.14.4", "model_name": "some-model"},
    "notes": "Converted from mini-swe-agent trajectory format to ATIF",
    "final_metrics": {
        "total_prompt_tokens": 1000,
        "total_completion_tokens": 40,
        "total_cost_usd": 0.0004,
    },
    "steps": [
        {"step_id": 1, "source": "system", "message": "You are a helpful assistant."},
        {"step_id": 2, "source": "user", "message": "Please solve this issue: fix parse()."},
        _agent(
            3,
            "cd /repo",
            "Please always provide EXACTLY ONE action in triple backticks, found 2 actions.",
            100,
        ),
        _agent(4, "grep -n parse src/x.py", "<returncode>1</returncode>\n<output>\n</output>", 200),
        _agent(
            5,
            "sleep 999",
            "The last command <command>sleep 999</command> timed out and "
            "has been killed.\nThe output of the command was:\n <output>\n\n</output>",
            300,
        ),
        _agent(6, "pytest -q", "<returncode>0</returncode>\n<output>\n1 passed\n</output>", 400),
    ],
}

_WEATHER = {"id": "chatcmpl-tool-1", "type": "function"}
_WEATHER["function"] = {"name": "get_weather", "arguments": '{"city": "Oslo"}'}
_ASSISTANT = {"role": "assistant", "reasoning": "Call the tool.", "tool_calls": [_WEATHER]}
_ASKED = {"role": "user", "content": "Weather in Oslo?"}

# NeMo-Relay's early ATIF exporter (crates/core/src/atif.rs, March 2026): user steps carry
# the request's chat messages as `message` lists, the agent step's `message` is the
# assistant message object, results are a `system` step naming their calls, and
# `final_metrics` uses the step metrics' key names.
NEMO: dict[str, Any] = {
    "schema_version": "ATIF-v1.6",
    "session_id": "nemo-session",
    "agent": {"name": "example-agent", "version": "0.1.0", "model_name": "my-agent"},
    "final_metrics": {"prompt_tokens": 300, "completion_tokens": 50},
    "steps": [
        {"step_id": 1, "source": "user", "message": [_ASKED]},
        {
            "step_id": 2,
            "source": "agent",
            "model_name": "some-model",
            "message": _ASSISTANT,
            "tool_calls": [
                {
                    "tool_call_id": "chatcmpl-tool-1",
                    "function_name": "get_weather",
                    "arguments": {"city": "Oslo"},
                }
            ],
            "metrics": {"prompt_tokens": 100, "completion_tokens": 30},
        },
        {
            "step_id": 3,
            "source": "system",
            "message": None,
            "observation": {
                "results": [{"source_call_id": "chatcmpl-tool-1", "content": "4C, rain"}]
            },
        },
        {
            "step_id": 4,
            "source": "user",
            "message": [
                _ASKED,
                {**_ASSISTANT, "content": None},
                {"role": "tool", "content": "4C, rain", "tool_call_id": "chatcmpl-tool-1"},
            ],
        },
        {
            "step_id": 5,
            "source": "agent",
            "message": "It is 4C and raining in Oslo.",
            "metrics": {"prompt_tokens": 200, "completion_tokens": 20},
        },
    ],
}

FIXTURES: dict[str, Any] = {
    "atif/trajectory-basic.json": BASIC,
    "atif/trajectory-subagent.json": SUBAGENT,
    "atif/terminus-shared-output.json": TERMINUS,
    "atif/mini-swe-agent-converted.json": MINI,
    "atif/nemo-relay-message-objects.json": NEMO,
}
