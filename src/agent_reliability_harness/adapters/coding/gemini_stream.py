"""The "gemini-stream" format: gemini-cli headless output, `--output-format stream-json`.

One event per line (gemini-cli `JsonStreamEventType`): `init` {session_id, model},
`message` {role user|assistant, content, delta}, `tool_use` {tool_name, tool_id,
parameters}, `tool_result` {tool_id, status success|error, output, error}, `error`
{severity, message} and `result` {status, error, stats}; every event has a `timestamp`.
Assistant text arrives in `delta` chunks that join into one message. The run's usage is
written once, in `result.stats` (input_tokens counts cached input too; output_tokens
counts no thinking, which only total_tokens holds). A file may hold
several runs appended (one per `init`): each is a trace. A harness that saved the stream
may add its own keys (a `ts`) and write the task prompt as a user message before `init`.
"""

from __future__ import annotations

from typing import Any

from ..core.base import Adapter
from ..core.common import TraceBuilder, opt_count, opt_obj, opt_str
from ..core.sessions import session_adapter
from ..core.values import set_status

NAME = "gemini-stream"
# The keys that make a line an event of this stream, by event type.
_EVENTS: dict[str, tuple[str, ...]] = {
    "init": ("session_id", "model"),
    "message": ("role", "content"),
    "tool_use": ("tool_name", "tool_id"),
    "tool_result": ("tool_id", "status"),
    "error": ("severity", "message"),
    "result": ("status",),
}


def detect_line(line: Any) -> bool:
    """An event line: a stream-json type with its keys, and a timestamp (gemini's
    `timestamp`, or the `ts` a harness added to a line it wrote itself)."""
    if not isinstance(line, dict) or not ("timestamp" in line or "ts" in line):
        return False
    kind = line.get("type")
    keys = _EVENTS.get(kind) if isinstance(kind, str) else None
    if keys is None or not all(k in line for k in keys):
        return False
    if line["type"] == "message":
        return line.get("role") in ("user", "assistant") and isinstance(line.get("content"), str)
    return line["type"] != "result" or "stats" in line or "error" in line


def detect(value: Any) -> bool:
    """The stream given as a JSON array of its lines (an `init` among them)."""
    return (
        isinstance(value, list)
        and bool(value)
        and detect_line(value[0])
        and any(isinstance(v, dict) and v.get("type") == "init" for v in value[:1000])
    )


class _Run:
    """One run of the stream: from its prompt or `init` to its `result`."""

    def __init__(self, name_hint: str) -> None:
        self.b = TraceBuilder(NAME, name_hint, agent_name="gemini-cli")
        self.model: str | None = None
        self.started = False  # its init was read
        self.ended = False  # its result was read
        self.chunks: list[str] = []
        self.chunk_at = ""
        self.first_at = ""  # where its first line is


