"""`arh guard hook`: one hook event on stdin, the dialect's reply on stdout and in the exit
code. The session's state lives in a file per session (state.py), or in a daemon
(`--server URL`, serve.py). A fault answers by the fail rule (`--fail closed`, the
default: a tool call is denied; `--fail open`: it runs, with a warning), in one line on
stderr, never a traceback; no decision takes longer than `--timeout-ms`."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from .events import Event, EventError, Reply, fail_reply, parse_event

if TYPE_CHECKING:
    from ..engine import Evaluator
    from .api import Guard

__all__ = ["FileSessions", "HookOptions", "Sessions", "handle", "run_hook"]


class HookOptions(msgspec.Struct, frozen=True):
    policy: str
    dialect: str | None = None
    state: str | None = None
    fail_closed: bool = True
    timeout_ms: int = 1000
    record: str | None = None
    approve: bool = False


class Sessions:
    """Where sessions live between events (files here; memory in the daemon)."""

    # Whether --record writes the session at every event (else at closing events only).
    record_each_event = True

    def __init__(self, options: HookOptions, evaluator: Evaluator) -> None:
        self.options = options
        self.evaluator = evaluator

    @contextlib.contextmanager
    def open(self, session_id: str, deadline: float) -> Iterator[Guard]:
        raise NotImplementedError
        yield  # pragma: no cover

    def closed(self, session_id: str, guard: Guard) -> None:
        """A closing event was handled (the daemon saves the session)."""


class FileSessions(Sessions):
    """Each event reads the session's state file under its lock, carries the session on
    from its steps (one pass of the rules), and writes it back atomically."""

    @contextlib.contextmanager
    def open(self, session_id: str, deadline: float) -> Iterator[Guard]:
        from .service import file_name  # noqa: PLC0415
        from .state import default_state_dir, locked  # noqa: PLC0415

        path = Path(self.options.state or default_state_dir()) / f"{file_name(session_id)}.json"
        with locked(path, deadline):
            guard = load_session(path, session_id, self.evaluator)
            yield guard
            save_session(path, guard)


def load_session(path: Path, session_id: str, evaluator: Evaluator) -> Guard:
    from .api import Guard  # noqa: PLC0415
    from .service import head_for  # noqa: PLC0415
    from .state import read_state  # noqa: PLC0415

    state = read_state(path)
    if state is None:
        head = head_for(session_id, evaluator.policy.policy_id)
        return Guard(evaluator.policy, trace=head, evaluator=evaluator)
    trace, pending = state
    return Guard.restore(evaluator, trace, pending)


def save_session(path: Path, guard: Guard) -> None:
    from .state import write_state  # noqa: PLC0415

    write_state(path, guard.trace(), guard.pending())


def handle(sessions: Sessions, dialect: str, event: Event, deadline: float) -> Reply:
    """One parsed event against its session (StateError and the like propagate)."""
    from .service import answer, apply, write_record  # noqa: PLC0415

    options = sessions.options
    if event.kind == "quiet":
        return Reply()
    with sessions.open(event.session_id, deadline) as guard:
        decision = apply(guard, event)
        closing = event.kind == "close"
        if options.record is not None and (closing or sessions.record_each_event):
            write_record(options.record, guard.trace())
        summary = ""
        if closing:
            sessions.closed(event.session_id, guard)
            summary = _summary(guard)
    reply = answer(dialect, event, decision, options.approve)
    return msgspec.structs.replace(reply, stderr=reply.stderr + summary)


def _summary(guard: Guard) -> str:
    report = guard.report()
    verdict = "passed" if report.passed else "failed"
    return (
        f"arh guard: session {report.trace_id}: {verdict}, score {report.score}, "
        f"{len(report.findings)} finding(s)\n"
    )


def _evaluator(policy: str) -> Evaluator:
    from ..engine import Evaluator  # noqa: PLC0415
    from .api import load_guard_policy  # noqa: PLC0415

    return Evaluator(load_guard_policy(policy))


def run_hook(options: HookOptions, text: bytes, server: str | None = None) -> Reply:
    """The reply to one hook input, whatever happens."""
    closed = options.fail_closed
    try:
        dialect, event = parse_event(text, options.dialect)
    except EventError as exc:
        return fail_reply(options.dialect, None, str(exc), closed)
    if server is None:  # the modules a decision needs: process start-up, not the decision
        from . import api, service, state  # noqa: F401, PLC0415
    deadline = time.monotonic() + options.timeout_ms / 1000
    done: list[Reply] = []

    def work() -> None:
        try:
            if server is not None:
                from .client import post  # noqa: PLC0415

                done.append(post(server, text, dialect, options.timeout_ms / 1000))
            else:
                sessions = FileSessions(options, _evaluator(options.policy))
                done.append(handle(sessions, dialect, event, deadline))
        except Exception as exc:
            done.append(fail_reply(dialect, event.name, _fault(exc), closed))

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(options.timeout_ms / 1000)
    if not done:
        message = f"no decision within {options.timeout_ms} ms"
        return fail_reply(dialect, event.name, message, closed)
    return done[0]


def _fault(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
