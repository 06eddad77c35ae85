"""The "cursor-agent" format: `cursor-agent --print --output-format stream-json` output.

One file is one run (one trace), one JSON object per line (Cursor's documented output
format, docs/cli/reference/output-format): a `system` init, the `user` prompt, `assistant`
text, `thinking` deltas, `tool_call` lines (`started`, then `completed` with the call's
`result`) and a closing `result` line. A tool call is an object under one key naming the
tool (`shellToolCall`, `readToolCall`, ...; `function` for a generic call) that holds its
`args`, and once completed its `result`: one outcome key (`success`, `error`, `rejected`,
...) holding the outcome's fields.
"""

from __future__ import annotations

from typing import Any

from ...errors import AdapterError
from ..core.base import Adapter
from ..core.common import TraceBuilder, fail, opt_count
from ..core.sessions import session_adapter
from ..core.totals import RecordedTotals

NAME = "cursor-agent"
# The values cursor-agent documents for an init line's `apiKeySource` (Claude Code's init,
# the same line otherwise, lists the session's `tools`).
_KEY_SOURCES = ("env", "flag", "login")
# Outcomes of a completed call that are not a success: the call failed or was refused.
_FAILED = frozenset(
    {
        "error",
        "failure",
        "rejected",
        "timeout",
        "spawnError",
        "permissionDenied",
        "readPermissionDenied",
        "writePermissionDenied",
        "fileNotFound",
        "invalidFile",
        "notFile",
        "fileBusy",
        "noSpace",
        "sandboxUnsupported",
        "notFound",
        "serverNotFound",
        "toolNotFound",
        "needsConfirmation",
    }
)
# Lines of the run's bookkeeping: reconnects and retries, the CLI's own permission
# queries, background-task notices (system lines other than init).
BOOKKEEPING = frozenset({"retry", "connection", "interaction_query", "system"})
_MESSAGES = ("user", "assistant")
# Keys of Claude Code's session lines (the same message lines otherwise): never Cursor's.
_OTHERS = ("uuid", "parentUuid", "sessionId", "parent_tool_use_id")


def cursor_line(line: Any) -> bool:
    """A line only cursor-agent writes: a `tool_call` line (call id and tool object), a
    `thinking` delta or end, an init line with cursor-agent's key sources and no tools, or
    a message line stamped with the model call that wrote it."""
    if not isinstance(line, dict):
        return False
    kind = line.get("type")
    if kind == "tool_call":
        return isinstance(line.get("call_id"), str) and isinstance(line.get("tool_call"), dict)
    if kind == "thinking":
        return line.get("subtype") in ("delta", "completed") and "session_id" in line
    if kind == "system":
        return (
            line.get("subtype") == "init"
            and line.get("apiKeySource") in _KEY_SOURCES
            and "tools" not in line
        )
    return kind in _MESSAGES and isinstance(line.get("message"), dict) and "model_call_id" in line


def _refuse(at: str, why: str) -> AdapterError:
    """The run is not cursor-agent's: what says so, and where."""
    return AdapterError(f"not a {NAME} transcript: {at + ': ' if at else ''}{why}")


def detect_line(first: Any) -> bool:
    return cursor_line(first)


def detect(value: Any) -> bool:
    """A run given as a JSON array of its lines, one of them only cursor-agent's."""
    return isinstance(value, list) and any(cursor_line(v) for v in value[:1000])


def _tool(tool_call: dict[str, Any]) -> tuple[str | None, dict[str, Any] | None]:
    """The tool's name and its object: `shellToolCall` -> "shell"; a generic `function`
    call names itself."""
    for key, body in tool_call.items():
        if not isinstance(body, dict):
            continue
        if key == "function":
            name = body.get("name")
            return (name if isinstance(name, str) else None), body
        if key.endswith("ToolCall"):
            return key[: -len("ToolCall")], body
    return None, None


