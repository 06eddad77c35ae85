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

FIXTURES: dict[str, Any] = {
    "atif/trajectory-basic.json": BASIC,
    "atif/trajectory-subagent.json": SUBAGENT,
}