class _Stream:
    def __init__(self, name_hint: str) -> None:
        self.name_hint = name_hint
        self.runs: list[_Run] = [_Run(name_hint)]

    @property
    def run(self) -> _Run:
        return self.runs[-1]

    def _next_run(self) -> _Run:
        self._flush_text()
        self.runs.append(_Run(self.name_hint))
        return self.run

    def feed(self, at: str, line: Any) -> None:
        if not detect_line(line):
            self.run.b.note(at, "line that is not a stream-json event", line)
            return
        kind = line.get("type")
        if kind == "init" and (self.run.started or self.run.ended):
            self._next_run()
        elif self.run.ended:
            self._next_run()  # what follows a result belongs to the next run
        self.run.first_at = self.run.first_at or at
        if kind == "message" and line.get("role") == "assistant":
            self._chunk(line, at)
            return
        self._flush_text()
        if kind == "init":
            self._init(line, at)
        elif kind == "message" and line.get("role") == "user":
            self.run.b.input("user", opt_str(line, "content", at) or "", at)
        elif kind == "tool_use":
            self._tool_use(line, at)
        elif kind == "tool_result":
            self._tool_result(line, at)
        elif kind == "error":
            self.run.b.metadata.setdefault("errors", []).append(
                {"severity": line.get("severity"), "message": line.get("message")}
            )
            self.run.b.mark(at)
        elif kind == "result":
            self._result(line, at)
        else:
            self.run.b.note(at, "event of an unknown type", line)

    def _init(self, line: dict[str, Any], at: str) -> None:
        run = self.run
        run.started = True
        run.model = opt_str(line, "model", at)
        run.b.labels({"trace_id": line.get("session_id")}, at)
        if run.model is not None:
            run.b.metadata["model"] = run.model
        run.b.mark(at)

    def _chunk(self, line: dict[str, Any], at: str) -> None:
        run = self.run
        text = opt_str(line, "content", at) or ""
        if run.chunks and line.get("delta") is True:
            run.b.mark(at)  # joined with the message's first chunk, whose step it is
            run.chunks.append(text)
            return
        self._flush_text()
        run.chunks, run.chunk_at = [text], at
        if line.get("delta") is not True:
            self._flush_text()

    def _flush_text(self) -> None:
        run = self.run
        if run.chunks:
            run.b.text("".join(run.chunks), run.chunk_at, model=run.model)
            run.chunks = []

    def _tool_use(self, line: dict[str, Any], at: str) -> None:
        run = self.run
        call_id, name = opt_str(line, "tool_id", at), opt_str(line, "tool_name", at)
        run.b.call(call_id, name, line.get("parameters"), f"{at}.parameters", model=run.model)

    def _tool_result(self, line: dict[str, Any], at: str) -> None:
        status = line.get("status")
        failure = opt_obj(line, "error", at)
        error = None
        if status == "error" or failure is not None:
            error = (opt_str(failure, "message", f"{at}.error") if failure else None) or (
                f"status {status}"
            )
        self.run.b.result(
            opt_str(line, "tool_id", at),
            line.get("output"),
            at,
            is_error=None if status not in ("success", "error") else status == "error",
            error=error,
        )

    def _result(self, line: dict[str, Any], at: str) -> None:
        """The run's end: its status (a failed run is a response step with status error),
        its usage and its duration."""
        run = self.run
        b = run.b
        run.ended = True
        failure = opt_obj(line, "error", at)
        if line.get("status") == "error" or failure is not None:
            message = opt_str(failure, "message", f"{at}.error") if failure else None
            index = b.text(None, at, model=run.model, event="result")
            set_status(b.steps[index], message or f"status {line.get('status')}", True)
        else:
            b.mark(at)
        stats = opt_obj(line, "stats", at)
        where = f"{at}.stats"
        if stats is not None:
            for key in ("duration_ms", "tool_calls"):
                if opt_count(stats, key, where) is not None:
                    b.metadata[key] = stats[key]
            inp, out = (
                opt_count(stats, "input_tokens", where),
                opt_count(stats, "output_tokens", where),
            )
            b.tokens(0, inp, _with_thinking(stats, inp, out, where), where)
        b.metadata["status"] = line.get("status")

    def finish(self) -> list[dict[str, Any]]:
        """One trace a run; a later run cut short before its first step (its prompt
        only) is a note of the run before it, never a trace without steps."""
        self._flush_text()
        kept: list[_Run] = []
        for run in self.runs:
            if kept and not run.b.steps and not run.b.notes:
                issue = "run cut short before its first step"
                kept[-1].b.note(run.first_at, issue, {"inputs": run.b.inputs})
                continue
            if not run.ended and run.started:
                run.b.metadata["status"] = "cut short (no result event)"
            kept.append(run)
        return [run.b.build() for run in kept]


def _with_thinking(stats: dict[str, Any], inp: int | None, out: int | None, at: str) -> int | None:
    """The run's output tokens, thinking included: `output_tokens` counts the response
    candidates only, `total_tokens` adds the thoughts (and any tool-use prompt) to
    input and output, so output is total - input when the total covers both."""
    total = opt_count(stats, "total_tokens", at)
    if total is None or inp is None or out is None or total <= inp + out:
        return out
    return total - inp


ADAPTER: Adapter = session_adapter(
    NAME,
    "gemini-cli headless --output-format stream-json event streams",
    start=_Stream,
    detect=detect,
    detect_line=detect_line,
)
