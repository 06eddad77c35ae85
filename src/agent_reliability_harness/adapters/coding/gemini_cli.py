"""The "gemini-cli" format: gemini-cli chat recordings (`~/.gemini/tmp/<project>/chats/`).

Either one JSON conversation record (`{sessionId, projectHash, messages}`) or the JSONL
log that replays into one: message records (a later record of an id replaces it),
`$set` metadata updates and `$rewindTo` rewinds. One file is one session.
"""

from __future__ import annotations

from typing import Any

from ..core.base import Adapter
from ..core.common import (
    TraceBuilder,
    add_counts,
    content_text,
    obj,
    opt_count,
    opt_list,
    opt_obj,
    opt_str,
)
from ..core.sessions import session_adapter

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


class _Replay:
    """The conversation as gemini-cli rebuilds it when it resumes a session."""

    def __init__(self, name_hint: str) -> None:
        self.b = TraceBuilder(NAME, name_hint, agent_name="gemini-cli")
        self.messages: dict[str, tuple[str, dict[str, Any]]] = {}
        self.labelled = False

    def feed(self, at: str, record: Any) -> None:
        b = self.b
        if not isinstance(record, dict):
            b.note(at, "record that is not a JSON object", record)
        elif isinstance(record.get("$rewindTo"), str):
            self._rewind(record["$rewindTo"], at)
            b.skip(at, "rewind record ($rewindTo)")
        elif isinstance(record.get("$set"), dict):
            update = record["$set"]
            if isinstance(update.get("messages"), list):
                self._checkpoint(update["messages"], f"{at}.$set.messages")
            self._metadata(update, at)
            b.skip(at, "metadata update record ($set)")
        elif _is_header(record):
            self._metadata(record, at)
            b.mark(at)
            for index, message in enumerate(opt_list(record, "messages", at)):
                self._message(message, f"{at}.messages[{index}]")
        elif "id" in record and "type" in record:
            self._message(record, at)
        else:
            b.note(at, "record of an unknown kind", record)

    def _metadata(self, record: dict[str, Any], at: str) -> None:
        b = self.b
        if record.get("sessionId") is not None and not self.labelled:
            self.labelled = True
            b.labels({"trace_id": record.get("sessionId")}, at)
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

    def finish(self) -> list[dict[str, Any]]:
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
        return [self.b.build()]

    def _user(self, message: dict[str, Any], at: str) -> None:
        content = message.get("content")
        text = content_text(content, f"{at}.content", self.b, "\n", what="user content")
        if text is not None or content is None:
            self.b.input("user", text or "", at)

    def _gemini(self, message: dict[str, Any], at: str) -> None:
        b = self.b
        start = len(b.steps)
        model = opt_str(message, "model", at)
        for index, thought in enumerate(opt_list(message, "thoughts", at)):
            if isinstance(thought, dict):
                said = " ".join(
                    str(thought[k]) for k in ("subject", "description") if thought.get(k)
                )
                b.reasoning(said, f"{at}.thoughts[{index}]")
            else:
                b.note(f"{at}.thoughts[{index}]", "thought that is not an object", thought)
        content = message.get("content")
        text = content_text(content, f"{at}.content", b, what="model content")
        calls = opt_list(message, "toolCalls", at)
        if text or not calls:
            b.text(text or None, at, model=model)
        for index, raw in enumerate(calls):
            where = f"{at}.toolCalls[{index}]"
            self._tool_call(obj(raw, where), where, model)
        tokens = opt_obj(message, "tokens", at)
        where = f"{at}.tokens"
        b.tokens(
            start,
            add_counts(opt_count(tokens, "input", where), opt_count(tokens, "tool", where)),
            add_counts(opt_count(tokens, "output", where), opt_count(tokens, "thoughts", where)),
            at,
        )
        b.end_turn(model=model)

    def _tool_call(self, call: dict[str, Any], at: str, model: str | None) -> None:
        b = self.b
        call_id = opt_str(call, "id", at)
        name = opt_str(call, "name", at)
        index = b.call(call_id, name, call.get("args"), f"{at}.args", model=model)
        status = call.get("status")
        if not isinstance(status, str) or status not in _FINISHED:
            b.note(at, f"tool call that had not finished (status {status})", call)
            return
        output, error = self._response(call.get("result"), f"{at}.result")
        failed = _FINISHED[status] or error is not None
        if failed and error is None:
            display = call.get("resultDisplay")
            error = display if isinstance(display, str) and display else f"status {status}"
        # The record holds the call and its result: settled in place, never paired by id.
        b.settle(index, output, is_error=failed, error=error if failed else None)

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


ADAPTER: Adapter = session_adapter(
    NAME,
    "gemini-cli chat recordings (conversation JSON or session JSONL)",
    start=_Replay,
    detect=detect,
    detect_line=detect_line,
    single=_is_header,
)
