"""Claude Code 1.0.x `claude -p --output-format stream-json --verbose` output, in the
shapes of the SDK message types it documents: one content block per `assistant` line,
every line of a message repeating the usage snapshot taken when the message started
(`output_tokens` of a few tokens); only the closing `result` line holds the real totals
(its `usage`: the main agent's messages; `cost_usd` and `total_cost`, the names before
1.0.40: the whole run's cost). A Task sub-agent's lines carry `parent_tool_use_id`."""

from __future__ import annotations

from typing import Any

from cli_claude import _result, _tool_use

_SID = "2f4e6a8c-1111-4222-8333-a44455556666"
_MODEL = "claude-opus-4-20250514"


def _line(
    msg_id: str, block: dict[str, Any], snapshot: tuple[int, int], parent: str | None = None
) -> dict[str, Any]:
    ins, out = snapshot
    message = {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": _MODEL,
        "content": [block],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {
            "input_tokens": ins,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 1000,
            "output_tokens": out,
            "service_tier": "standard",
        },
    }
    return {
        "type": "assistant",
        "message": message,
        "parent_tool_use_id": parent,
        "session_id": _SID,
    }


def _user(call_id: str, output: str, parent: str | None = None, error: bool = False) -> Any:
    content = [_result(call_id, output, error)]
    return {
        "type": "user",
        "message": {"role": "user", "content": content},
        "parent_tool_use_id": parent,
        "session_id": _SID,
    }


def run_with_subagent() -> list[dict[str, Any]]:
    task = {"description": "Find", "prompt": "Find the tax rate.", "subagent_type": "general"}
    return [
        {
            "type": "system",
            "subtype": "init",
            "cwd": "/home/dev/shop",
            "session_id": _SID,
            "tools": ["Task", "Bash", "Grep"],
            "mcp_servers": [],
            "model": _MODEL,
            "permissionMode": "bypassPermissions",
            "apiKeySource": "none",
        },
        _line(
            "msg_A", {"type": "text", "text": "I'll run the tests, then ask a sub-agent."}, (4, 3)
        ),
        _line("msg_A", _tool_use("toolu_A1", "Bash", {"command": "pytest -q"}), (4, 3)),
        _user("toolu_A1", "1 failed, 41 passed", error=True),
        _line("msg_B", _tool_use("toolu_B1", "Task", task), (6, 7)),
        _line("msg_S", _tool_use("toolu_S1", "Grep", {"pattern": "TAX_RATE"}), (5, 2), "toolu_B1"),
        _user("toolu_S1", "shop/tax.py:3:TAX_RATE = 0.2", "toolu_B1"),
        _line("msg_T", {"type": "text", "text": "TAX_RATE is 0.2."}, (7, 1), "toolu_B1"),
        _user("toolu_B1", "TAX_RATE is 0.2 (shop/tax.py:3)."),
        _line("msg_C", {"type": "text", "text": "One test fails; the tax rate is 0.2."}, (9, 1)),
        {
            "type": "result",
            "subtype": "success",
            "cost_usd": 0.0871,
            "is_error": False,
            "duration_ms": 21000,
            "duration_api_ms": 23000,
            "num_turns": 6,
            "result": "One test fails; the tax rate is 0.2.",
            "session_id": _SID,
            "total_cost": 0.0871,
            "usage": {
                "input_tokens": 19,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 3000,
                "output_tokens": 412,
                "server_tool_use": {"web_search_requests": 0},
            },
        },
    ]


FIXTURES: dict[str, Any] = {"claude-code/stream-json-1.0.json": run_with_subagent()}
