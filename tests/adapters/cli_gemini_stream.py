"""Fixtures in the shape of gemini-cli's `--output-format stream-json` output (the
`JsonStreamEventType` events its headless mode documents: docs/cli/headless.md)."""

from __future__ import annotations

from typing import Any

SESSION = "4b7f3c2e-9a1d-4e58-b6f0-2c8d1e9a7b35"
SECOND = "a81e5d0c-37b4-4f2a-9c6e-0d5b8f1e2a47"


def _at(second: int) -> str:
    return f"2026-04-02T09:00:{second:02d}.000Z"


def _init(session: str, second: int) -> dict[str, Any]:
    return {
        "type": "init",
        "timestamp": _at(second),
        "session_id": session,
        "model": "gemini-2.5-pro",
    }


def _say(role: str, content: str, second: int, delta: bool = False) -> dict[str, Any]:
    line: dict[str, Any] = {"type": "message", "timestamp": _at(second), "role": role}
    line["content"] = content
    if delta:
        line["delta"] = True
    return line


def _use(tool_id: str, name: str, parameters: dict[str, Any], second: int) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "timestamp": _at(second),
        "tool_name": name,
        "tool_id": tool_id,
        "parameters": parameters,
    }


def _result(
    tool_id: str, second: int, output: str, error: dict[str, str] | None = None
) -> dict[str, Any]:
    line: dict[str, Any] = {"type": "tool_result", "timestamp": _at(second), "tool_id": tool_id}
    line["status"] = "error" if error else "success"
    line["output"] = output
    if error:
        line["error"] = error
    return line


_STATS = {
    "total_tokens": 12650,
    "input_tokens": 12400,
    "output_tokens": 250,
    "cached": 8000,
    "input": 4400,
    "duration_ms": 9100,
    "tool_calls": 1,
}

CLEAN: list[dict[str, Any]] = [
    _init(SESSION, 0),
    _say("user", "What port does the server use?", 0),
    _say("assistant", "Let me read ", 2, delta=True),
    _say("assistant", "the config.", 2, delta=True),
    _use("read_file-1775120403000-0a1b", "read_file", {"absolute_path": "/repo/config.toml"}, 3),
    _result("read_file-1775120403000-0a1b", 3, "port = 8080\n"),
    _say("assistant", "It listens on ", 5, delta=True),
    _say("assistant", "port 8080.", 5, delta=True),
    {"type": "result", "timestamp": _at(6), "status": "success", "stats": _STATS},
]

ERRORS: list[dict[str, Any]] = [
    _init(SESSION, 0),
    _say("user", "Push the fix.", 0),
    _use("run_shell_command-1", "run_shell_command", {"command": "git push"}, 2),
    _result(
        "run_shell_command-1",
        3,
        "remote: Permission denied",
        {"type": "execution_failed", "message": "Command failed: remote: Permission denied"},
    ),
    _use("read_file-2", "read_file", {"absolute_path": "/repo/missing.txt"}, 4),
    _result(
        "read_file-2",
        4,
        "File not found: /repo/missing.txt",
        {"type": "file_not_found", "message": "File not found: /repo/missing.txt"},
    ),
    {"type": "error", "timestamp": _at(5), "severity": "warning", "message": "Loop detected"},
    {
        "type": "result",
        "timestamp": _at(6),
        "status": "error",
        "error": {"type": "FatalTurnLimitedError", "message": "Reached max session turns"},
        "stats": dict(_STATS, total_tokens=3090, input_tokens=3000, output_tokens=90, tool_calls=2),
    },
    # A second run appended to the same file, cut short: its last call has no result.
    _init(SECOND, 30),
    _say("user", "Try again.", 30),
    _use("run_shell_command-3", "run_shell_command", {"command": "git push --force"}, 32),
]

FIXTURES: dict[str, Any] = {
    "gemini-stream/stream-clean.jsonl": CLEAN,
    "gemini-stream/stream-errors.jsonl": ERRORS,
    "gemini-stream/stream-array.json": CLEAN,
}
