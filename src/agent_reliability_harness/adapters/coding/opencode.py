"""The "opencode" format: OpenCode (sst/opencode) runs.

Two shapes of one session, both made of OpenCode's message parts:
- the JSON Lines stream of `opencode run --format json`: each line `{type, timestamp,
  sessionID, part}` with type `step_start`, `text`, `reasoning`, `tool_use` (a tool part
  once it finished) or `step_finish` (the step's `tokens` and `cost`), and `error` lines
  `{type: "error", error: {name, data: {message}}}`;
- the JSON of `opencode export <session>`: `{info, messages: [{info, parts}]}`, each
  message's `info` with its role, model, `path.cwd`, `tokens` and `cost`.
A tool part is `{callID, tool, state: {status, input, output | error, metadata}}`;
status `error` is a failed call, and a `bash` call whose `metadata.exit` is not 0 failed.
Tokens: input + cache reads and writes as input, output + reasoning as output (as for the
other coding agents); per step in the stream, per assistant message in an export.
"""

from __future__ import annotations

from typing import Any

from ..core.base import Adapter
from ..core.common import TraceBuilder, opt_amount, opt_count, opt_list, opt_obj, opt_str
from ..core.sessions import session_adapter

NAME = "opencode"
_EVENTS = ("step_start", "text", "reasoning", "tool_use", "step_finish", "error")
# Parts that carry no run content of their own (docs/adapters.md).
_BOOKKEEPING = {
    "step-start": "step-start part",
    "snapshot": "snapshot part (a git snapshot hash)",
    "patch": "patch part (files a step changed, by hash)",
    "compaction": "compaction marker",
    "retry": "retry marker (the retried request is the next step)",
    "agent": "agent selection part",
}


def detect_line(line: Any) -> bool:
    """A line of the stream: an OpenCode event with its session id."""
    return (
        isinstance(line, dict)
        and line.get("type") in _EVENTS
        and isinstance(line.get("sessionID"), str)
        and (isinstance(line.get("part"), dict) or line.get("type") == "error")
    )


def single(value: Any) -> bool:
    """An export: the session `info` (an `ses_` id) and its `messages` with parts."""
    if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
        return False
    info = value.get("info")
    return (
        isinstance(info, dict)
        and isinstance(info.get("id"), str)
        and "directory" in info
        and all(isinstance(m, dict) and "parts" in m and "info" in m for m in value["messages"])
    )


def detect(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value) and detect_line(value[0])
    return single(value)


def _usage(tokens: dict[str, Any] | None, at: str) -> tuple[int | None, int | None]:
    if tokens is None:
        return None, None
    cache = opt_obj(tokens, "cache", at) or {}
    ins = [
        opt_count(tokens, "input", at),
        opt_count(cache, "read", at),
        opt_count(cache, "write", at),
    ]
    outs = [opt_count(tokens, "output", at), opt_count(tokens, "reasoning", at)]
    present_in = [v for v in ins if v is not None]
    present_out = [v for v in outs if v is not None]
    return (sum(present_in) if present_in else None, sum(present_out) if present_out else None)


