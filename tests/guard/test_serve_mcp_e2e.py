"""`arh guard serve` over HTTP on 127.0.0.1 (an ephemeral port), `arh guard hook --server`
as its thin client, and `arh guard mcp` around a small stdio MCP server written here: the
server never receives a denied call, and everything else passes byte for byte."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from guard_e2e import SAFETY, arh, env, post, pre, run, write_policy

LOOKUP = {"order_id": "A1"}
REFUND = {"order_id": "A1", "amount": 5}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    policy = write_policy(tmp_path)
    state = tmp_path / "state"
    process = subprocess.Popen(
        arh("guard", "serve", "--policy", policy, "--port", "0", "--state", str(state)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env(),
        text=True,
    )
    assert process.stderr is not None
    line = process.stderr.readline()  # the server says where it listens once it does
    assert line.startswith("arh guard: listening on http://127.0.0.1:"), line
    try:
        yield line.rsplit(" ", 1)[1].strip(), state
    finally:
        process.terminate()
        process.wait(timeout=SAFETY)
        process.stderr.close()


def _post(
    url: str, event: dict[str, Any], dialect: str = "claude-code"
) -> tuple[str, dict[str, str]]:
    request = urllib.request.Request(
        f"{url}/hook/{dialect}", data=json.dumps(event).encode(), method="POST"
    )
    with urllib.request.urlopen(request, timeout=SAFETY) as response:
        return response.read().decode(), dict(response.headers)


def test_serve_decides_over_http_with_state_across_events(server: tuple[str, Path]) -> None:
    url, state = server
    body, _ = _post(url, pre("h", "refund", REFUND, "c1"))
    denied = json.loads(body)["hookSpecificOutput"]
    assert (
        denied["permissionDecision"] == "deny"
        and "ARH-SEQ-008" in denied["permissionDecisionReason"]
    )
    assert _post(url, pre("h", "lookup_order", LOOKUP, "c2"))[0] == ""
    _post(url, post("h", "lookup_order", LOOKUP, "c2", "found"))
    other, _ = _post(url, pre("other", "refund", REFUND, "c9"))
    assert "ARH-SEQ-008" in other
    codex, headers = _post(url, {**pre("h", "delete_account", {}, "c3"), "turn_id": "t"}, "codex")
    assert codex == "" and headers["X-Arh-Exit-Code"] == "2"
    assert "ARH-SEQ-002" in json.loads(headers["X-Arh-Stderr"])
    _post(url, {"hook_event_name": "SessionEnd", "session_id": "h"})
    saved = json.loads((state / "h.json").read_text(encoding="utf-8"))
    assert [s["step_id"] for s in saved["trace"]["steps"]] == ["c1", "c2", "c3"]


def test_malformed_input_over_http(server: tuple[str, Path]) -> None:
    url, _ = server
    request = urllib.request.Request(f"{url}/hook", data=b"{nope", method="POST")
    with urllib.request.urlopen(request, timeout=SAFETY) as response:
        assert response.headers["X-Arh-Exit-Code"] == "2"
        assert json.loads(response.headers["X-Arh-Stderr"]).startswith("error: arh guard:")


def test_hook_server_is_a_thin_client(server: tuple[str, Path], tmp_path: Path) -> None:
    url, _ = server
    policy = str(tmp_path / "policy.json")
    command = arh("guard", "hook", "--policy", policy, "--server", url, "--timeout-ms", "60000")
    denied = run(command, pre("t", "refund", REFUND, "c1"))
    assert denied.returncode == 0
    assert json.loads(denied.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    codex = run([*command, "--dialect", "codex"], pre("t", "delete_account", {}, "c2"))
    assert codex.returncode == 2 and "ARH-SEQ-002" in codex.stderr


def test_serve_refuses_a_policy_that_does_not_load(tmp_path: Path) -> None:
    done = subprocess.run(
        arh("guard", "serve", "--policy", str(tmp_path / "none.json"), "--port", "0"),
        capture_output=True,
        text=True,
        env=env(),
        timeout=SAFETY,
        check=False,
    )
    assert done.returncode == 1 and done.stderr.startswith("error: arh guard serve:")


MCP_SERVER = r"""
import json, sys
log = open(sys.argv[1], "a", encoding="utf-8")
for line in sys.stdin:
    log.write(line)
    log.flush()
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message["method"]
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "tiny", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
    else:
        text = json.dumps(message["params"].get("arguments"))
        result = {"content": [{"type": "text", "text": text}]}
    # spaced oddly on purpose: the proxy must pass these bytes on unchanged
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result},
                                separators=(" ,", ":  ")) + "\n")
    sys.stdout.flush()
"""


def test_mcp_proxy_denies_calls_the_server_never_sees(tmp_path: Path) -> None:
    policy = write_policy(tmp_path)
    script = tmp_path / "tiny_server.py"
    script.write_text(MCP_SERVER, encoding="utf-8")
    log = tmp_path / "server.log"
    record = tmp_path / "record"
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "hi"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "delete_account", "arguments": {}},
        },
        {
            "jsonrpc": "2.0",
            "id": "five",
            "method": "tools/call",
            "params": {"name": "refund", "arguments": REFUND},
        },
    ]
    sent = "".join(json.dumps(m) + "\n" for m in messages)
    command = arh(
        "guard",
        "mcp",
        "--policy",
        policy,
        "--record",
        str(record),
        "--",
        sys.executable,
        str(script),
        str(log),
    )
    done = subprocess.run(
        command, input=sent, capture_output=True, text=True, env=env(), timeout=SAFETY, check=False
    )
    assert done.returncode == 0, done.stderr
    replies = {json.loads(line)["id"]: line for line in done.stdout.splitlines()}
    assert set(replies) == {1, 2, 3, 4, "five"}
    assert replies[3].startswith('{"jsonrpc":  "2.0" ,"id":  3 ,')  # the server's own bytes
    for denied, rule in ((4, "ARH-SEQ-002"), ("five", "ARH-SEQ-008")):
        result = json.loads(replies[denied])["result"]
        assert result["isError"] is True and rule in result["content"][0]["text"]
    received = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [m.get("id") for m in received] == [1, None, 2, 3]
    assert log.read_text(encoding="utf-8") == "".join(sent.splitlines(keepends=True)[:4])
    (recorded,) = record.iterdir()
    steps = json.loads(recorded.read_text(encoding="utf-8"))["steps"]
    assert [(s["tool_name"], s["status"]) for s in steps] == [
        ("echo", "ok"),
        ("delete_account", "error"),
        ("refund", "error"),
    ]


def test_serve_replies_without_waiting_on_nagle() -> None:
    """A reply is written as headers then body: with Nagle's algorithm on, the body of
    every keep-alive reply waits for the client's delayed ACK (about 40 ms: the daemon's
    p99 was 44.7 ms before). socketserver sets TCP_NODELAY when the handler asks."""
    from agent_reliability_harness.guard.serve import make_server  # noqa: PLC0415

    server = make_server(None, 0)  # type: ignore[arg-type]
    try:
        assert server.RequestHandlerClass.disable_nagle_algorithm is True  # type: ignore[attr-defined]
    finally:
        server.server_close()
