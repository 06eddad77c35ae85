"""The "goose" format: Goose (block/goose) sessions.

Two shapes of one session: the JSON of `goose session export --format json` (a Session
object: `id`, `working_dir`, `name` (formerly `description`), token totals and the
`conversation`, a list of messages), and the JSONL session files of Goose before its
SQLite store (a first line of session metadata with `working_dir` and `message_count`,
then one message a line). A message is `{id, role, created, content, metadata}`; its
content items are typed: `text`, `image`, `toolRequest` (`toolCall`: `{status: "success",
value: {name, arguments}}` or `{status: "error", error}`), `toolResponse` (`toolResult`:
`{status: "success", value}` with MCP content or a CallToolResult, or an error),
`thinking`, `redactedThinking`, and the bookkeeping kinds listed in docs/adapters.md.
Goose records tokens only as session totals (`accumulated_*`): they are the run's totals
(adapters/_totals); the plain figures are the provider's last usage, kept as metadata.
"""

from __future__ import annotations

from typing import Any

from ..core.base import Adapter
from ..core.common import TraceBuilder, content_text, opt_count, opt_list, opt_str
from ..core.sessions import session_adapter
from ..core.totals import RecordedTotals

NAME = "goose"
# Content kinds that carry no run content of their own: a confirmation the user was asked
# for (the call it asks about is its own toolRequest), UI notices.
_BOOKKEEPING = {
    "toolConfirmationRequest": "tool confirmation request (the call is its toolRequest)",
    "actionRequired": "action-required prompt (the call is its toolRequest)",
    "systemNotification": "system notification shown in the UI",
    "conversationCompacted": "conversation-compacted marker",
    "summarizationRequested": "summarization-requested marker",
    "contextLengthExceeded": "context-length-exceeded marker",
}
_HEAD_KEYS = ("working_dir", "message_count")
_TOKENS = ("input_tokens", "output_tokens")


def _is_head(value: Any) -> bool:
    """Session metadata: Goose writes `working_dir` and `message_count` in every version."""
    return isinstance(value, dict) and all(k in value for k in _HEAD_KEYS)


def _is_message(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("role") in ("user", "assistant")
        and isinstance(value.get("content"), list)
        and "created" in value
    )


def detect_line(first: Any) -> bool:
    """A session file's first line: the session metadata."""
    return _is_head(first) and "conversation" not in first


def single(value: Any) -> bool:
    """An exported session: the metadata with its `conversation` of messages."""
    return _is_head(value) and isinstance(value.get("conversation"), list)


def _goose_message(value: Any) -> bool:
    """A message line with evidence only Goose writes: its visibility metadata, or a
    content kind of Goose's own (a toolRequest, a toolResponse)."""
    if not _is_message(value):
        return False
    meta = value.get("metadata")
    if isinstance(meta, dict) and ("userVisible" in meta or "agentVisible" in meta):
        return True
    return any(
        isinstance(item, dict) and item.get("type") in ("toolRequest", "toolResponse")
        for item in value["content"]
    )


def detect(value: Any) -> bool:
    """A session (its lines as an array), an export, or one line of a session file: a
    message line claims no other format (it is refused there, naming Goose)."""
    if isinstance(value, list):
        return bool(value) and detect_line(value[0])
    return single(value) or _goose_message(value)


