"""The "gemini-cli" format: gemini-cli chat recordings (`~/.gemini/tmp/<project>/chats/`).

Either one JSON conversation record (`{sessionId, projectHash, messages}`) or the JSONL
log that replays into one: message records (a later record of an id replaces it),
`$set` metadata updates and `$rewindTo` rewinds. One file is one session.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ._cli_common import array_entries, line_entries, text_of
from ._common import (
    TraceBuilder,
    add_counts,
    fail,
    obj,
    opt_count,
    opt_list,
    opt_obj,
    opt_str,
)
from .base import Adapter

NAME = "gemini-cli"
_NOTICES = ("info", "warning", "error")
_FINISHED = {"success": False, "error": True, "cancelled": True}  # status -> failed


def _is_header(value: Any) -> bool:
    return isinstance(value, dict) and "sessionId" in value and "projectHash" in value


def detect_line(first: Any) -> bool:
    """A recording's first line: the session header (`sessionId` and `projectHash`)."""
    return _is_header(first)


def detect(value: Any) -> bool:
    """A conversation record, or a JSONL recording given as an array of its lines."""
    if isinstance(value, list):
        return bool(value) and _is_header(value[0])
    return _is_header(value) and isinstance(value.get("messages"), list)


def convert(value: Any, name_hint: str) -> list[Any]:
    if isinstance(value, list):
        return _session(array_entries(value), name_hint)
    if not _is_header(value):
        raise fail("$", "expected a gemini-cli conversation record (sessionId, projectHash)")
    return _session(iter([("$", value)]), name_hint)


def convert_lines(lines: Iterable[tuple[int, Any]], name_hint: str) -> list[Any]:
    return _session(line_entries(lines), name_hint)


def _session(entries: Iterator[tuple[str, Any]], name_hint: str) -> list[Any]:
    replay = _Replay(TraceBuilder(NAME, name_hint, agent_name="gemini-cli"))
    for at, record in entries:
        replay.feed(at, record)
    return [replay.finish()]


