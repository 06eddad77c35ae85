"""Fixtures in the shape of Qwen Code chat recordings (ChatRecordingService's `ChatRecord`:
the uuid tree, the session keys, a Gemini `Content` message, `usageMetadata`,
`toolCallResult`, system records with a `subtype`)."""

from __future__ import annotations

from typing import Any

SESSION = "6f1c2a9e-0b7d-4e59-9a51-3c2f0e8d7b11"


def _record(n: int, kind: str, **fields: Any) -> dict[str, Any]:
    return {
        "uuid": f"u{n}",
        "parentUuid": f"u{n - 1}" if n > 1 else None,
        "sessionId": SESSION,
        "timestamp": f"2026-11-02T09:00:{n:02d}.000Z",
        "type": kind,
        "cwd": "/repo",
        "version": "0.2.1",
        "gitBranch": "main",
        **fields,
    }


def _call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"functionCall": {"id": call_id, "name": name, "args": args}}


def _response(call_id: str, name: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"functionResponse": {"id": call_id, "name": name, "response": body}}


def _usage(prompt: int, out: int, thoughts: int) -> dict[str, Any]:
    return {
        "promptTokenCount": prompt,
        "candidatesTokenCount": out,
        "thoughtsTokenCount": thoughts,
        "totalTokenCount": prompt + out + thoughts,
    }


RECORDING: list[dict[str, Any]] = [
    _record(
        1,
        "system",
        subtype="session_model",
        systemPayload={"modelId": "qwen3-coder-plus", "authType": "qwen-oauth"},
    ),
    _record(2, "user", message={"role": "user", "parts": [{"text": "Fix the failing test"}]}),
    _record(
        3,
        "assistant",
        model="qwen3-coder-plus",
        message={
            "role": "model",
            "parts": [
                {"text": "Run the tests first.", "thought": True},
                {"text": "Running the tests."},
                _call("call_1", "run_shell_command", {"command": "pytest -q"}),
            ],
        },
        usageMetadata=_usage(1200, 30, 12),
    ),
    _record(
        4,
        "tool_result",
        message={
            "role": "user",
            "parts": [_response("call_1", "run_shell_command", {"output": "1 failed"})],
        },
        toolCallResult={"callId": "call_1", "status": "success", "resultDisplay": "1 failed"},
    ),
    _record(
        5,
        "assistant",
        model="qwen3-coder-plus",
        message={
            "role": "model",
            "parts": [
                _call(
                    "call_2",
                    "replace",
                    {"file_path": "/repo/calc.py", "old_string": "a - b", "new_string": "a + b"},
                )
            ],
        },
        usageMetadata=_usage(1500, 40, 0),
    ),
    _record(
        6,
        "tool_result",
        message={
            "role": "user",
            "parts": [_response("call_2", "replace", {"error": "old_string not found"})],
        },
        toolCallResult={
            "callId": "call_2",
            "status": "error",
            "error": {"message": "old_string not found"},
        },
    ),
    _record(
        7,
        "system",
        subtype="ui_telemetry",
        systemPayload={"uiEvent": {"event.name": "qwen-code.api_response"}},
    ),
    _record(
        8,
        "assistant",
        model="qwen3-coder-plus",
        message={
            "role": "model",
            "parts": [{"text": "The edit did not apply; the test still fails."}],
        },
        usageMetadata=_usage(1700, 20, 0),
    ),
]

FIXTURES: dict[str, Any] = {"qwen-code/qwen-session.jsonl": RECORDING}
