"""Fixtures in the shape of `cursor-agent --print --output-format stream-json` output, as
Cursor documents it (docs/cli/reference/output-format): a `system` init, the `user`
prompt, `thinking` deltas, `assistant` text, `tool_call` lines (`started`, `completed`
with one outcome key under `result`) and the closing `result` line (newer versions add
its `usage`)."""

from __future__ import annotations

from typing import Any

SESSION = "5c2e8f14-7a3b-4d9e-b1c6-0f4a2d8e6b71"
OTHER = "8e1f0a3c-2b7d-4c5e-9a6f-1d3b5c7e9f02"


def _init(session: str) -> dict[str, Any]:
    return {
        "type": "system",
        "subtype": "init",
        "apiKeySource": "login",
        "cwd": "/home/dev/shop",
        "session_id": session,
        "model": "Claude 4 Sonnet",
        "permissionMode": "default",
    }


def _say(role: str, text: str, session: str, **extra: Any) -> dict[str, Any]:
    message = {"role": role, "content": [{"type": "text", "text": text}]}
    return {"type": role, "message": message, "session_id": session, **extra}


def _think(text: str | None, session: str, ms: int) -> dict[str, Any]:
    line: dict[str, Any] = {"type": "thinking", "subtype": "delta" if text else "completed"}
    if text:
        line["text"] = text
    return {**line, "session_id": session, "timestamp_ms": ms}


def _call(
    call_id: str, tool: str, args: dict[str, Any], session: str, result: Any = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"args": args}
    if result is not None:
        body["result"] = result
    return {
        "type": "tool_call",
        "subtype": "started" if result is None else "completed",
        "call_id": call_id,
        "tool_call": {tool: body},
        "model_call_id": "mc-1",
        "session_id": session,
        "timestamp_ms": 1_770_000_000_000,
    }


def _result(text: str, session: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "result",
        "subtype": "success",
        "duration_ms": 9100,
        "duration_api_ms": 9100,
        "is_error": False,
        "result": text,
        "session_id": session,
        "request_id": "req-1",
        **extra,
    }


def run() -> list[dict[str, Any]]:
    """A read, a shell command that fails (exit code 1), a write refused by the user, and
    the answer; reasoning before the first call; the run's usage on its result line."""
    s = SESSION
    read = {"path": "shop/refunds.py"}
    shell = {"command": "pytest -q", "workingDirectory": "/home/dev/shop"}
    write = {"path": "shop/refunds.py", "fileText": "def refund(a): return round(a, 2)\n"}
    failed = {"command": "pytest -q", "exitCode": 1, "stdout": "1 failed", "stderr": ""}
    return [
        _init(s),
        _say("user", "Fix the refund rounding bug.", s),
        _think("The bug is", s, 1),
        _think(" in refunds.py.", s, 2),
        _think(None, s, 3),
        _say("assistant", "Reading the refunds module.", s, model_call_id="mc-1"),
        _call("call_01", "readToolCall", read, s),
        _call("call_01", "readToolCall", read, s, {"success": {"content": "def refund(a): ..."}}),
        _call("call_02", "shellToolCall", shell, s),
        _call("call_02", "shellToolCall", shell, s, {"success": failed, "isBackground": False}),
        _call("call_03", "writeToolCall", write, s),
        _call("call_03", "writeToolCall", write, s, {"rejected": {"reason": "user declined"}}),
        _say("assistant", "The test fails; ", s),
        _say("assistant", "the write was declined.", s),
        _result(
            "Reading the refunds module.The test fails; the write was declined.",
            s,
            usage={"inputTokens": 5200, "outputTokens": 310, "cacheReadTokens": 4000},
        ),
    ]


def parallel() -> list[dict[str, Any]]:
    """Two calls started before either completes (completed in the other order), a
    generic `function` call, a reconnect notice; no usage recorded."""
    s = OTHER
    one, two = {"command": "sleep 2"}, {"command": "sleep 1"}
    fn = {"name": "lookup_order", "arguments": '{"order_id": "A-1"}'}
    return [
        _init(s),
        _say("user", "Run both commands in parallel, then look up order A-1.", s),
        _call("call_11", "shellToolCall", one, s),
        _call("call_12", "shellToolCall", two, s),
        {"type": "connection", "subtype": "reconnecting", "session_id": s, "attempt": 1},
        _call("call_12", "shellToolCall", two, s, {"success": {"exitCode": 0, "stdout": ""}}),
        _call("call_11", "shellToolCall", one, s, {"success": {"exitCode": 0, "stdout": ""}}),
        {**_call("call_13", "function", {}, s), "tool_call": {"function": fn}},
        {
            **_call("call_13", "function", {}, s, {}),
            "tool_call": {"function": {**fn, "result": {"error": {"errorMessage": "no order"}}}},
        },
        _say("assistant", "Both ran; order A-1 was not found.", s),
        _result("Both ran; order A-1 was not found.", s),
    ]


FIXTURES: dict[str, Any] = {
    "cursor-agent/run.jsonl": run(),
    "cursor-agent/parallel.jsonl": parallel(),
    "cursor-agent/run-array.json": run(),
}
