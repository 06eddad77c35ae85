"""The "claude-code" format: Claude Code session JSONL and the Claude Agent SDK message stream.

One file is one session (one trace). Claude Code writes one line per content block,
all sharing `message.id`; usage is counted once per message id, from its last line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ._cli_common import add_measure, array_entries, line_entries, opt_amount, text_of
from ._common import TraceBuilder, add_counts, fail, opt_count, opt_str
from .base import Adapter

NAME = "claude-code"
_CONTENT = ("user", "assistant")
# Lines that record the session's bookkeeping, not its run: titles, file snapshots, the
# input queue, hook/shell/sub-agent progress (sub-agent turns have their own file),
# system notices, modes. The Agent SDK's `system` lines (init) are bookkeeping too.
BOOKKEEPING = frozenset(
    {
        "summary",
        "file-history-snapshot",
        "queue-operation",
        "progress",
        "system",
        "permission-mode",
        "last-prompt",
        "custom-title",
        "ai-title",
        "agent-name",
        "mode",
        "tag",
        "pr-link",
        "worktree-state",
        "attribution-snapshot",
        "bridge-session",
    }
)
_SESSION_KEYS = ("sessionId", "session_id", "uuid", "parentUuid", "leafUuid", "messageId")
_CALL_BLOCKS = ("tool_use", "server_tool_use", "mcp_tool_use")


def _is_content(line: Any) -> bool:
    return (
        isinstance(line, dict)
        and line.get("type") in _CONTENT
        and isinstance(line.get("message"), dict)
        and any(k in line for k in _SESSION_KEYS)
    )


def detect_line(first: Any) -> bool:
    """The first line of a session file: a user/assistant line with its message and session
    keys, a bookkeeping line (summary, snapshot, queue, ...) or the SDK's `system` init."""
    if _is_content(first):
        return True
    return (
        isinstance(first, dict)
        and isinstance(first.get("type"), str)
        and first["type"] in BOOKKEEPING
        and "payload" not in first
        and any(k in first for k in (*_SESSION_KEYS, "summary", "operation", "snapshot"))
    )


def detect(value: Any) -> bool:
    """A session given as a JSON array of its lines (at least one user/assistant line)."""
    return isinstance(value, list) and any(_is_content(v) for v in value[:1000])


def convert(value: Any, name_hint: str) -> list[Any]:
    if not isinstance(value, list):
        raise fail("$", "expected the session's lines as a JSON array")
    return _session(array_entries(value), name_hint)


def convert_lines(lines: Iterable[tuple[int, Any]], name_hint: str) -> list[Any]:
    return _session(line_entries(lines), name_hint)


def _session(entries: Iterator[tuple[str, Any]], name_hint: str) -> list[Any]:
    session = _Session(TraceBuilder(NAME, name_hint, agent_name="claude-code"))
    for at, line in entries:
        session.feed(at, line)
    return [session.finish()]


class _Message:
    """One model response, whose blocks may span several lines."""

    def __init__(self, at: str, first: int) -> None:
        self.at = at
        self.first = first
        self.usage: dict[str, Any] | None = None
        self.output = 0
        self.cost: float | None = None
        self.latency: float | None = None


