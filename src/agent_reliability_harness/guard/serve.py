"""`arh guard serve`: hook events answered over HTTP on 127.0.0.1 only, sessions kept in
memory (a decision is one probe of the rules' live state: no state file is read), and in
--state at each closing event and at shutdown, so that a restart carries them on.

POST /hook/<dialect> (or /hook, dialect detected) with the event JSON: the body of the
reply is the hook's stdout; `X-Arh-Exit-Code` and `X-Arh-Stderr` (a JSON string) carry
the rest, for `arh guard hook --server URL`."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .events import DIALECTS, EventError, Reply, fail_reply, parse_event
from .hook import HookOptions, Sessions, handle, load_session, save_session

if TYPE_CHECKING:
    from ..engine import Evaluator
    from .api import Guard

__all__ = ["MemorySessions", "make_server", "serve"]

LOOPBACK = "127.0.0.1"
_MAX_BODY = 16 * 1024 * 1024


class MemorySessions(Sessions):
    """Sessions by id, each with its own lock (two events of one session at once are
    decided one after the other; other sessions are not held up)."""

    record_each_event = False

    def __init__(self, options: HookOptions, evaluator: Evaluator) -> None:
        super().__init__(options, evaluator)
        self.guards: dict[str, tuple[Guard, threading.Lock]] = {}
        self.lock = threading.Lock()

    def _path(self, session_id: str) -> Path | None:
        from .service import file_name  # noqa: PLC0415

        state = self.options.state
        return None if state is None else Path(state) / f"{file_name(session_id)}.json"

    @contextlib.contextmanager
    def open(self, session_id: str, deadline: float) -> Iterator[Guard]:
        with self.lock:
            held = self.guards.get(session_id)
            if held is None:
                held = self.guards[session_id] = (self._load(session_id), threading.Lock())
        with held[1]:
            yield held[0]

    def _load(self, session_id: str) -> Guard:
        from .api import Guard  # noqa: PLC0415
        from .service import head_for  # noqa: PLC0415

        path = self._path(session_id)
        if path is not None:
            return load_session(path, session_id, self.evaluator)
        head = head_for(session_id, self.evaluator.policy.policy_id)
        return Guard(self.evaluator.policy, trace=head, evaluator=self.evaluator)

    def closed(self, session_id: str, guard: Guard) -> None:
        path = self._path(session_id)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            save_session(path, guard)

    def save_all(self) -> None:
        for session_id, (guard, lock) in list(self.guards.items()):
            with lock:
                self.closed(session_id, guard)


def make_server(sessions: MemorySessions, port: int) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: every reply has a Content-Length
        # Headers and body are two writes: with Nagle's algorithm the body waits for the
        # client's delayed ACK of the headers (~40 ms on loopback), on keep-alive replies.
        disable_nagle_algorithm = True

        def do_POST(self) -> None:
            start = time.thread_time_ns()
            reply = self._reply()
            self._answer(reply, (time.thread_time_ns() - start) // 1000)

        def _reply(self) -> Reply:
            parts = self.path.strip("/").split("/")
            dialect = parts[1] if len(parts) == 2 and parts[0] == "hook" else None
            if (
                parts[0] != "hook"
                or len(parts) > 2
                or (len(parts) == 2 and dialect not in DIALECTS)
            ):
                return Reply("", f"error: arh guard: no such endpoint {self.path}\n", 2)
            length = int(self.headers.get("Content-Length") or 0)
            if not 0 < length <= _MAX_BODY:
                return fail_reply(dialect, None, "empty or oversized hook input", True)
            body = self.rfile.read(length)
            try:
                found, event = parse_event(body, dialect)
            except EventError as exc:
                return fail_reply(dialect, None, str(exc), True)
            try:
                return handle(sessions, found, event, float("inf"))
            except Exception as exc:
                return fail_reply(found, event.name, str(exc).splitlines()[0], True)

        def _answer(self, reply: Reply, cpu_us: int) -> None:
            body = reply.stdout.encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("X-Arh-Exit-Code", str(reply.code))
            self.send_header("X-Arh-Stderr", json.dumps(reply.stderr))
            self.send_header("X-Arh-Decision-Cpu-Us", str(cpu_us))  # this request's CPU time
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    return ThreadingHTTPServer((LOOPBACK, port), Handler)


def serve(options: HookOptions, port: int, err: TextIO) -> int:
    """Run until interrupted; a policy that does not load: refuse to start (exit 1)."""
    from .hook import _evaluator  # noqa: PLC0415

    try:
        evaluator = _evaluator(options.policy)
    except Exception as exc:
        err.write(f"error: arh guard serve: {str(exc).splitlines()[0]}\n")
        return 1
    sessions = MemorySessions(options, evaluator)
    try:
        server = make_server(sessions, port)
    except OSError as exc:
        err.write(f"error: arh guard serve: cannot listen on {LOOPBACK}:{port}: {exc.strerror}\n")
        return 1
    err.write(f"arh guard: listening on http://{LOOPBACK}:{server.server_address[1]}\n")
    err.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        sessions.save_all()
    return 0
