"""Fixtures in Codex CLI's rollout JSONL shape (typed lines and the older untyped ones)."""

from __future__ import annotations

import json
from typing import Any

ROLLOUT = "019c9d89-ae90-75e2-9555-7855bac35c45"


def _line(n: int, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": f"2026-03-01T10:00:{n:02d}.000Z", "type": kind, "payload": payload}


def _usage(inp: int, cached: int, out: int, reasoning: int = 0) -> dict[str, Any]:
    return {
        "input_tokens": inp,
        "cached_input_tokens": cached,
        "output_tokens": out,
        "reasoning_output_tokens": reasoning,
        "total_tokens": inp + out,
    }


def _tokens(n: int, total: tuple[int, int, int], last: tuple[int, int, int]) -> dict[str, Any]:
    info = {
        "total_token_usage": _usage(*total),
        "last_token_usage": _usage(*last),
        "model_context_window": 272000,
    }
    return _line(
        n,
        "event_msg",
        {
            "type": "token_count",
            "info": info,
            "rate_limits": {"primary": {"used_percent": 12.0, "window_minutes": 300}},
        },
    )


def _text(role: str, text: str) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": part, "text": text}]}


def _fn(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function_call",
        "name": name,
        "arguments": json.dumps(args),
        "call_id": call_id,
    }


def _out(call_id: str, output: Any, kind: str = "function_call_output") -> dict[str, Any]:
    return {"type": kind, "call_id": call_id, "output": output}


_CLEAN_META = {
    "id": ROLLOUT,
    "timestamp": "2026-03-01T10:00:00.000Z",
    "cwd": "/home/dev/shop",
    "originator": "codex_cli_rs",
    "cli_version": "0.111.0",
    "source": "cli",
    "model_provider": "openai",
    "base_instructions": {"text": "You are Codex, a coding agent."},
}
ROLLOUT_CLEAN = [
    _line(0, "session_meta", _CLEAN_META),
    _line(
        1,
        "turn_context",
        {
            "cwd": "/home/dev/shop",
            "approval_policy": "on-request",
            "sandbox_policy": {"type": "workspace-write"},
            "model": "gpt-5-codex",
            "effort": "medium",
        },
    ),
    _line(
        2,
        "response_item",
        _text("developer", "<permissions instructions>workspace-write</permissions instructions>"),
    ),
    _line(3, "response_item", _text("user", "Why does test_tax fail?")),
    _line(
        4,
        "event_msg",
        {"type": "user_message", "message": "Why does test_tax fail?", "images": []},
    ),
    _line(5, "event_msg", {"type": "task_started", "model_context_window": 272000}),
    _line(
        6,
        "response_item",
        {
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "**Running the failing test**"}],
            "content": None,
            "encrypted_content": "gAAAAB",
        },
    ),
    _line(
        7,
        "response_item",
        _fn(
            "call_c1",
            "shell_command",
            {"command": "pytest -q tests/test_tax.py", "workdir": "/home/dev/shop"},
        ),
    ),
    _line(
        8,
        "response_item",
        _out("call_c1", "Exit code: 0\nWall time: 1.4 seconds\nOutput:\n1 passed"),
    ),
    _tokens(9, (5200, 4800, 120), (5200, 4800, 120)),
    _tokens(10, (5200, 4800, 120), (5200, 4800, 120)),  # repeated: same running total
    _line(
        11,
        "event_msg",
        {
            "type": "token_count",
            "info": None,
            "rate_limits": {"primary": {"used_percent": 13.0}},
        },
    ),
    _line(
        12,
        "response_item",
        _text("assistant", "test_tax passes now; it failed only with a stale cache."),
    ),
    _line(
        13,
        "event_msg",
        {
            "type": "agent_message",
            "message": "test_tax passes now; it failed only with a stale cache.",
        },
    ),
    _tokens(14, (10600, 9900, 150), (5400, 5100, 30)),
    _line(15, "event_msg", {"type": "task_complete", "last_agent_message": "test_tax passes now."}),
]