class _Session:
    def __init__(self, b: TraceBuilder) -> None:
        self.b = b
        self.seen: set[str] = set()
        self.messages: dict[str, _Message] = {}
        self.file_sidechain: bool | None = None
        self.run_cost: float | None = None

    def feed(self, at: str, line: Any) -> None:
        b = self.b
        if not isinstance(line, dict):
            b.note(at, "line that is not a JSON object", line)
            return
        kind = line.get("type") if isinstance(line.get("type"), str) else None
        if kind in BOOKKEEPING:
            self._bookkeeping(str(kind), line)
            b.skip(at, f"{kind} line")
        elif kind == "result":
            self._result(line, at)
        elif kind not in _CONTENT or not isinstance(line.get("message"), dict):
            b.note(at, "line of an unknown kind", line)
        elif isinstance(line.get("uuid"), str) and line["uuid"] in self.seen:
            b.skip(at, "repeated line (same uuid)")
        else:
            if isinstance(line.get("uuid"), str):
                self.seen.add(line["uuid"])
            self._labels(line)
            meta = self._step_meta(line)
            if kind == "assistant":
                self._assistant(line["message"], at, meta)
            else:
                self._user(line["message"], at, meta)

    def _bookkeeping(self, kind: str, line: dict[str, Any]) -> None:
        if kind == "system" and line.get("subtype") == "init":
            for key in ("model", "cwd", "session_id"):
                if isinstance(line.get(key), str):
                    self.b.metadata.setdefault(key, line[key])

    def _labels(self, line: dict[str, Any]) -> None:
        b = self.b
        session = line.get("sessionId") or line.get("session_id")
        if self.file_sidechain is None:
            self.file_sidechain = bool(line.get("isSidechain"))
            agent = line.get("agentId")
            if isinstance(session, str) and session:
                b.trace_id = (
                    f"{session}-agent-{agent}" if self.file_sidechain and agent else session
                )
                b.metadata["session_id"] = session
            if self.file_sidechain:
                b.metadata["sidechain"] = True
                if isinstance(agent, str):
                    b.metadata["agent_id"] = agent
        for key in ("cwd", "version", "gitBranch"):
            if isinstance(line.get(key), str) and line[key]:
                b.metadata.setdefault(key, line[key])

    def _step_meta(self, line: dict[str, Any]) -> dict[str, Any]:
        """Sub-agent lines inside a main session are kept in its trace, labelled."""
        parent = line.get("parent_tool_use_id")
        if line.get("isSidechain") and not self.file_sidechain:
            return {"sidechain": True, "agent_id": line.get("agentId")}
        if isinstance(parent, str):
            return {"sidechain": True, "parent_tool_use_id": parent}
        return {}

    def _assistant(self, message: dict[str, Any], at: str, meta: dict[str, Any]) -> None:
        b = self.b
        key = opt_str(message, "id", at) or f"({at})"
        meta = {"model": opt_str(message, "model", at), "response_id": message.get("id"), **meta}
        record = self.messages.get(key)
        if record is None:
            # Blocks of one message may arrive after the results of its earlier tool calls.
            record = self.messages[key] = _Message(at, len(b.steps))
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            b.note(f"{at}.content", "assistant content that is not blocks", content)
            content = []
        for index, block in enumerate(content):
            self._block(block, f"{at}.content[{index}]", record, meta)
        if record.first >= len(b.steps):
            b.text(None, at, **meta)  # a response with nothing mappable still carries its usage
        self._measures(record, message, at)

    def _block(self, block: Any, at: str, record: _Message, meta: dict[str, Any]) -> None:
        b = self.b
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            step = self._open_text(record, meta, at)
            step["text"] = (step.get("text") or "") + block["text"]
        elif kind in ("thinking", "redacted_thinking"):
            step = self._open_text(record, meta, at)
            reasoning = step.setdefault("metadata", {}).setdefault("reasoning", [])
            reasoning.append(block.get("thinking") if kind == "thinking" else "[redacted]")
        elif kind in _CALL_BLOCKS:
            extra = {"server_tool": True} if kind != "tool_use" else {}
            b.call(
                opt_str(block, "id", at),
                opt_str(block, "name", at),
                block.get("input"),
                f"{at}.input",
                **extra,
                **meta,
            )
        elif isinstance(kind, str) and kind.endswith("tool_result"):
            self._tool_result(block, at)
        else:
            b.note(at, f"{kind or 'untyped'} block is not a step", block)

    def _open_text(self, record: _Message, meta: dict[str, Any], at: str) -> dict[str, Any]:
        """The model_response step this message's text continues, or a new one."""
        b = self.b
        if len(b.steps) > record.first and b.steps[-1]["type"] == "model_response":
            return b.steps[-1]
        return b.steps[b.text(None, at, **meta)]

    def _measures(self, record: _Message, message: dict[str, Any], at: str) -> None:
        usage = message.get("usage")
        if isinstance(usage, dict):
            # Lines of one message repeat its usage; output_tokens grows until the last.
            grown = opt_count(usage, "output_tokens", f"{at}.usage") or 0
            if record.usage is None or grown >= record.output:
                record.usage = usage
                record.output = grown
                record.at = at
        cost = opt_amount(message, "costUSD", at)
        record.cost = cost if cost is not None else record.cost
        duration = opt_amount(message, "durationMs", at)
        record.latency = duration if duration is not None else record.latency

    def _user(self, message: dict[str, Any], at: str, meta: dict[str, Any]) -> None:
        b = self.b
        content = message.get("content")
        text = text_of(content)
        if text is not None:
            self._input(text, at, meta)
            return
        if not isinstance(content, list):
            b.note(f"{at}.content", "user content that is neither text nor blocks", content)
            return
        for index, block in enumerate(content):
            where = f"{at}.content[{index}]"
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "tool_result":
                self._tool_result(block, where)
            elif kind == "text" and isinstance(block.get("text"), str):
                self._input(block["text"], where, meta)
            else:
                b.note(where, f"{kind or 'untyped'} block is not a step", block)

    def _input(self, text: str, at: str, meta: dict[str, Any]) -> None:
        if meta.get("sidechain") and not self.file_sidechain:
            # The parent agent wrote a sub-agent's prompt: not a trusted input of the session.
            self.b.note(at, "sub-agent prompt (written by the agent, not a trusted input)", text)
        else:
            self.b.input("user", text, at)

    def _tool_result(self, block: dict[str, Any], at: str) -> None:
        content = block.get("content")
        joined = text_of(content, "\n")
        output = joined if joined is not None and isinstance(content, list) else content
        is_error = block.get("is_error")
        self.b.result(
            opt_str(block, "tool_use_id", at),
            output,
            at,
            is_error=is_error if isinstance(is_error, bool) else None,
        )

    def _result(self, line: dict[str, Any], at: str) -> None:
        """The Agent SDK's closing ResultMessage: run outcome and the run's cost."""
        keep = ("subtype", "is_error", "num_turns", "duration_ms", "duration_api_ms")
        self.b.metadata["result"] = {k: line[k] for k in keep if k in line}
        self.run_cost = opt_amount(line, "total_cost_usd", at)
        session = line.get("session_id")
        if isinstance(session, str) and self.b.trace_id is None:
            self.b.trace_id = session

    def finish(self) -> dict[str, Any]:
        b = self.b
        for record in self.messages.values():
            usage = record.usage
            where = f"{record.at}.usage"
            input_tokens = add_counts(
                opt_count(usage, "input_tokens", where),
                opt_count(usage, "cache_creation_input_tokens", where),
                opt_count(usage, "cache_read_input_tokens", where),
            )
            b.tokens(
                record.first, input_tokens, opt_count(usage, "output_tokens", where), record.at
            )
            add_measure(b, record.first, "cost_usd", record.cost)
            if b.steps[record.first]["type"] == "model_response":
                add_measure(b, record.first, "latency_ms", record.latency)
        if self.run_cost is not None and b.steps and not any("cost_usd" in s for s in b.steps):
            add_measure(b, 0, "cost_usd", self.run_cost)
            b.steps[0].setdefault("metadata", {})["cost"] = "run total (result.total_cost_usd)"
        return b.build()


ADAPTER = Adapter(
    name=NAME,
    description="Claude Code session JSONL and the Claude Agent SDK message stream",
    detect=detect,
    convert=convert,
    detect_line=detect_line,
    convert_lines=convert_lines,
)
