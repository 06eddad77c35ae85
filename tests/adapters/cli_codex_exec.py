"""Fixtures in the shape of `codex exec --json` output (codex-rs/exec `ThreadEvent`s, as the
Codex TypeScript SDK documents them in events.ts / items.ts)."""

from __future__ import annotations

from typing import Any

THREAD = "0199a213-81c0-7800-8aa1-bbab2a035a53"


def _item(event: str, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": event, "item": item}


def _shell(
    item_id: str, command: str, output: str, code: int | None, status: str
) -> dict[str, Any]:
    return {
        "id": item_id,
        "type": "command_execution",
        "command": command,
        "aggregated_output": output,
        "exit_code": code,
        "status": status,
    }


def _usage(inp: int, cached: int, out: int) -> dict[str, Any]:
    return {
        "type": "turn.completed",
        "usage": {"input_tokens": inp, "cached_input_tokens": cached, "output_tokens": out},
    }


CLEAN: list[dict[str, Any]] = [
    {"type": "thread.started", "thread_id": THREAD},
    {"type": "turn.started"},
    _item(
        "item.completed", {"id": "item_0", "type": "reasoning", "text": "**Reading the config**"}
    ),
    _item("item.started", _shell("item_1", "bash -lc 'cat config.toml'", "", None, "in_progress")),
    _item(
        "item.completed",
        _shell("item_1", "bash -lc 'cat config.toml'", "port = 8080\n", 0, "completed"),
    ),
    _item(
        "item.started",
        {
            "id": "item_2",
            "type": "mcp_tool_call",
            "server": "docs",
            "tool": "search",
            "arguments": {"query": "port"},
            "result": None,
            "error": None,
            "status": "in_progress",
        },
    ),
    _item(
        "item.completed",
        {
            "id": "item_2",
            "type": "mcp_tool_call",
            "server": "docs",
            "tool": "search",
            "arguments": {"query": "port"},
            "result": {
                "content": [{"type": "text", "text": "The server listens on `port`."}],
                "structured_content": None,
            },
            "error": None,
            "status": "completed",
        },
    ),
    _item(
        "item.completed", {"id": "item_3", "type": "agent_message", "text": "It listens on 8080."}
    ),
    _usage(5200, 4096, 180),
]

_TODO = [{"text": "Run the tests", "completed": False}, {"text": "Fix", "completed": False}]
FAILURES: list[dict[str, Any]] = [
    {"type": "thread.started", "thread_id": THREAD},
    {"type": "turn.started"},
    _item("item.started", {"id": "item_0", "type": "todo_list", "items": _TODO}),
    _item("item.started", _shell("item_1", "bash -lc 'npm test'", "", None, "in_progress")),
    _item(
        "item.completed",
        _shell("item_1", "bash -lc 'npm test'", "sh: 1: jest: not found\n", 127, "failed"),
    ),
    _item(
        "item.completed",
        {
            "id": "item_2",
            "type": "file_change",
            "changes": [{"path": "src/app.js", "kind": "update"}],
            "status": "failed",
        },
    ),
    _item(
        "item.completed",
        {
            "id": "item_3",
            "type": "mcp_tool_call",
            "server": "github",
            "tool": "create_issue",
            "arguments": {"title": "tests fail"},
            "result": None,
            "error": {"message": "403 Forbidden"},
            "status": "failed",
        },
    ),
    _item(
        "item.completed", _shell("item_4", "bash -lc 'rm -rf node_modules'", "", None, "declined")
    ),
    _item("item.completed", {"id": "item_5", "type": "web_search", "query": "jest not found"}),
    _item("item.completed", {"id": "item_6", "type": "error", "message": "Reconnecting... 1/5"}),
    _item(
        "item.completed",
        {"id": "item_0", "type": "todo_list", "items": [dict(_TODO[0], completed=True), _TODO[1]]},
    ),
    _item("item.completed", {"id": "item_7", "type": "agent_message", "text": "Tests cannot run."}),
    _usage(6000, 2000, 300),
    {"type": "turn.started"},
    _item("item.completed", {"id": "item_8", "type": "agent_message", "text": "Retrying."}),
    _usage(13000, 8000, 420),  # the thread's running total: this turn used 7000 / 120
    {"type": "turn.started"},
    {"type": "error", "message": "stream disconnected before completion"},
    {"type": "turn.failed", "error": {"message": "stream disconnected before completion"}},
]

FIXTURES: dict[str, Any] = {
    "codex-exec/exec-clean.jsonl": CLEAN,
    "codex-exec/exec-failures.jsonl": FAILURES,
    "codex-exec/exec-array.json": CLEAN,
}