class _Session:
    def __init__(self, name_hint: str) -> None:
        self.b = TraceBuilder(NAME, name_hint, agent_name="opencode")
        self.turn_start = 0
        self.labelled = False

    def feed(self, at: str, record: Any) -> None:
        if single(record):
            self._export(record, at)
        elif detect_line(record):
            self._event(record, at)
        else:
            self.b.note(at, "record that is not an OpenCode event", record)

    def _label(self, session_id: Any, at: str) -> None:
        if not self.labelled and isinstance(session_id, str):
            self.labelled = True
            self.b.labels({"trace_id": session_id}, at)

    def _event(self, line: dict[str, Any], at: str) -> None:
        b = self.b
        self._label(line.get("sessionID"), at)
        kind = line["type"]
        if kind == "error":
            error = opt_obj(line, "error", at) or {}
            data = opt_obj(error, "data", f"{at}.error") or {}
            message = data.get("message") or error.get("name") or "error"
            b.metadata.setdefault("errors", []).append(str(message))
            b.mark(at)
        elif kind == "step_finish":
            tokens = opt_obj(line["part"], "tokens", f"{at}.part")
            ins, outs = _usage(tokens, f"{at}.part.tokens")
            cost = opt_amount(line["part"], "cost", f"{at}.part")
            b.tokens(self.turn_start, ins, outs, f"{at}.part", cost_usd=cost)
            b.mark(at)  # the step's usage, counted on its first step
            b.end_turn()
            self.turn_start = len(b.steps)
        elif kind == "step_start":
            b.skip(at, "step_start event")
        else:
            self._part(line["part"], f"{at}.part", "assistant")

    def _export(self, doc: dict[str, Any], at: str) -> None:
        b = self.b
        info = doc["info"]
        self._label(info.get("id"), at)
        b.mark(at)
        for key in ("title", "directory", "version"):
            if isinstance(info.get(key), str):
                b.metadata["cwd" if key == "directory" else f"session_{key}"] = info[key]
        for index, message in enumerate(doc["messages"]):
            self._message(message, f"{at}.messages[{index}]")

    def _message(self, message: dict[str, Any], at: str) -> None:
        b = self.b
        info = opt_obj(message, "info", at) or {}
        role = info.get("role")
        start = len(b.steps)
        for index, part in enumerate(opt_list(message, "parts", at)):
            if isinstance(part, dict) and part.get("type") == "step-finish":
                b.skip(f"{at}.parts[{index}]", "step-finish part (usage is the message's)")
                continue
            self._part(part, f"{at}.parts[{index}]", str(role))
        if role == "assistant":
            ins, outs = _usage(opt_obj(info, "tokens", f"{at}.info"), f"{at}.info.tokens")
            cost = opt_amount(info, "cost", f"{at}.info")
            b.tokens(
                start, ins, outs, f"{at}.info", key=opt_str(info, "id", f"{at}.info"), cost_usd=cost
            )
            b.end_turn(model=opt_str(info, "modelID", f"{at}.info"))

    def _part(self, part: Any, at: str, role: str) -> None:
        b = self.b
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            if role == "assistant":
                b.text(part["text"], at)
            elif part.get("synthetic") is True:
                b.skip(at, "synthetic user text part (written by OpenCode, not the user)")
            else:
                b.input("user", part["text"], at)
        elif kind == "reasoning" and role == "assistant":
            b.reasoning(opt_str(part, "text", at), at)
        elif kind == "tool":
            self._tool(part, at)
        elif isinstance(kind, str) and kind in _BOOKKEEPING:
            b.skip(at, _BOOKKEEPING[kind])
        else:
            b.note(at, "part of an unknown kind", part)

    def _tool(self, part: dict[str, Any], at: str) -> None:
        b = self.b
        state = opt_obj(part, "state", at) or {}
        where = f"{at}.state"
        index = b.call(
            opt_str(part, "callID", at),
            opt_str(part, "tool", at),
            state.get("input"),
            f"{where}.input",
        )
        status = state.get("status")
        if status == "completed":
            meta = opt_obj(state, "metadata", where) or {}
            code = meta.get("exit")
            failed = isinstance(code, int) and not isinstance(code, bool) and code != 0
            b.settle(
                index,
                state.get("output"),
                is_error=failed,
                error=f"exit code {code}" if failed else None,
            )
        elif status == "error":
            b.settle(index, is_error=True, error=str(state.get("error") or "tool call failed"))
        else:
            b.note(at, f"tool call that had not finished (status {status})", part)

    def finish(self) -> list[dict[str, Any]]:
        self.b.end_turn()
        return [self.b.build()]


ADAPTER: Adapter = session_adapter(
    NAME,
    "OpenCode runs (opencode run --format json streams, opencode export sessions)",
    start=_Session,
    detect=detect,
    detect_line=detect_line,
    single=single,
)