# Failing commands, apply_patch (freeform input), parallel calls, a local shell call with the older JSON-string output, web search, an orphan output, compaction, an abort.
_PATCH = "*** Begin Patch\n*** Update File: shop/tax.py\n-TAX_RATE = 0.2\n+TAX_RATE = 0.19\n*** End Patch"
ROLLOUT_FAILURES = [
    _line(
        0,
        "session_meta",
        {
            "id": "019d0a83-0001-7000-8000-000000000002",
            "cwd": "/home/dev/shop",
            "originator": "codex_cli_rs",
            "cli_version": "0.116.0",
        },
    ),
    _line(1, "response_item", _text("user", "Lower the tax rate to 19% and run the tests.")),
    _line(
        2,
        "response_item",
        {
            "type": "custom_tool_call",
            "status": "completed",
            "call_id": "call_p1",
            "name": "apply_patch",
            "input": _PATCH,
        },
    ),
    _line(
        3,
        "event_msg",
        {
            "type": "patch_apply_end",
            "call_id": "call_p1",
            "success": False,
            "stdout": "",
            "stderr": "hunk 1 did not apply",
        },
    ),
    _line(
        4,
        "response_item",
        _out(
            "call_p1",
            '{"output":"hunk 1 did not apply","metadata":{"exit_code":1,"duration_seconds":0.0}}',
            "custom_tool_call_output",
        ),
    ),
    _tokens(5, (4000, 0, 90), (4000, 0, 90)),
    _line(6, "response_item", _fn("call_p2", "shell_command", {"command": "cat shop/tax.py"})),
    _line(7, "response_item", _fn("call_p3", "shell_command", {"command": "git status --short"})),
    _line(
        8,
        "response_item",
        _out("call_p3", "Exit code: 0\nWall time: 0.1 seconds\nOutput:\n M shop/tax.py"),
    ),
    _line(
        9,
        "response_item",
        _out(
            "call_p2",
            "Exit code: 1\nWall time: 0.1 seconds\nOutput:\ncat: shop/tax.py: No such file or directory",
        ),
    ),
    _tokens(10, (8500, 3900, 150), (4500, 3900, 60)),
    _line(
        11,
        "response_item",
        {
            "type": "local_shell_call",
            "id": "lsh_1",
            "call_id": "call_p4",
            "status": "completed",
            "action": {
                "type": "exec",
                "command": ["bash", "-lc", "pytest -q"],
                "timeout_ms": 120000,
            },
        },
    ),
    _line(
        12,
        "response_item",
        _out("call_p4", '{"output":"3 failed","metadata":{"exit_code":2,"duration_seconds":4.2}}'),
    ),
    _line(
        13,
        "response_item",
        {
            "type": "web_search_call",
            "id": "ws_1",
            "status": "completed",
            "action": {"type": "search", "query": "EU VAT 19 percent"},
        },
    ),
    _line(14, "response_item", _out("call_zz", "output of a call this file never recorded")),
    _line(
        15,
        "response_item",
        {"type": "ghost_snapshot", "ghost_commit": {"id": "abc123", "parent": "def456"}},
    ),
    _line(
        16,
        "compacted",
        {"message": "Summary of the conversation so far.", "replacement_history": []},
    ),
    _line(17, "event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
    _tokens(18, (13000, 7800, 200), (4500, 3900, 50)),
]


_LIMIT = "You've hit your usage limit. Try again at 4:05 AM."
# Turns that died on an error: an `error` event (the turn's task_complete repeats it), a
# task_complete whose `error` is set, the older `{"error": {kind, message}}` event; end
# events of calls the rollout does not hold (noted next to the step before them).
ROLLOUT_ERRORS = [
    _line(0, "session_meta", {"id": "019c8bfe-0003-7000-8000-000000000003", "cwd": "/srv"}),
    _line(1, "turn_context", {"cwd": "/srv", "model": "gpt-5.3-codex"}),
    _line(2, "event_msg", {"type": "task_started", "turn_id": "t1"}),
    _line(3, "response_item", _text("user", "Is the server up?")),
    _line(4, "response_item", _text("assistant", "Yes, it answers on port 8080.")),
    _line(
        5,
        "event_msg",
        {"type": "exec_command_end", "call_id": "call_gone", "exit_code": 1, "stdout": ""},
    ),
    _tokens(6, (3000, 0, 40), (3000, 0, 40)),
    _line(7, "event_msg", {"type": "task_complete", "turn_id": "t1", "last_agent_message": "Yes"}),
    _line(8, "event_msg", {"type": "task_started", "turn_id": "t2"}),
    _line(9, "response_item", _text("user", "Restart it.")),
    _line(
        10,
        "event_msg",
        {"type": "error", "message": _LIMIT, "codex_error_info": "usage_limit_exceeded"},
    ),
    _line(
        11,
        "event_msg",
        {
            "type": "task_complete",
            "turn_id": "t2",
            "last_agent_message": None,
            "error": {"message": _LIMIT, "codex_error_info": "usage_limit_exceeded"},
        },
    ),
    _line(12, "event_msg", {"type": "task_started", "turn_id": "t3"}),
    _line(13, "response_item", _text("user", "Try again.")),
    _line(
        14,
        "event_msg",
        {
            "type": "task_complete",
            "turn_id": "t3",
            "last_agent_message": None,
            "error": {
                "message": "stream disconnected",
                "codex_error_info": "response_stream_failed",
            },
        },
    ),
    _line(
        15,
        "event_msg",
        {"type": "error", "error": {"kind": "rate_limit", "message": "Rate limit exceeded"}},
    ),
]


def rollout_legacy() -> list[dict[str, Any]]:
    """Rollouts written before the typed lines: a head line, bare items, state lines."""
    return [
        {
            "id": "02f3baa6-e4d8-46ad-9590-6cd34fdd8ac1",
            "timestamp": "2025-09-11T16:38:04.973Z",
            "instructions": "Prefer small diffs.",
            "git": {"commit_hash": "abc123", "branch": "main"},
        },
        {"record_type": "state"},
        _text("user", "Switch main.py to the tinybert model."),
        {"type": "reasoning", "summary": [], "encrypted_content": "gAAAAB"},
        _text("assistant", "I'll update main.py."),
        _fn("call_abc", "shell", {"command": ["bash", "-lc", "cat main.py"]}),
        _out(
            "call_abc",
            '{"output":"import torch\\nmodel = load(\'bert\')","metadata":{"exit_code":0,"duration_seconds":0.05}}',
        ),
        {"record_type": "state"},
        _text("assistant", "Done, main.py now uses tinybert."),
    ]


FIXTURES: dict[str, Any] = {
    "codex-cli/rollout-clean.jsonl": ROLLOUT_CLEAN,
    "codex-cli/rollout-failures.jsonl": ROLLOUT_FAILURES,
    "codex-cli/rollout-errors.jsonl": ROLLOUT_ERRORS,
    "codex-cli/rollout-legacy.jsonl": rollout_legacy(),
    "codex-cli/rollout-array.json": ROLLOUT_CLEAN,
}
