"""The "codex-exec" format: the JSON Lines event stream of `codex exec --json`.

Events (codex-rs/exec `ThreadEvent`): `thread.started` {thread_id}, `turn.started`,
`item.started` / `item.updated` / `item.completed` {item}, `turn.completed` {usage},
`turn.failed` {error}, `error` {message}. Items have an id and a type: agent_message,
reasoning, command_execution, file_change, mcp_tool_call, web_search, todo_list, error.
An item is mapped once, from its last event (`item.completed`, else the last one seen);
its earlier events are progress reports of the same item. `turn.completed` usage is the
thread's running total (Codex reports `total_token_usage`): a turn's usage is its growth.
One file is one run (the rollout of the same thread is the "codex-cli" format).
"""

from __future__ import annotations

from typing import Any

from ..core.base import Adapter
from ..core.common import TraceBuilder, opt_count, opt_obj, opt_str
from ..core.sessions import session_adapter
from ..core.values import set_status

NAME = "codex-exec"
_THREAD_EVENTS = ("thread.started", "turn.started", "turn.completed", "turn.failed")
_ITEM_EVENTS = ("item.started", "item.updated", "item.completed")
_CALLS = ("command_execution", "file_change", "mcp_tool_call", "web_search")
_FAILED = ("failed", "declined")


def detect_line(line: Any) -> bool:
    """A line of the stream: its dotted event type (`thread.started`, `item.completed`...)."""
    if not isinstance(line, dict):
        return False
    kind = line.get("type")
    if kind in _ITEM_EVENTS:
        return isinstance(line.get("item"), dict)
    return kind in _THREAD_EVENTS


def detect(value: Any) -> bool:
    """The stream given as a JSON array of its lines."""
    return isinstance(value, list) and bool(value) and any(detect_line(v) for v in value[:1000])


class _Stream:
    def __init__(self, name_hint: str) -> None:
        self.b = TraceBuilder(NAME, name_hint, agent_name="codex")
        # Items by id, in the order first seen: (where, last event's item, events before).
        self.items: dict[str, tuple[str, dict[str, Any], int]] = {}
        self.total: tuple[int, int] | None = None
        self.turn_start = 0

    def feed(self, at: str, line: Any) -> None:
        b = self.b
        kind = line.get("type") if isinstance(line, dict) else None
        if not isinstance(line, dict):
            b.note(at, "line that is not a JSON object", line)
        elif kind in _ITEM_EVENTS and isinstance(line.get("item"), dict):
            self._item_event(line["item"], at)
        elif kind == "thread.started":
            b.labels({"trace_id": line.get("thread_id")}, at)
            b.mark(at)
        elif kind == "turn.started":
            self._flush_items()
            b.skip(at, "turn.started event")
        elif kind == "turn.completed":
            self._flush_items()
            self._usage(line, at)
        elif kind in ("turn.failed", "error"):
            self._flush_items()
            self._failure(line, kind, at)
        else:
            b.note(at, "event of an unknown type", line)

    def _item_event(self, item: dict[str, Any], at: str) -> None:
        key = item.get("id")
        if not isinstance(key, str):
            self.b.note(at, "item without an id", item)
            return
        earlier = self.items.get(key)
        if earlier is None:
            self.items[key] = (at, item, 0)
        else:
            self.items[key] = (earlier[0], item, earlier[2] + 1)

    def _flush_items(self) -> None:
        """Map the turn's items (each from its last event), in the order they started."""
        for at, item, repeats in self.items.values():
            for _ in range(repeats):
                self.b.skip(at, "item event superseded by a later event of the item")
            self._map(item, at)
        self.items.clear()

    def _map(self, item: dict[str, Any], at: str) -> None:
        b = self.b
        kind = item.get("type", item.get("item_type"))  # `item_type` in early 0.4x builds
        if kind == "agent_message":
            b.text(opt_str(item, "text", at), at)
        elif kind == "reasoning":
            b.reasoning(opt_str(item, "text", at), at)
        elif kind in _CALLS:
            self._call(item, str(kind), at)
        elif kind == "todo_list":
            b.metadata["todo_list"] = item.get("items")
            b.mark(at)
        elif kind == "error":
            # A non-fatal error the CLI reported to the user (a warning): not a step.
            b.metadata.setdefault("errors", []).append(item.get("message"))
            b.mark(at)
        else:
            b.note(at, "item of an unknown type", item)

    def _call(self, item: dict[str, Any], kind: str, at: str) -> None:
        b = self.b
        call_id = opt_str(item, "id", at)
        output: Any = None
        error: str | None = None
        name: str | None
        args: Any
        if kind == "command_execution":
            name, args = "shell", {"command": item.get("command")}
            output = item.get("aggregated_output")
            code = item.get("exit_code")
            if isinstance(code, int) and not isinstance(code, bool) and code != 0:
                error = f"exit code {code}"
        elif kind == "file_change":
            name, args = "apply_patch", {"changes": item.get("changes")}
        elif kind == "mcp_tool_call":
            server, tool = opt_str(item, "server", at), opt_str(item, "tool", at)
            name = f"{server}.{tool}" if server and tool else tool
            args = item.get("arguments")
            output = item.get("result")
            failure = opt_obj(item, "error", at)
            if failure is not None:
                error = opt_str(failure, "message", f"{at}.error") or "tool call failed"
        else:
            name, args = "web_search", {"query": item.get("query")}
        index = b.call(call_id, name, args, f"{at}.arguments", item_type=kind)
        status = item.get("status")
        if status in _FAILED and error is None:
            error = f"status {status}"
        if status == "in_progress":
            b.note(at, "tool call that had not finished (status in_progress)", item)
            return
        if kind == "web_search" and status is None:
            b.settle(index)  # the search ran; its results went to the model only
            return
        b.settle(index, output, is_error=error is not None, error=error)

    def _usage(self, line: dict[str, Any], at: str) -> None:
        b = self.b
        usage = opt_obj(line, "usage", at)
        if usage is None:
            b.skip(at, "turn.completed without usage")
            return
        where = f"{at}.usage"
        now = (
            opt_count(usage, "input_tokens", where) or 0,
            opt_count(usage, "output_tokens", where) or 0,
        )
        before = self.total or (0, 0)
        self.total = now
        if now[0] >= before[0] and now[1] >= before[1]:
            used = (now[0] - before[0], now[1] - before[1])
        else:  # the running total restarted (another process's stream): this turn's own
            used = now
        if any(used):
            b.tokens(self.turn_start, used[0], used[1], at)
        else:
            b.skip(at, "turn.completed repeating the running total")
        b.end_turn()
        self.turn_start = len(b.steps)

    def _failure(self, line: dict[str, Any], kind: str, at: str) -> None:
        """A failed turn (or the stream's fatal error): a response step without text,
        status error, so that the run is not judged on a turn it lost."""
        b = self.b
        error = line.get("error") if kind == "turn.failed" else line
        message = error.get("message") if isinstance(error, dict) else None
        if not isinstance(message, str):
            b.note(at, "error of an unknown shape", line)
            return
        last = b.steps[-1] if b.steps else None
        if kind == "turn.failed" and last is not None and last.get("error") == message:
            b.skip(at, "turn.failed repeating the stream's error event")
            return
        index = b.text(None, at, event=kind)
        set_status(b.steps[index], message, True)

    def finish(self) -> list[dict[str, Any]]:
        self._flush_items()
        self.b.end_turn()
        return [self.b.build()]


ADAPTER: Adapter = session_adapter(
    NAME,
    "codex exec --json event streams (thread / turn / item events)",
    start=_Stream,
    detect=detect,
    detect_line=detect_line,
)