class _Replay:
    """The conversation as gemini-cli rebuilds it when it resumes a session."""

    def __init__(self, b: TraceBuilder) -> None:
        self.b = b
        self.messages: dict[str, tuple[str, dict[str, Any]]] = {}

    def feed(self, at: str, record: Any) -> None:
        b = self.b
        if not isinstance(record, dict):
            b.note(at, "record that is not a JSON object", record)
        elif isinstance(record.get("$rewindTo"), str):
            self._rewind(record["$rewindTo"], at)
        elif isinstance(record.get("$set"), dict):
            update = record["$set"]
            if isinstance(update.get("messages"), list):
                self._checkpoint(update["messages"], f"{at}.$set.messages")
            self._metadata(update)
            b.skip(at, "metadata update record ($set)")
        elif _is_header(record):
            self._metadata(record)
            for index, message in enumerate(opt_list(record, "messages", at)):
                self._message(message, f"{at}.messages[{index}]")
        elif "id" in record and "type" in record:
            self._message(record, at)
        else:
            b.note(at, "record of an unknown kind", record)

    def _metadata(self, record: dict[str, Any]) -> None:
        b = self.b
        session = record.get("sessionId")
        if isinstance(session, str) and session and b.trace_id is None:
            b.trace_id = session
        for key in ("projectHash", "summary", "kind"):
            if isinstance(record.get(key), str):
                b.metadata[key] = record[key]

    def _message(self, raw: Any, at: str) -> None:
        message = obj(raw, at)
        key = opt_str(message, "id", at) or at
        self.messages[key] = (at, message)  # a later record of an id keeps its place

    def _rewind(self, target: str, at: str) -> None:
        keys = list(self.messages)
        start = keys.index(target) if target in keys else 0
        for key in keys[start:]:
            where, message = self.messages.pop(key)
            self.b.note(where, f"message removed by a rewind ({at})", message)

    def _checkpoint(self, messages: list[Any], at: str) -> None:
        kept = {m["id"] for m in messages if isinstance(m, dict) and isinstance(m.get("id"), str)}
        for key, (where, message) in list(self.messages.items()):
            if key not in kept:
                self.b.note(where, f"message dropped by a checkpoint ({at})", message)
        self.messages.clear()
        for index, message in enumerate(messages):
            self._message(message, f"{at}[{index}]")

    def finish(self) -> dict[str, Any]:
        for at, message in self.messages.values():
            kind = message.get("type")
            if kind == "user":
                self._user(message, at)
            elif kind == "gemini":
                self._gemini(message, at)
            elif kind in _NOTICES:
                self.b.skip(at, f"{kind} message (a notice the CLI showed)")
            else:
                self.b.note(at, "message of an unknown type", message)
        return self.b.build()

    def _user(self, message: dict[str, Any], at: str) -> None:
        text = text_of(message.get("content"))
        if text is None:
            self.b.note(f"{at}.content", "user content that is not text", message.get("content"))
        elif text:
            self.b.input("user", text, at)

    def _gemini(self, message: dict[str, Any], at: str) -> None:
        b = self.b
        start = len(b.steps)
        meta: dict[str, Any] = {"model": opt_str(message, "model", at)}
        thoughts = [t for t in opt_list(message, "thoughts", at) if isinstance(t, dict)]
        if thoughts:
            meta["reasoning"] = [
                " ".join(str(t[k]) for k in ("subject", "description") if t.get(k))
                for t in thoughts
            ]
        content = message.get("content")
        text = text_of(content)
        if text is None and content is not None:
            b.note(f"{at}.content", "model content that is not text", content)
        calls = opt_list(message, "toolCalls", at)
        if text or not calls:
            b.text(text or None, at, **meta)
            meta = {"model": meta["model"]}
        for index, raw in enumerate(calls):
            self._tool_call(obj(raw, f"{at}.toolCalls[{index}]"), f"{at}.toolCalls[{index}]", meta)
            meta = {"model": meta["model"]}
        tokens = opt_obj(message, "tokens", at)
        where = f"{at}.tokens"
        b.tokens(
            start,
            add_counts(opt_count(tokens, "input", where), opt_count(tokens, "tool", where)),
            add_counts(opt_count(tokens, "output", where), opt_count(tokens, "thoughts", where)),
            at,
        )

    def _tool_call(self, call: dict[str, Any], at: str, meta: dict[str, Any]) -> None:
        b = self.b
        call_id = opt_str(call, "id", at)
        name = opt_str(call, "name", at)
        b.call(call_id, name, call.get("args"), f"{at}.args", **meta)
        status = call.get("status")
        if not isinstance(status, str) or status not in _FINISHED:
            b.note(at, f"tool call that had not finished (status {status})", call)
            return
        output, error = self._response(call.get("result"), f"{at}.result")
        failed = _FINISHED[status] or error is not None
        if failed and error is None:
            display = call.get("resultDisplay")
            error = display if isinstance(display, str) and display else f"status {status}"
        b.result(call_id, output, at, is_error=failed, error=error if failed else None, name=name)

    def _response(self, result: Any, at: str) -> tuple[Any, str | None]:
        """The output (`response.output`, else the whole response) and error of a result."""
        parts = result if isinstance(result, list) else [] if result is None else [result]
        outputs: list[Any] = []
        error: str | None = None
        for index, part in enumerate(parts):
            response = None
            if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict):
                response = part["functionResponse"].get("response")
            if isinstance(response, dict):
                if response.get("error") is not None:
                    error = str(response["error"])
                outputs.append(response.get("output", response))
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                outputs.append(part["text"])
            else:
                self.b.note(f"{at}[{index}]", "result part that is not a function response", part)
        if len(outputs) == 1:
            return outputs[0], error
        return (outputs or None), error


ADAPTER = Adapter(
    name=NAME,
    description="gemini-cli chat recordings (conversation JSON or session JSONL)",
    detect=detect,
    convert=convert,
    detect_line=detect_line,
    convert_lines=convert_lines,
)
