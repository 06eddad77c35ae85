"""The "qwen-code" format: Qwen Code chat recordings (`~/.qwen/projects/<project>/chats/
<session>.jsonl`), written by its ChatRecordingService.

One record a line: `{uuid, parentUuid, sessionId, timestamp, type, cwd, version}` and,
by type, `message` (a Gemini API `Content`: `role` and `parts`), `usageMetadata`,
`model`, `toolCallResult`, `subtype` / `systemPayload`. `user` records are inputs,
`assistant` records the model's parts (`text`, `thought` text as reasoning,
`functionCall` {id, name, args} as calls) and usage (`promptTokenCount` as input,
`candidatesTokenCount` + `thoughtsTokenCount` as output), `tool_result` records a
call's `functionResponse` (its `response.output` or `response.error`) with
`toolCallResult.status` (`error` and `cancelled` are failed calls). Sub-agent records
carry `isSidechain` and `agentName` / `agentId`. `system` records are bookkeeping
(docs/adapters.md). Records are read in file order: the file is append-only.
"""

from __future__ import annotations

from typing import Any

from ..core.base import Adapter
from ..core.common import TraceBuilder, opt_count, opt_obj, opt_str
from ..core.sessions import session_adapter

NAME = "qwen-code"
_TYPES = ("user", "assistant", "tool_result", "system")
_FAILED = ("error", "cancelled")


def _is_record(value: Any) -> bool:
    """A chat record: the tree keys, and a Gemini `Content` (`parts`) or a system record."""
    if not (
        isinstance(value, dict)
        and value.get("type") in _TYPES
        and isinstance(value.get("uuid"), str)
        and "parentUuid" in value
        and isinstance(value.get("sessionId"), str)
    ):
        return False
    message = value.get("message")
    if isinstance(message, dict):
        return isinstance(message.get("parts"), list)
    return value["type"] == "system" and "subtype" in value


def detect_line(line: Any) -> bool:
    return _is_record(line)


def detect(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value) and _is_record(value[0])
    return _is_record(value)


class _Recording:
    def __init__(self, name_hint: str) -> None:
        self.b = TraceBuilder(NAME, name_hint, agent_name="qwen-code")
        self.labelled = False

    def feed(self, at: str, record: Any) -> None:
        b = self.b
        if not _is_record(record):
            b.note(at, "line that is not a Qwen Code chat record", record)
            return
        if not self.labelled:
            self.labelled = True
            b.labels({"trace_id": record["sessionId"]}, at)
            if isinstance(record.get("cwd"), str):
                b.metadata["cwd"] = record["cwd"]
        sub = record.get("isSidechain") is True
        name = record.get("agentName") or record.get("agentId")
        b.agent = str(name) if sub and name else None
        kind = record["type"]
        if kind == "system":
            b.skip(at, f"system record ({record.get('subtype')})")
        elif kind == "assistant":
            self._assistant(record, at)
        elif kind == "tool_result":
            self._results(record, at)
        else:
            self._user(record, at)

    def _parts(self, record: dict[str, Any]) -> list[Any]:
        message = record.get("message")
        parts = message.get("parts") if isinstance(message, dict) else None
        return parts if isinstance(parts, list) else []

    def _user(self, record: dict[str, Any], at: str) -> None:
        b = self.b
        texts: list[str] = []
        for index, part in enumerate(self._parts(record)):
            where = f"{at}.message.parts[{index}]"
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif isinstance(part, dict) and isinstance(part.get("functionResponse"), dict):
                self._response(part["functionResponse"], record, where)
            else:
                b.note(where, "user part that is not text", part)
        if texts or not self._parts(record):
            b.input("user", "\n".join(texts), at)

    def _assistant(self, record: dict[str, Any], at: str) -> None:
        b = self.b
        start = len(b.steps)
        model = opt_str(record, "model", at)
        texts: list[str] = []
        for index, part in enumerate(self._parts(record)):
            where = f"{at}.message.parts[{index}]"
            if not isinstance(part, dict):
                b.note(where, "part that is not an object", part)
            elif part.get("thought") is True:
                b.reasoning(opt_str(part, "text", where), where)
            elif isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif isinstance(part.get("functionCall"), dict):
                if texts:
                    b.text("".join(texts), at, model=model)
                    texts.clear()
                call = part["functionCall"]
                b.call(
                    opt_str(call, "id", where),
                    opt_str(call, "name", where),
                    call.get("args"),
                    f"{where}.functionCall.args",
                    model=model,
                )
            else:
                b.note(where, "model part of an unknown kind", part)
        if texts:
            b.text("".join(texts), at, model=model)
        usage = opt_obj(record, "usageMetadata", at)
        if usage is not None:
            where = f"{at}.usageMetadata"
            out = [
                opt_count(usage, k, where) for k in ("candidatesTokenCount", "thoughtsTokenCount")
            ]
            present = [v for v in out if v is not None]
            b.tokens(
                start,
                opt_count(usage, "promptTokenCount", where),
                sum(present) if present else None,
                where,
            )
        b.end_turn(model=model)

    def _results(self, record: dict[str, Any], at: str) -> None:
        parts = [
            p
            for p in self._parts(record)
            if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)
        ]
        if not parts:
            self.b.note(at, "tool result record without a functionResponse", record)
            return
        for index, part in enumerate(parts):
            self._response(part["functionResponse"], record, f"{at}.message.parts[{index}]")

    def _response(self, response: dict[str, Any], record: dict[str, Any], at: str) -> None:
        summary = opt_obj(record, "toolCallResult", at) or {}
        body = response.get("response")
        error: str | None = None
        output: Any = body
        if isinstance(body, dict):
            if body.get("error") is not None:
                error = str(body["error"])
            output = body.get("output", body if error is None else None)
        status = summary.get("status")
        failed = error is not None or status in _FAILED
        if failed and error is None:
            error = str(summary.get("error") or f"tool call {status}")
        call_id = opt_str(response, "id", at) or opt_str(summary, "callId", at)
        self.b.result(
            call_id, output, at, error=error, is_error=failed, name=opt_str(response, "name", at)
        )

    def finish(self) -> list[dict[str, Any]]:
        return [self.b.build()]


ADAPTER: Adapter = session_adapter(
    NAME,
    "Qwen Code chat recordings (session JSONL of ChatRecord lines)",
    start=_Recording,
    detect=detect,
    detect_line=detect_line,
)
