"""Render scenarios as MCP session logs: the JSON-RPC messages between a client and a server,
built from the `mcp` SDK's types (JSONRPCRequest/Response/Notification/Error, CallToolResult,
ListToolsResult, InitializeResult...) and dumped as the SDK writes them on the wire."""

# The SDKs are an optional test extra: import them only when a fixture is built.
# ruff: noqa: PLC0415

from __future__ import annotations

import json
from typing import Any

from scenarios import LOOKUP, ORDER, Result, Scenario, Turn
from sdk_spans import _output

PROTOCOL = "2025-06-18"


def wire(model: Any) -> Any:
    """A message as the SDK serialises it on the wire (aliases, no unset fields)."""
    value: Any = json.loads(model.model_dump_json(by_alias=True, exclude_none=True))
    return value


class _Log:
    """A session's messages in order, with JSON-RPC ids counted from 1."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.next_id = 0

    def request(self, method: str, params: Any) -> int:
        from mcp.types import JSONRPCRequest

        self.next_id += 1
        self.items.append(
            wire(JSONRPCRequest(jsonrpc="2.0", id=self.next_id, method=method, params=params))
        )
        return self.next_id

    def respond(self, request_id: int, result: Any) -> None:
        from mcp.types import JSONRPCResponse

        body = wire(result) if hasattr(result, "model_dump_json") else result
        self.items.append(wire(JSONRPCResponse(jsonrpc="2.0", id=request_id, result=body)))

    def notify(self, method: str, params: Any = None) -> None:
        from mcp.types import JSONRPCNotification

        self.items.append(wire(JSONRPCNotification(jsonrpc="2.0", method=method, params=params)))

    def fail(self, request_id: int, code: int, message: str) -> None:
        from mcp.types import ErrorData, JSONRPCError

        self.items.append(
            wire(
                JSONRPCError(
                    jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message)
                )
            )
        )


TOOLS = {
    "lookup_order": {
        "type": "object",
        "properties": {"order_id": {"type": "string"}},
        "required": ["order_id"],
    },
    "search_kb": {
        "type": "object",
        "properties": {"query": {"type": "string"}, "top_k": {"type": "integer"}},
        "required": ["query"],
    },
    "issue_refund": {
        "type": "object",
        "properties": {
            "order_id": {"type": "string"},
            "amount": {"type": "number"},
            "currency": {"type": "string"},
        },
    },
}


def _handshake(log: _Log) -> None:
    from mcp.types import (
        Implementation,
        InitializeResult,
        ListToolsResult,
        ServerCapabilities,
        Tool,
        ToolsCapability,
    )

    init = log.request(
        "initialize",
        {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "refund-agent", "version": "1.0"},
        },
    )
    log.respond(
        init,
        InitializeResult(
            protocolVersion=PROTOCOL,
            capabilities=ServerCapabilities(tools=ToolsCapability(listChanged=False)),
            serverInfo=Implementation(name="orders-server", version="2.1.0"),
        ),
    )
    log.notify("notifications/initialized")
    listed = log.request("tools/list", {})
    tools = [
        Tool(name=n, description=f"{n} tool", inputSchema=schema) for n, schema in TOOLS.items()
    ]
    log.respond(listed, ListToolsResult(tools=tools))


def _result(result: Result) -> Any:
    from mcp.types import CallToolResult, TextContent

    parts = result.parts or (result.error or _output(result.output),)
    return CallToolResult(
        content=[TextContent(type="text", text=p) for p in parts], isError=bool(result.error)
    )


def mcp(s: Scenario) -> Any:
    """The handshake, then each turn's calls as tools/call requests; parallel calls are all
    sent before their results, which come back in the scenario's (possibly other) order."""
    log = _Log()
    _handshake(log)
    ids: dict[str, int] = {}
    for event in s.events:
        if isinstance(event, Turn):
            for call in event.calls:
                ids[call.call_id] = log.request(
                    "tools/call", {"name": call.name, "arguments": dict(call.args)}
                )
        else:
            for result in event:
                log.respond(ids[result.call_id], _result(result))
    if s.orphan is not None:
        log.respond(99, _result(s.orphan))
    return log.items


def extras() -> list[tuple[str, Any]]:
    """A JSON Lines session with timestamped wrappers: a JSON-RPC error, a cancelled call,
    progress and log notifications, image and structured content, resources/read, ping."""
    from mcp.types import CallToolResult, ImageContent, TextContent

    log = _Log()
    _handshake(log)
    first = log.request("tools/call", {"name": "lookup_order", "arguments": {"order": 1042}})
    log.fail(first, -32602, "Invalid params: order_id is required")
    second = log.request("tools/call", {"name": "lookup_order", "arguments": LOOKUP})
    log.notify("notifications/progress", {"progressToken": second, "progress": 0.5})
    log.notify("notifications/message", {"level": "warning", "data": "slow upstream"})
    log.respond(
        second,
        CallToolResult(
            content=[TextContent(type="text", text=json.dumps(ORDER))],
            structuredContent=ORDER,
            isError=False,
        ),
    )
    third = log.request("tools/call", {"name": "search_kb", "arguments": {"query": "label"}})
    log.respond(
        third,
        CallToolResult(
            content=[
                TextContent(type="text", text="Shipping label:"),
                ImageContent(type="image", data="iVBORw0KGgo=", mimeType="image/png"),
            ],
            isError=False,
        ),
    )
    fourth = log.request(
        "tools/call",
        {
            "name": "issue_refund",
            "arguments": {"order_id": "ORD-1042", "amount": 25.0, "currency": "USD"},
        },
    )
    log.notify("notifications/cancelled", {"requestId": fourth, "reason": "user aborted"})
    read = log.request("resources/read", {"uri": "orders://ORD-1042/receipt"})
    log.respond(
        read,
        {
            "contents": [
                {
                    "uri": "orders://ORD-1042/receipt",
                    "mimeType": "text/plain",
                    "text": "Receipt total 25.00",
                }
            ]
        },
    )
    ping = log.request("ping", None)
    log.respond(ping, {})
    lines = []
    for n, item in enumerate(log.items):
        direction = (
            "server->client"
            if "result" in item
            or "error" in item
            or item.get("method", "").startswith("notifications/message")
            else "client->server"
        )
        stamp = f"2026-01-15T09:00:{n:02d}.250000+00:00"
        lines.append(json.dumps({"timestamp": stamp, "direction": direction, "message": item}))
    return [("session-errors-cancel.jsonl", ("\n".join(lines) + "\n").encode())]
