"""Fixtures in the shape of OpenCode runs: the `opencode run --format json` event lines and
the `opencode export` document (sst/opencode message parts: text, reasoning, tool with its
state, step-start / step-finish with tokens and cost)."""

from __future__ import annotations

from typing import Any

SESSION = "ses_494719016ffe85dkDMj0FPRbHK"
_M1, _M2 = "msg_b6b8e702b0012XuEC4bGe0XhKa", "msg_b6b8e8627001yM4qKJCXdC7W1L"


def _tokens(inp: int, out: int, reasoning: int, read: int, write: int) -> dict[str, Any]:
    return {
        "input": inp,
        "output": out,
        "reasoning": reasoning,
        "cache": {"read": read, "write": write},
    }


def _tool(call_id: str, tool: str, state: dict[str, Any], message: str = _M1) -> dict[str, Any]:
    return {
        "id": f"prt_{call_id}",
        "sessionID": SESSION,
        "messageID": message,
        "type": "tool",
        "callID": call_id,
        "tool": tool,
        "state": state,
    }


def _done(inp: dict[str, Any], output: str, **metadata: Any) -> dict[str, Any]:
    return {
        "status": "completed",
        "input": inp,
        "output": output,
        "title": "",
        "metadata": metadata,
        "time": {"start": 1, "end": 2},
    }


BASH_OK = _tool(
    "call_1", "bash", _done({"command": "ls", "description": "List files"}, "calc.py\n", exit=0)
)
BASH_FAIL = _tool(
    "call_2",
    "bash",
    _done({"command": "pytest -q", "description": "Run tests"}, "1 failed\n", exit=1),
)
EDIT_ERR = _tool(
    "call_3",
    "edit",
    {
        "status": "error",
        "input": {"filePath": "/repo/calc.py", "oldString": "a - b", "newString": "a + b"},
        "error": "oldString not found in content",
        "time": {"start": 3, "end": 4},
    },
)
TEXT = {
    "id": "prt_t1",
    "sessionID": SESSION,
    "messageID": _M2,
    "type": "text",
    "text": "Tests fail; the edit did not apply.",
    "time": {"start": 5, "end": 5},
}
REASONING = {
    "id": "prt_r1",
    "sessionID": SESSION,
    "messageID": _M1,
    "type": "reasoning",
    "text": "List the repo first.",
    "time": {"start": 0, "end": 1},
}


def _line(kind: str, part: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "timestamp": 1767036059338, "sessionID": SESSION, "part": part}


def _finish(reason: str, cost: float, tokens: dict[str, Any], message: str) -> dict[str, Any]:
    return {
        "id": f"prt_f_{reason}",
        "sessionID": SESSION,
        "messageID": message,
        "type": "step-finish",
        "reason": reason,
        "snapshot": "ee3406d5",
        "cost": cost,
        "tokens": tokens,
    }


_START = {
    "id": "prt_s",
    "sessionID": SESSION,
    "messageID": _M1,
    "type": "step-start",
    "snapshot": "71db24a7",
}

STREAM: list[dict[str, Any]] = [
    _line("step_start", _START),
    _line("reasoning", REASONING),
    _line("tool_use", BASH_OK),
    _line("tool_use", BASH_FAIL),
    _line("tool_use", EDIT_ERR),
    _line("step_finish", _finish("tool-calls", 0.002, _tokens(21772, 110, 20, 0, 0), _M1)),
    _line("step_start", {**_START, "messageID": _M2}),
    _line("text", TEXT),
    _line("step_finish", _finish("stop", 0.001, _tokens(671, 8, 0, 21415, 0), _M2)),
]

EXPORT: dict[str, Any] = {
    "info": {
        "id": SESSION,
        "projectID": "prj_1",
        "directory": "/repo",
        "title": "Fix calc",
        "version": "1.0.0",
        "time": {"created": 1767036059000, "updated": 1767036065000},
    },
    "messages": [
        {
            "info": {
                "id": "msg_u1",
                "sessionID": SESSION,
                "role": "user",
                "time": {"created": 1767036059000},
            },
            "parts": [
                {
                    "id": "prt_u1",
                    "sessionID": SESSION,
                    "messageID": "msg_u1",
                    "type": "text",
                    "text": "Fix the failing test",
                }
            ],
        },
        {
            "info": {
                "id": _M1,
                "sessionID": SESSION,
                "role": "assistant",
                "modelID": "claude-sonnet-4",
                "providerID": "anthropic",
                "path": {"cwd": "/repo", "root": "/repo"},
                "cost": 0.002,
                "tokens": _tokens(21772, 110, 20, 0, 0),
                "time": {"created": 1767036059100, "completed": 1767036061200},
            },
            "parts": [
                _START,
                REASONING,
                BASH_OK,
                BASH_FAIL,
                EDIT_ERR,
                _finish("tool-calls", 0.002, _tokens(21772, 110, 20, 0, 0), _M1),
            ],
        },
        {
            "info": {
                "id": _M2,
                "sessionID": SESSION,
                "role": "assistant",
                "modelID": "claude-sonnet-4",
                "providerID": "anthropic",
                "path": {"cwd": "/repo", "root": "/repo"},
                "cost": 0.001,
                "tokens": _tokens(671, 8, 0, 21415, 0),
                "time": {"created": 1767036061300, "completed": 1767036064300},
            },
            "parts": [
                {**_START, "messageID": _M2},
                TEXT,
                _finish("stop", 0.001, _tokens(671, 8, 0, 21415, 0), _M2),
            ],
        },
    ],
}

FIXTURES: dict[str, Any] = {
    "opencode/opencode-run.jsonl": STREAM,
    "opencode/opencode-export.json": EXPORT,
}