class _Session:
    def __init__(self, name_hint: str) -> None:
        self.b = TraceBuilder(NAME, name_hint, agent_name="goose")
        self.unparsed: set[str] = set()

    def feed(self, at: str, record: Any) -> None:
        b = self.b
        if _is_head(record):
            self._head(record, at)
            for index, message in enumerate(opt_list(record, "conversation", at)):
                self._message(message, f"{at}.conversation[{index}]")
        elif _is_message(record):
            self._message(record, at)
        else:
            b.note(at, "record that is neither session metadata nor a message", record)

    def _head(self, head: dict[str, Any], at: str) -> None:
        b = self.b
        b.labels({"trace_id": head.get("id")} if isinstance(head.get("id"), str) else {}, at)
        b.mark(at)
        if isinstance(head.get("working_dir"), str):
            b.metadata["cwd"] = head["working_dir"]
        name = head.get("name", head.get("description"))
        if isinstance(name, str) and name:
            b.metadata["session_name"] = name
        # The accumulated totals span the whole session (across compactions): the run's
        # totals. The plain figures are the provider's last usage (one request's context),
        # no run total: kept in the metadata, never counted.
        totals = {k: opt_count(head, f"accumulated_{k}", at) for k in _TOKENS}
        if any(v is not None for v in totals.values()):
            b.recorded_totals(RecordedTotals(at, **totals))
        last = {k: head[k] for k in _TOKENS if opt_count(head, k, at) is not None}
        if last:
            b.metadata["goose_last_usage"] = last

    def _message(self, raw: Any, at: str) -> None:
        b = self.b
        if not _is_message(raw):
            b.note(at, "message that is not a Goose message", raw)
            return
        role = raw["role"]
        texts: list[str] = []
        for index, item in enumerate(raw["content"]):
            where = f"{at}.content[{index}]"
            kind = item.get("type") if isinstance(item, dict) else None
            if kind == "text" and isinstance(item.get("text"), str):
                texts.append(item["text"])
            elif kind in ("toolRequest", "frontendToolRequest"):
                self._flush_text(role, texts, at)
                self._request(item, where)
            elif kind == "toolResponse":
                self._flush_text(role, texts, at)
                self._response(item, where)
            elif kind == "thinking" and role == "assistant":
                b.reasoning(opt_str(item, "thinking", where), where)
            elif kind == "redactedThinking" and role == "assistant":
                b.reasoning(None, where)
            elif isinstance(kind, str) and kind in _BOOKKEEPING:
                b.skip(where, _BOOKKEEPING[kind])
            else:
                b.note(where, "content item of an unknown kind", item)
        self._flush_text(role, texts, at)

    def _flush_text(self, role: str, texts: list[str], at: str) -> None:
        if not texts:
            return
        text = "\n".join(texts)
        texts.clear()
        if role == "assistant":
            self.b.text(text, at)
        else:
            self.b.input("user", text, at)

    def _request(self, item: dict[str, Any], at: str) -> None:
        b = self.b
        call = item.get("toolCall")
        call_id = opt_str(item, "id", at)
        if not isinstance(call, dict):
            b.note(at, "tool request without a toolCall object", item)
            return
        value = call.get("value")
        if call.get("status") == "success" and isinstance(value, dict):
            name = opt_str(value, "name", f"{at}.toolCall.value")
            b.call(call_id, name, value.get("arguments"), f"{at}.toolCall.value.arguments")
            return
        # A call the model wrote that Goose could not parse: no tool ran, and no tool
        # name can be read; it stays visible as a note (its error reply is skipped).
        b.note(at, "tool call Goose could not parse (no tool ran)", call.get("error"))
        if call_id is not None:
            self.unparsed.add(call_id)

    def _response(self, item: dict[str, Any], at: str) -> None:
        b = self.b
        result = item.get("toolResult")
        call_id = opt_str(item, "id", at)
        if not isinstance(result, dict):
            b.note(at, "tool response without a toolResult object", item)
            return
        if call_id in self.unparsed and not b.is_open(call_id):
            b.skip(at, "error reply to a tool call Goose could not parse (noted there)")
            return
        if result.get("status") != "success":
            error = str(result.get("error") or "tool call failed")
            b.result(call_id, None, at, error=error, is_error=True)
            return
        value = result.get("value")
        failed = None
        if isinstance(value, dict):  # a CallToolResult: {content, isError, structuredContent}
            failed = value.get("isError") is True
            value = value.get("content")
        output = content_text(value, f"{at}.toolResult.value", b, "\n", what="tool output")
        b.result(call_id, output, at, is_error=failed is True)

    def finish(self) -> list[dict[str, Any]]:
        return [self.b.build()]


ADAPTER: Adapter = session_adapter(
    NAME,
    "Goose sessions (goose session export --format json, and the older JSONL files)",
    start=_Session,
    detect=detect,
    detect_line=detect_line,
    single=single,
)
