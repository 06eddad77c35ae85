"""`arh guard mcp --policy P -- <server command...>`: a stdio MCP server run as a child,
with the guard between client and server. Messages are newline-delimited JSON-RPC; each
line passes through unchanged, byte for byte, except a `tools/call` request the guard
denies: the server never sees it, and the client gets a result with `isError: true` and
the reason as text. Results of allowed calls are recorded as their outcomes; the session
is written to --record at the end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from typing import IO, TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from .api import Guard

__all__ = ["Proxy", "proxy"]


class Proxy:
    """The two directions of one proxied session, sharing the guard and stdout."""

    def __init__(self, guard: Guard, client_out: IO[bytes], server_in: IO[bytes]) -> None:
        self.guard = guard
        self.out = client_out
        self.server_in = server_in
        self.lock = threading.Lock()  # the guard and the client's stdout
        self.calls: dict[str, str] = {}  # JSON-RPC id (as JSON text) -> step id

    def from_client(self, line: bytes) -> None:
        """A line from the client: forwarded, or answered when it is a denied call."""
        message = _decode(line)
        if isinstance(message, dict) and message.get("method") == "tools/call":
            denial = self._decide(message)
            if denial is not None:
                self._to_client(denial)
                return
        elif isinstance(message, list) and any(_is_call(m) for m in message):
            line = self._batch(message)
            if not line:
                return
        self.server_in.write(line)
        self.server_in.flush()

    def _decide(self, message: dict[str, Any]) -> bytes | None:
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        name = params.get("name")
        arguments = params.get("arguments")
        key = json.dumps(message.get("id"))
        with self.lock:
            decision = self.guard.before(
                name if isinstance(name, str) else None,
                arguments if isinstance(arguments, dict) else None,
                step_id=f"mcp-{key}",
            )
            if decision.allowed:
                self.calls[key] = decision.step_id
                return None
        result = {
            "content": [{"type": "text", "text": f"denied by arh guard: {decision.reason}"}],
            "isError": True,
        }
        reply = {"jsonrpc": "2.0", "id": message.get("id"), "result": result}
        return json.dumps(reply).encode() + b"\n"

    def _batch(self, batch: list[Any]) -> bytes:
        """A JSON-RPC batch: each call decided, the denied ones answered, the rest sent on
        as a batch (re-encoded: the one case where a line is not passed on byte for byte)."""
        kept = []
        for message in batch:
            denial = self._decide(message) if _is_call(message) else None
            if denial is None:
                kept.append(message)
            else:
                self._to_client(denial)
        return json.dumps(kept).encode() + b"\n" if kept else b""

    def from_server(self, line: bytes) -> None:
        """A line from the server: forwarded unchanged; a call's result recorded."""
        message = _decode(line)
        if isinstance(message, dict) and "id" in message and "method" not in message:
            key = json.dumps(message.get("id"))
            with self.lock:
                step_id = self.calls.pop(key, None)
                if step_id is not None:
                    self._outcome(step_id, message)
        self._to_client(line)

    def _outcome(self, step_id: str, message: dict[str, Any]) -> None:
        error = message.get("error")
        result = message.get("result")
        if isinstance(error, dict):
            self.guard.after(step_id, error=str(error.get("message") or "error"))
        elif isinstance(result, dict) and result.get("isError") is True:
            self.guard.after(step_id, output=result, error="the tool returned isError")
        else:
            self.guard.after(step_id, output=result)

    def _to_client(self, data: bytes) -> None:
        with self.lock:
            self.out.write(data)
            self.out.flush()


def _is_call(message: Any) -> bool:
    return isinstance(message, dict) and message.get("method") == "tools/call"


def _decode(line: bytes) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


def proxy(policy: str, command: list[str], record: str | None, err: TextIO) -> int:
    """Run the server behind the guard until the client closes stdin; the server's exit
    code. A policy that does not load: refuse to start (exit 1)."""
    from .hook import _evaluator  # noqa: PLC0415
    from .service import head_for, write_record  # noqa: PLC0415

    try:
        evaluator = _evaluator(policy)
    except Exception as exc:
        err.write(f"error: arh guard mcp: {str(exc).splitlines()[0]}\n")
        return 1
    from .api import Guard  # noqa: PLC0415

    session = f"mcp-{command[0].rsplit('/', 1)[-1]}-{os.getpid()}"
    guard = Guard(evaluator.policy, trace=head_for(session, evaluator.policy.policy_id))
    try:
        child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    except OSError as exc:
        err.write(f"error: arh guard mcp: cannot run {command[0]}: {exc.strerror}\n")
        return 1
    assert child.stdin is not None and child.stdout is not None
    relay = Proxy(guard, sys.stdout.buffer, child.stdin)
    reader = threading.Thread(target=_pump, args=(child.stdout, relay.from_server), daemon=True)
    reader.start()
    try:
        _pump(sys.stdin.buffer, relay.from_client)
    except BrokenPipeError:
        pass
    finally:
        child.stdin.close()
    code = child.wait()
    reader.join()
    if record is not None:
        write_record(record, guard.trace())
    return code


def _pump(source: IO[bytes], sink: Any) -> None:
    for line in iter(source.readline, b""):
        sink(line)
