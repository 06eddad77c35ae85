"""Fixtures in the shape of Goose sessions (block/goose `Session` and `Message` as its serde
derives write them: camelCase content kinds, `toolCall` / `toolResult` as
`{status: "success", value}` or `{status: "error", error}`)."""

from __future__ import annotations

from typing import Any

_VISIBLE = {"userVisible": True, "agentVisible": True}


def _message(role: str, created: int, *content: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"msg_{created}",
        "role": role,
        "created": created,
        "content": list(content),
        "metadata": _VISIBLE,
    }


def _request(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "toolRequest",
        "id": call_id,
        "toolCall": {"status": "success", "value": {"name": name, "arguments": arguments}},
    }


def _response(call_id: str, text: str, *, is_error: bool = False) -> dict[str, Any]:
    value = {"content": [{"type": "text", "text": text}], "isError": is_error}
    return {
        "type": "toolResponse",
        "id": call_id,
        "toolResult": {"status": "success", "value": value},
    }


CONVERSATION: list[dict[str, Any]] = [
    _message("user", 1740171500, {"type": "text", "text": "Fix the failing test in calc.py"}),
    _message(
        "assistant",
        1740171510,
        {"type": "thinking", "thinking": "Run the tests first.", "signature": "sig"},
        {"type": "text", "text": "Let me run the tests."},
        _request("toolu_1", "developer__shell", {"command": "pytest -q"}),
    ),
    _message("user", 1740171520, _response("toolu_1", "1 failed, 3 passed", is_error=True)),
    _message(
        "assistant",
        1740171530,
        _request(
            "toolu_2",
            "developer__text_editor",
            {
                "command": "str_replace",
                "path": "/repo/calc.py",
                "old_str": "a - b",
                "new_str": "a + b",
            },
        ),
        {
            "type": "toolConfirmationRequest",
            "id": "toolu_2",
            "toolName": "developer__text_editor",
            "arguments": {},
            "prompt": None,
        },
    ),
    _message("user", 1740171540, _response("toolu_2", "The file /repo/calc.py has been edited")),
    _message(
        "assistant",
        1740171550,
        {
            "type": "toolRequest",
            "id": "toolu_3",
            "toolCall": {
                "status": "error",
                "error": "-32602: Could not interpret tool use parameters",
            },
        },
    ),
    _message(
        "user",
        1740171555,
        {
            "type": "toolResponse",
            "id": "toolu_3",
            "toolResult": {
                "status": "error",
                "error": "-32602: Could not interpret tool use parameters",
            },
        },
    ),
    _message("assistant", 1740171560, {"type": "text", "text": "Fixed: add() now adds."}),
]

EXPORT: dict[str, Any] = {
    "id": "20250221_1",
    "working_dir": "/repo",
    "name": "fix calc",
    "user_set_name": False,
    "session_type": "user",
    "created_at": "2025-02-21T20:58:20Z",
    "updated_at": "2025-02-21T20:59:20Z",
    "extension_data": {},
    "total_tokens": 2300,
    "input_tokens": 2000,
    "output_tokens": 300,
    "accumulated_total_tokens": 5150,
    "accumulated_input_tokens": 4700,
    "accumulated_output_tokens": 450,
    "schedule_id": None,
    "recipe": None,
    "user_recipe_values": None,
    "conversation": CONVERSATION,
    "message_count": len(CONVERSATION),
    "provider_name": "anthropic",
    "model_config": None,
}

# The JSONL session files of Goose before its SQLite store: metadata, then a message a line.
_HEAD = {
    "working_dir": "/repo",
    "description": "fix calc",
    "schedule_id": None,
    "message_count": len(CONVERSATION),
    "total_tokens": 2300,
    "input_tokens": 2000,
    "output_tokens": 300,
    "accumulated_total_tokens": None,
    "accumulated_input_tokens": None,
    "accumulated_output_tokens": None,
    "extension_data": {},
}
JSONL: list[dict[str, Any]] = [_HEAD, *CONVERSATION]

FIXTURES: dict[str, Any] = {
    "goose/goose-export.json": EXPORT,
    "goose/goose-session.jsonl": JSONL,
}