def _outcome(result: Any) -> tuple[str | None, Any]:
    """The result's outcome key and its fields: its one object-valued key (a shell
    result adds flags such as `isBackground` next to it)."""
    if isinstance(result, dict):
        keyed = [(k, v) for k, v in result.items() if isinstance(v, dict)]
        if len(keyed) == 1:
            return keyed[0]
    return None, result


def _error(outcome: str, payload: Any) -> str | None:
    """Why a call failed: a failure outcome (its message), or a command's exit code."""
    if outcome in _FAILED:
        if isinstance(payload, dict):
            for key in ("errorMessage", "error", "message", "reason"):
                if isinstance(payload.get(key), str) and payload[key]:
                    return f"{outcome}: {payload[key]}"
        return outcome
    code = payload.get("exitCode") if isinstance(payload, dict) else None
    if isinstance(code, int) and not isinstance(code, bool) and code != 0:
        return f"exit code {code}"
    return None


class _Run:
    def __init__(self, name_hint: str) -> None:
        self.b = TraceBuilder(NAME, name_hint, agent_name="cursor-agent")
        self.text: list[str] = []
        self.text_at = ""
        self.meta: dict[str, Any] = {}
        self.thinking: list[str] = []
        self.thinking_at = ""
        self.evidence = False  # a line only cursor-agent writes was read

    def feed(self, at: str, line: Any) -> None:
        b = self.b
        kind = line.get("type") if isinstance(line, dict) else None
        kind = kind if isinstance(kind, str) else None
        self.evidence = self.evidence or cursor_line(line)
        if isinstance(line, dict) and any(k in line for k in _OTHERS):
            raise _refuse(at, "a line with Claude Code's session keys, not cursor-agent's")
        if not isinstance(line, dict):
            b.note(at, "line that is not a JSON object", line)
        elif kind == "thinking":
            self._thinking(line, at)
        elif kind == "assistant" and isinstance(line.get("message"), dict):
            self._assistant(line, at)
        elif kind == "user" and isinstance(line.get("message"), dict):
            self._close()
            self._user(line["message"], at)
        elif kind == "tool_call" and isinstance(line.get("tool_call"), dict):
            self._close()
            self._tool_call(line, at)
        elif kind == "result":
            self._close()
            self._result(line, at)
        elif kind in BOOKKEEPING:
            self._bookkeeping(line, at)
        elif any(k in line for k in ("tool_call", "call_id", "tool_calls")):
            raise _refuse(at, f"a '{kind}' line carries a tool call cursor-agent does not write")
        else:
            b.note(at, "line of an unknown kind", line)

    def _bookkeeping(self, line: dict[str, Any], at: str) -> None:
        b = self.b
        if line.get("type") == "system" and line.get("subtype") == "init":
            for key in ("model", "cwd", "session_id", "permissionMode"):
                if isinstance(line.get(key), str):
                    b.metadata.setdefault(key, line[key])
            if isinstance(line.get("session_id"), str):
                b.labels({"trace_id": line["session_id"]}, at)
        b.skip(at, f"{line.get('type')} line")

    def _thinking(self, line: dict[str, Any], at: str) -> None:
        """Reasoning arrives as deltas and ends with a `completed` line: one reasoning
        entry, kept on the step it led to."""
        if line.get("subtype") == "delta" and isinstance(line.get("text"), str):
            self.thinking_at = self.thinking_at or at
            self.thinking.append(line["text"])
            self.b.skip(at, "thinking delta (joined into its reasoning)")
        elif line.get("subtype") == "completed":
            self._reasoning(at)
        else:
            self.b.note(at, "thinking line without a delta or end", line)

    def _reasoning(self, at: str) -> None:
        if self.thinking:
            text, self.thinking = "".join(self.thinking), []
            self.b.reasoning(text, self.thinking_at)
            self.thinking_at = ""
        else:
            self.b.skip(at, "thinking end without deltas")

    def _blocks(self, message: dict[str, Any], at: str) -> list[tuple[str, str]]:
        """(location, text) of a message's text content; other blocks are notes."""
        content = message.get("content")
        if isinstance(content, str):
            return [(f"{at}.message.content", content)]
        found: list[tuple[str, str]] = []
        for index, block in enumerate(content if isinstance(content, list) else []):
            where = f"{at}.message.content[{index}]"
            text = block.get("text") if isinstance(block, dict) else None
            if isinstance(text, str) and block.get("type") == "text":
                found.append((where, text))
            else:
                self.b.note(where, "content block that is not text", block)
        if not isinstance(content, (str, list)):
            self.b.note(f"{at}.message.content", "message content that is not blocks", content)
        return found

    def _assistant(self, line: dict[str, Any], at: str) -> None:
        """Consecutive assistant lines are one response (the stream splits its text)."""
        blocks = self._blocks(line["message"], at)
        if not self.text:
            self.text_at = at
            call = line.get("model_call_id")
            self.meta = {"model_call_id": call} if isinstance(call, str) else {}
        self.text.extend(text for _, text in blocks)
        if not blocks:
            self.b.skip(at, "assistant line without text")

    def _close(self) -> None:
        if self.thinking:
            self._reasoning(self.thinking_at)
        if self.text:
            text, self.text = "".join(self.text), []
            self.b.text(text, self.text_at, **self.meta)

    def _user(self, message: dict[str, Any], at: str) -> None:
        for where, text in self._blocks(message, at):
            self.b.input("user", text, where)

    def _tool_call(self, line: dict[str, Any], at: str) -> None:
        b = self.b
        call_id = line.get("call_id") if isinstance(line.get("call_id"), str) else None
        name, body = _tool(line["tool_call"])
        if body is None:
            raise fail(f"{at}.tool_call", "a tool call without a tool object")
        subtype = line.get("subtype")
        if subtype == "started" or (subtype == "completed" and not b.is_open(call_id)):
            args = body.get("args") if name is None or "args" in body else body.get("arguments")
            b.call(call_id, name, args, f"{at}.tool_call", model_call_id=line.get("model_call_id"))
            if subtype == "started":
                return
        if subtype != "completed":
            raise fail(f"{at}.subtype", f"a tool_call line of subtype {subtype!r}")
        if "result" not in body:
            b.note(f"{at}.tool_call", "completed call without a result", body)
            return
        outcome, payload = _outcome(body["result"])
        error = _error(outcome, payload) if outcome is not None else None
        output = payload if outcome in ("success", None) or error is None else body["result"]
        b.result(call_id, output, f"{at}.tool_call.result", error=error)

    def _result(self, line: dict[str, Any], at: str) -> None:
        """The run's end: its outcome, duration and (in newer versions) its usage; the
        `result` text repeats the assistant text already read."""
        b = self.b
        keep = ("subtype", "is_error", "duration_ms", "duration_api_ms", "request_id")
        b.metadata["result"] = {k: line[k] for k in keep if k in line}
        usage = line.get("usage")
        if isinstance(usage, dict):
            where = f"{at}.usage"
            ins = [opt_count(usage, k, where) for k in ("inputTokens", "cacheReadTokens")]
            ins.append(opt_count(usage, "cacheWriteTokens", where))
            known = [n for n in ins if n is not None]
            b.recorded_totals(
                RecordedTotals(
                    where,
                    input_tokens=sum(known) if known else None,
                    output_tokens=opt_count(usage, "outputTokens", where),
                )
            )
        b.mark(at)

    def finish(self) -> list[dict[str, Any]]:
        if not self.evidence:
            raise _refuse("", "no line only cursor-agent writes (init, tool_call, thinking)")
        self._close()
        return [self.b.build()]


ADAPTER: Adapter = session_adapter(
    NAME,
    "cursor-agent --output-format stream-json runs",
    start=_Run,
    detect=detect,
    detect_line=detect_line,
)
