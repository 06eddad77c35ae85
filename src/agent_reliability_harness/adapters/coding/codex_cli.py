"""The "codex-cli" format: Codex CLI rollout JSONL (`~/.codex/sessions/**/rollout-*.jsonl`).

One file is one session. `response_item` lines carry the run (messages, calls and
their outputs, paired by call_id); `event_msg` token_count lines carry usage.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..core.base import Adapter
from ..core.common import TraceBuilder, opt_count, opt_obj, opt_str
from ..core.sessions import session_adapter
from ..core.values import set_status
from ._codex_outputs import TEXT_PARTS, parse_output, texts

NAME = "codex-cli"
_LINE_TYPES = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")
# Items that record the session's machinery, not its run: undo snapshots, compaction.
_BOOKKEEPING_ITEMS = ("ghost_snapshot", "compaction", "compaction_summary", "context_compaction")
# Items a model request produces (a message only when the assistant's).
_MODEL_ITEMS = frozenset(
    (
        "message",
        "reasoning",
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "web_search_call",
    )
)
_FAILED = "model request failed"  # the error text of an error that holds no message


class _Exit(NamedTuple):
    """An end event that came before its call's output (or without its call)."""

    failed: bool
    error: str | None
    at: str
    event: dict[str, Any]
    steps: int  # how many steps the trace had when the event was read


def _is_line(line: Any) -> bool:
    return isinstance(line, dict) and line.get("type") in _LINE_TYPES and "payload" in line


def _is_legacy_head(line: Any) -> bool:
    """The first line of rollouts written before the typed lines (mid-2025)."""
    return (
        isinstance(line, dict)
        and "type" not in line
        and isinstance(line.get("id"), str)
        and "timestamp" in line
        and "instructions" in line
    )


def detect_line(first: Any) -> bool:
    """A rollout's first line: `{"timestamp", "type": "session_meta" | ..., "payload"}`
    (or the untyped `{id, timestamp, instructions}` head of older rollouts)."""
    return _is_line(first) or _is_legacy_head(first)


def detect(value: Any) -> bool:
    """A rollout given as a JSON array of its lines."""
    return (
        isinstance(value, list)
        and bool(value)
        and (_is_legacy_head(value[0]) or any(_is_line(v) for v in value[:1000]))
    )


