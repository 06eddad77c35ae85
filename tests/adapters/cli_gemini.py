"""Fixtures in gemini-cli's chat recording shapes (conversation JSON, replayed JSONL log)."""

from __future__ import annotations

from typing import Any

GEMINI_SESSION = "c0ffee00-1234-4abc-9def-0123456789ab"
HEADER = {
    "sessionId": GEMINI_SESSION,
    "projectHash": "5f2a9c1e7b",
    "startTime": "2026-04-02T09:00:00.000Z",
    "lastUpdated": "2026-04-02T09:00:00.000Z",
    "kind": "main",
}


def _gcall(
    call_id: str, name: str, args: dict[str, Any], status: str, response: dict[str, Any] | None
) -> dict[str, Any]:
    call: dict[str, Any] = {
        "id": call_id,
        "name": name,
        "args": args,
        "status": status,
        "timestamp": "2026-04-02T09:00:05.000Z",
        "displayName": name,
        "description": "",
    }
    if response is not None:
        call["result"] = [{"functionResponse": {"id": call_id, "name": name, "response": response}}]
        call["resultDisplay"] = response.get("output") or response.get("error")
    return call


def _gemini(
    msg_id: str, content: str, calls: list[dict[str, Any]], tokens: tuple[int, int, int, int] | None
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": msg_id,
        "timestamp": "2026-04-02T09:00:04.000Z",
        "type": "gemini",
        "content": content,
        "model": "gemini-2.5-pro",
    }
    if calls:
        record["toolCalls"] = calls
    record["thoughts"] = (
        [
            {
                "subject": "Reading files",
                "description": "Look at the config first.",
                "timestamp": "2026-04-02T09:00:03.000Z",
            }
        ]
        if calls
        else []
    )
    if tokens is not None:
        inp, out, thoughts, tool = tokens
        record["tokens"] = {
            "input": inp,
            "output": out,
            "cached": 0,
            "thoughts": thoughts,
            "tool": tool,
            "total": inp + out + thoughts + tool,
        }
    return record


def _guser(msg_id: str, text: str) -> dict[str, Any]:
    return {
        "id": msg_id,
        "timestamp": "2026-04-02T09:00:01.000Z",
        "type": "user",
        "content": [{"text": text}],
    }


def gemini_legacy() -> dict[str, Any]:
    calls = [
        _gcall(
            "read_file-1-a",
            "read_file",
            {"absolute_path": "/srv/app/config.yaml"},
            "success",
            {"output": "port: 8080"},
        ),
        _gcall(
            "run_shell_command-2-b",
            "run_shell_command",
            {"command": "curl localhost:8080/health"},
            "error",
            {"error": "Command exited with code 7"},
        ),
        _gcall(
            "write_file-3-c",
            "write_file",
            {"file_path": "/srv/app/config.yaml", "content": "port: 9090"},
            "cancelled",
            None,
        ),
    ]
    return {
        **HEADER,
        "messages": [
            _guser("u1", "Why is the health check failing?"),
            _gemini(
                "g1", "Let me look at the config and the service.", calls, (4100, 120, 300, 15)
            ),
            {
                "id": "i1",
                "timestamp": "2026-04-02T09:00:06.000Z",
                "type": "info",
                "content": "Request cancelled.",
            },
            _gemini("g2", "The service is not listening on 8080.", [], (4600, 40, 0, 0)),
        ],
        "summary": "Debug the failing health check",
    }


def gemini_log() -> list[dict[str, Any]]:
    """A JSONL recording: a call recorded while executing then replaced when done, `$set`
    updates, parallel calls, and a `$rewindTo` that drops the last exchange."""
    running = _gcall("glob-1-a", "glob", {"pattern": "**/*.py"}, "executing", None)
    done = _gcall(
        "glob-1-a",
        "glob",
        {"pattern": "**/*.py"},
        "success",
        {"output": "app.py\ntests/test_app.py"},
    )
    grep = _gcall(
        "grep-2-b",
        "search_file_content",
        {"pattern": "def health"},
        "success",
        {"output": "app.py:12: def health():"},
    )
    return [
        HEADER,
        _guser("u1", "Where is the health endpoint?"),
        {"$set": {"lastUpdated": "2026-04-02T09:00:01.000Z"}},
        _gemini("g1", "", [running], None),
        _gemini("g1", "", [done, grep], (3000, 60, 120, 0)),
        {"$set": {"lastUpdated": "2026-04-02T09:00:05.000Z"}},
        _gemini("g2", "It is `health()` in app.py, line 12.", [], (3300, 25, 0, 0)),
        _guser("u2", "Now delete it."),
        _gemini(
            "g3",
            "",
            [_gcall("edit-3-c", "replace", {"file_path": "app.py"}, "success", {"output": "ok"})],
            (3400, 50, 0, 0),
        ),
        {"$rewindTo": "u2"},
        {"$set": {"summary": "Locate the health endpoint"}},
    ]


def gemini_checkpoint() -> list[dict[str, Any]]:
    """A `$set` checkpoint that rebuilds the messages, then a session cut off mid-call."""
    first = _guser("u1", "Summarise README.md.")
    answer = _gemini("g1", "README.md describes a Flask app.", [], (1200, 30, 0, 0))
    return [
        HEADER,
        first,
        _gemini("g0", "Draft answer that the checkpoint replaced.", [], (1000, 10, 0, 0)),
        {"$set": {"messages": [first, answer], "lastUpdated": "2026-04-02T09:01:00.000Z"}},
        {
            "id": "w1",
            "timestamp": "2026-04-02T09:01:01.000Z",
            "type": "warning",
            "content": "Context is 80% full.",
        },
        _guser("u2", "Also run the tests."),
        _gemini(
            "g2",
            "",
            [
                _gcall(
                    "run_shell_command-9-z",
                    "run_shell_command",
                    {"command": "pytest"},
                    "awaiting_approval",
                    None,
                )
            ],
            (1500, 20, 0, 0),
        ),
    ]


FIXTURES: dict[str, Any] = {
    "gemini-cli/session-legacy.json": gemini_legacy(),
    "gemini-cli/session-log.jsonl": gemini_log(),
    "gemini-cli/session-checkpoint.jsonl": gemini_checkpoint(),
    "gemini-cli/session-log-array.json": gemini_log(),
}