class _Rollout:
    def __init__(self, name_hint: str) -> None:
        self.b = TraceBuilder(NAME, name_hint, agent_name="codex")
        self.calls: dict[str, int] = {}
        self.exits: dict[str, _Exit] = {}  # by call id
        self.turn_start = 0
        self.turn_failed = False  # an error of the current turn (since task_started) is mapped
        self.total: tuple[int, int] | None = None
        # Codex 0.40 writes a request's token_count before the request's items, other
        # versions after them: decided at the first usage, when no model item came yet.
        self.usage_first: bool | None = None
        self.request_items = 0  # model items (reasoning, text, calls) since the last usage
        self.model: str | None = None
        self.meta_seen = False

    def feed(self, at: str, line: Any) -> None:
        b = self.b
        if not isinstance(line, dict):
            b.note(at, "line that is not a JSON object", line)
            return
        if _is_legacy_head(line) and not self.meta_seen:
            self._meta(line, at)
            return
        if "payload" not in line and isinstance(line.get("type"), str):
            line = {"type": "response_item", "payload": line}  # older untyped rollouts
        kind = line.get("type")
        payload = line.get("payload")
        if line.get("record_type") == "state":
            b.skip(at, "state line")
        elif kind == "session_meta" and isinstance(payload, dict):
            self._meta(payload, f"{at}.payload")
        elif kind == "turn_context" and isinstance(payload, dict):
            self.model = opt_str(payload, "model", f"{at}.payload") or self.model
            b.skip(at, "turn_context line")
        elif kind == "compacted":
            b.skip(at, "compacted line (context compaction)")
        elif kind == "response_item" and isinstance(payload, dict):
            self._item(payload, f"{at}.payload")
        elif kind == "event_msg" and isinstance(payload, dict):
            self._event(payload, f"{at}.payload")
        else:
            b.note(at, "line of an unknown kind", line)

    def _meta(self, payload: dict[str, Any], at: str) -> None:
        b = self.b
        if self.meta_seen:
            b.skip(at, "session_meta line (of a resumed or forked session)")
            return
        self.meta_seen = True
        if payload.get("id") is not None:
            b.labels({"trace_id": payload.get("id")}, at)
        for key in ("cwd", "cli_version", "originator", "model_provider", "source"):
            if isinstance(payload.get(key), str):
                b.metadata[key] = payload[key]
        b.mark(at)
        for key in ("base_instructions", "instructions"):
            value = payload.get(key)
            text = value.get("text") if isinstance(value, dict) else value
            if isinstance(text, str) and text:
                b.input("system", text, f"{at}.{key}")

    def _item(self, item: dict[str, Any], at: str) -> None:
        b = self.b
        kind = item.get("type")
        if (
            isinstance(kind, str)
            and kind in _MODEL_ITEMS
            and item.get("role") in (None, "assistant")
        ):
            self.request_items += 1
        if kind == "message":
            self._message(item, at)
        elif kind == "reasoning":
            thoughts = texts(item.get("summary")) + texts(item.get("content"))
            for text in thoughts:
                b.reasoning(text, at)
            if not thoughts:
                b.reasoning(None, at)  # encrypted_content only
        elif kind in ("function_call", "custom_tool_call", "local_shell_call", "web_search_call"):
            self._call(item, kind, at)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self._output(item, at)
        elif kind in _BOOKKEEPING_ITEMS:
            b.skip(at, f"{kind} item")
        else:
            b.note(at, "response item of an unknown kind", item)

    def _message(self, item: dict[str, Any], at: str) -> None:
        role = item.get("role")
        content = item.get("content")
        text = content if isinstance(content, str) else "".join(texts(content))
        noted = len(self.b.notes)
        if isinstance(content, list):
            for index, part in enumerate(content):
                if not (isinstance(part, dict) and part.get("type") in TEXT_PARTS):
                    self.b.note(f"{at}.content[{index}]", "content part that is not text", part)
        if role == "assistant":
            if text:
                self.b.text(text, at, phase=item.get("phase"), model=self.model)
            elif len(self.b.notes) == noted:
                self.b.skip(at, "assistant message without content")
        elif role in ("user", "developer", "system"):
            self.b.input(str(role), text, at)
        else:
            self.b.note(at, "message with an unknown role", item)

    def _call(self, item: dict[str, Any], kind: str, at: str) -> None:
        call_id = opt_str(item, "call_id", at) or opt_str(item, "id", at)
        extra: dict[str, Any] = {"model": self.model}
        if kind == "function_call":
            name, args = opt_str(item, "name", at), item.get("arguments")
        elif kind == "custom_tool_call":
            # A freeform tool (apply_patch) takes one text input, carried as `input`.
            name, args = opt_str(item, "name", at), {"input": item.get("input")}
            extra["freeform"] = True
        else:
            name, args = kind.removesuffix("_call"), opt_obj(item, "action", at)
        index = self.b.call(call_id, name, args, f"{at}.arguments", **extra)
        if call_id:
            self.calls[call_id] = index
        status = item.get("status")
        if kind == "web_search_call" and isinstance(status, str):
            failed = status in ("failed", "incomplete")
            self.b.settle(index, is_error=failed, error=f"status {status}" if failed else None)

    def _output(self, item: dict[str, Any], at: str) -> None:
        call_id = opt_str(item, "call_id", at)
        output, failed, error, seconds = parse_output(item.get("output"))
        paired = self.b.result(call_id, output, at, is_error=failed, error=error)
        index = self.calls.get(call_id or "")
        if not paired or index is None:
            return
        if seconds is not None:
            self.b.measure(index, latency_ms=seconds * 1000)
        exit_event = self.exits.pop(call_id or "", None)
        if exit_event is not None:
            self.b.settle(index, is_error=exit_event.failed, error=exit_event.error)
            self.b.mark(exit_event.at)

    def _event(self, event: dict[str, Any], at: str) -> None:
        kind = event.get("type")
        if kind == "token_count":
            self._tokens(event, at)
        elif kind in ("exec_command_end", "patch_apply_end", "mcp_tool_call_end"):
            self._outcome(event, kind, at)
        elif kind == "turn_aborted":
            self.b.metadata.setdefault("turns_aborted", []).append(event.get("reason"))
            self.b.mark(at)
        elif kind == "error":
            self.turn_failed = self._failed_request(event, event, at) or self.turn_failed
        elif kind in ("task_started", "task_complete"):
            self._turn_edge(event, kind, at)
        else:
            # UI events: they repeat response items (user_message, agent_message,
            # agent_reasoning) or mark the session's progress (context_compacted, ...).
            self.b.skip(at, f"event_msg {kind}")

    def _turn_edge(self, event: dict[str, Any], kind: str, at: str) -> None:
        """A turn starts at task_started and ends at task_complete. A task_complete whose
        `error` is set reports a failed request, unless an `error` event of the turn did."""
        failed, self.turn_failed = self.turn_failed, False
        if kind == "task_complete" and event.get("error") is not None:
            if failed:
                self.b.skip(at, "task_complete repeating the turn's error event")
            else:
                self._failed_request(event, event["error"], f"{at}.error")
        else:
            self.b.skip(at, f"event_msg {kind}")

    def _failed_request(self, event: dict[str, Any], error: Any, at: str) -> bool:
        """The turn's model request failed (a usage limit, an API error): a response step
        without text, status error, so that the session is not judged on a turn it lost."""
        found = _error_of(error, at)
        if found is None:
            self.b.note(at, "error of an unknown shape", event)
            return False
        message, meta = found
        index = self.b.text(None, at, model=self.model, **meta)
        set_status(self.b.steps[index], message, True)
        return True

    def _tokens(self, event: dict[str, Any], at: str) -> None:
        """Usage of one model request. `total_token_usage` is cumulative and repeated
        events carry the same total, so a request's usage is the growth of the total
        (`last_token_usage` when the file has no total)."""
        info = opt_obj(event, "info", at)
        if info is None:
            self.b.skip(at, "token_count without usage (rate limits only)")
            return
        where = f"{at}.info"
        total = opt_obj(info, "total_token_usage", where)
        last = opt_obj(info, "last_token_usage", where)
        if total is not None:
            now = (
                opt_count(total, "input_tokens", f"{where}.total_token_usage") or 0,
                opt_count(total, "output_tokens", f"{where}.total_token_usage") or 0,
            )
            before = self.total or (0, 0)
            self.total = now
            if now[0] >= before[0] and now[1] >= before[1]:
                used: tuple[int | None, int | None] = (now[0] - before[0], now[1] - before[1])
            else:  # the total restarted (a resumed session): this request is `last`
                used = (_count(last, "input_tokens", where), _count(last, "output_tokens", where))
        else:
            used = (_count(last, "input_tokens", where), _count(last, "output_tokens", where))
        if not any(used):
            self.b.skip(at, "token_count repeating the running total")
            return
        if self.usage_first is None:
            self.usage_first = self.request_items == 0 and len(self.b.steps) == self.turn_start
        self.request_items = 0
        if self.usage_first:  # the previous request is over; this usage waits for its step
            self.b.end_turn(model=self.model)
            self.turn_start = len(self.b.steps)
            self.b.tokens(self.turn_start, used[0], used[1], at)
            return
        self.b.tokens(self.turn_start, used[0], used[1], at)
        self.b.end_turn(model=self.model)  # the request is over: its reasoning stays with it
        self.turn_start = len(self.b.steps)

    def _outcome(self, event: dict[str, Any], kind: str, at: str) -> None:
        call_id = opt_str(event, "call_id", at)
        if kind == "exec_command_end":
            code = event.get("exit_code")
            failed = isinstance(code, int) and code != 0
            error = f"exit code {code}" if failed else None
        elif kind == "patch_apply_end":
            failed = event.get("success") is False
            error = (opt_str(event, "stderr", at) or "patch failed") if failed else None
        else:
            result = event.get("result")
            failed = isinstance(result, dict) and "Err" in result
            error = str(result.get("Err")) if failed and isinstance(result, dict) else None
        index = self.calls.get(call_id or "")
        if index is not None and not self.b.is_open(call_id):
            self.b.settle(index, is_error=failed, error=error)  # its output came first
            self.b.mark(at)
        elif call_id:
            self.exits[call_id] = _Exit(failed, error, at, event, len(self.b.steps))
        else:
            self.b.note(at, "command end event without a call id", event)

    def finish(self) -> list[dict[str, Any]]:
        for call_id, pending in self.exits.items():
            index = self.calls.get(call_id)
            if index is None:
                self._orphan_exit(pending)
            else:  # the call never got an output line; how it ended is still known
                self.b.settle(index, is_error=pending.failed, error=pending.error)
                self.b.mark(pending.at)
        self.b.end_turn(model=self.model)
        return [self.b.build()]

    def _orphan_exit(self, pending: _Exit) -> None:
        """Noted at the end (its call might still have come), next to the step that came
        before the event when it was read (else the first step after it)."""
        issue = "command end event of a call the rollout does not hold"
        self.b.note(pending.at, issue, pending.event, after=pending.steps)


def _error_of(error: Any, at: str) -> tuple[str, dict[str, Any]] | None:
    """(message, step metadata) of an error: `{"message", "codex_error_info"}` (an `error`
    event, a task_complete's `error`), the older `{"error": {"kind", "message"}}`, or text."""
    if isinstance(error, str):
        return (error or _FAILED), {}
    if not isinstance(error, dict):
        return None
    nested = error.get("error")
    if isinstance(nested, dict):
        message = opt_str(nested, "message", f"{at}.error")
        return (message or _FAILED), {"error_kind": nested.get("kind")}
    message = opt_str(error, "message", at)
    return (message or _FAILED), {"codex_error_info": error.get("codex_error_info")}


def _count(usage: dict[str, Any] | None, key: str, at: str) -> int | None:
    return opt_count(usage, key, f"{at}.last_token_usage")


ADAPTER: Adapter = session_adapter(
    NAME,
    "Codex CLI rollout JSONL sessions",
    start=_Rollout,
    detect=detect,
    detect_line=detect_line,
)
