"""The "claude-code" format: Claude Code session JSONL and the Claude Agent SDK message stream.

One file is one session (one trace). Claude Code writes one line per content block,
all sharing `message.id`; usage is counted once per message id (TraceBuilder.tokens key).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.base import Adapter
from ..core.common import TraceBuilder, add_counts, opt_amount, opt_count, opt_str
from ..core.sessions import session_adapter
from ..core.totals import RecordedTotals
from ._claude_stream import BOOKKEEPING, foreign_line, result_totals, run_totals
from .cursor_agent import cursor_line

NAME = "claude-code"
_CONTENT = ("user", "assistant")
# Attachment lines (`{"type": "attachment", "attachment": {"type": <subtype>, ...}}`) hold
# context Claude Code adds to the model's input (hook output, tool, skill and agent listings,
# memory files, reminders, modes): bookkeeping, by subtype. Two subtypes are not: a prompt
# the user queued while the agent worked (an input) and a hook that failed (a note).
_QUEUED = "queued_command"
_HOOK_ERRORS = ("hook_blocking_error", "hook_non_blocking_error")
_SESSION_KEYS = ("sessionId", "session_id", "uuid", "parentUuid", "leafUuid", "messageId")
_TASK_TOOLS = ("Task", "Agent")  # the tool that starts a sub-agent (renamed Agent in 2.1)
_SUBAGENT = "sub-agent"  # a sub-agent whose Task call names no subagent_type


def _is_content(line: Any) -> bool:
    return (
        isinstance(line, dict)
        and line.get("type") in _CONTENT
        and isinstance(line.get("message"), dict)
        and "parts" not in line["message"]  # a Gemini Content: Qwen Code's records
        and any(k in line for k in _SESSION_KEYS)
    )


def _is_attachment(line: Any) -> bool:
    return (
        isinstance(line, dict)
        and line.get("type") == "attachment"
        and isinstance(line.get("attachment"), dict)
        and any(k in line for k in _SESSION_KEYS)
    )


def detect_line(first: Any) -> bool:
    """The first line of a session file: a user/assistant line with its message and session
    keys, an attachment line, a bookkeeping line (summary, snapshot, queue, ...) or the
    SDK's `system` init (not cursor-agent's init, the same line without `tools` and with
    cursor-agent's key sources)."""
    if _is_content(first) or _is_attachment(first):
        return True
    return (
        isinstance(first, dict)
        and isinstance(first.get("type"), str)
        and first["type"] in BOOKKEEPING
        and "payload" not in first
        and "systemPayload" not in first  # Qwen Code's system records
        and any(k in first for k in (*_SESSION_KEYS, "summary", "operation", "snapshot"))
        and not cursor_line(first)
    )


def detect(value: Any) -> bool:
    """A session given as a JSON array of its lines (at least one user/assistant line), with
    no line of the kinds only cursor-agent writes (`tool_call`, `thinking`)."""
    if not isinstance(value, list):
        return False
    head = value[:1000]
    return any(_is_content(v) for v in head) and not any(cursor_line(v) for v in head)


@dataclass
class _Text:
    """Consecutive text blocks of one message (one per line): one model_response."""

    key: str
    at: str
    meta: dict[str, Any]
    parts: list[str] = field(default_factory=list)


class _Session:
    def __init__(self, name_hint: str) -> None:
        self.b = TraceBuilder(NAME, name_hint, agent_name="claude-code")
        self.seen: set[str] = set()
        self.first: dict[str, int] = {}  # message id -> index of its first step
        self.latency: dict[str, float] = {}  # message id -> durationMs (older versions)
        self.text: _Text | None = None
        self.message: str | None = None  # the id of the message being read
        self.meta: dict[str, Any] = {}  # its step metadata (model, response id, sidechain)
        self.file_sidechain: bool | None = None
        self.run_totals: RecordedTotals | None = None
        # Trace v1.2: Task calls (call id -> subagent_type, prompt), the owner (agent, Task
        # call) of each inline sub-agent line by uuid, and that of the line being read.
        self.tasks: dict[str, tuple[str | None, Any]] = {}
        self.chains: dict[str, tuple[str | None, str | None]] = {}
        self.owner: tuple[str | None, str | None] = (None, None)

    def feed(self, at: str, line: Any) -> None:
        b = self.b
        kind = line.get("type") if isinstance(line, dict) else None
        kind = kind if isinstance(kind, str) else None
        if not isinstance(line, dict):
            b.note(at, "line that is not a JSON object", line)
        elif kind in BOOKKEEPING:
            self._bookkeeping(kind, line)
            b.skip(at, f"{kind} line")
        elif kind == "result":
            self._close_text()
            b.end_turn(**self.meta)
            self._result(line, at)
        elif kind == "attachment":
            self._attachment(line, at)
        elif kind not in _CONTENT or not isinstance(line.get("message"), dict):
            self._unknown(at, kind, line)
        elif isinstance(line.get("uuid"), str) and line["uuid"] in self.seen:
            b.skip(at, "repeated line (same uuid)")
        else:
            if isinstance(line.get("uuid"), str):
                self.seen.add(line["uuid"])
            self._labels(line, at)
            meta = self._step_meta(line)
            self.owner = self._owner(line)
            if kind == "assistant":
                self._assistant(line["message"], at, meta)
            else:
                self._user(line["message"], at, meta)

    def _unknown(self, at: str, kind: str | None, line: dict[str, Any]) -> None:
        refused = foreign_line(at, kind, line)
        if refused is not None:
            raise refused
        self.b.note(at, "line of an unknown kind", line)

    def _attachment(self, line: dict[str, Any], at: str) -> None:
        b = self.b
        attachment = line.get("attachment")
        subtype = attachment.get("type") if isinstance(attachment, dict) else None
        uuid = line.get("uuid")
        if not isinstance(attachment, dict) or not isinstance(subtype, str):
            b.note(at, "attachment line without a typed attachment", line)
        elif isinstance(uuid, str) and uuid in self.seen:
            b.skip(at, "repeated line (same uuid)")
        else:
            if isinstance(uuid, str):
                self.seen.add(uuid)
            if subtype == _QUEUED:
                self._queued(line, attachment, f"{at}.attachment")
            elif subtype in _HOOK_ERRORS:
                b.note(f"{at}.attachment", f"failed hook ({subtype})", attachment)
            else:
                b.skip(at, f"attachment line ({subtype})")

    def _queued(self, line: dict[str, Any], attachment: dict[str, Any], at: str) -> None:
        """A prompt the user typed while the agent worked, given to the model after the
        current step: a user input, in order (its non-text parts are notes)."""
        self._labels(line, at)
        self._end_message()
        prompt = attachment.get("prompt")
        self._user_content(prompt, f"{at}.prompt", self._step_meta(line))

    def _bookkeeping(self, kind: str, line: dict[str, Any]) -> None:
        if kind == "system" and line.get("subtype") == "init":
            for key in ("model", "cwd", "session_id"):
                if isinstance(line.get(key), str):
                    self.b.metadata.setdefault(key, line[key])

    def _labels(self, line: dict[str, Any], at: str) -> None:
        b = self.b
        session = line.get("sessionId") or line.get("session_id")
        if self.file_sidechain is None:
            self.file_sidechain = bool(line.get("isSidechain"))
            agent = line.get("agentId")
            if isinstance(session, str) and session:
                b.metadata["session_id"] = session
                if self.file_sidechain and agent:
                    session = f"{session}-agent-{agent}"
            if session is not None:
                b.labels({"trace_id": session}, at)
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

    def _owner(self, line: dict[str, Any]) -> tuple[str | None, str | None]:
        """The sub-agent that wrote a line and the Task call it ran under (trace v1.2): the
        Agent SDK names the call (`parent_tool_use_id`); inline sidechain lines continue
        their chain (`parentUuid`), and a chain starts under the open Task call given its
        prompt (else the latest open one)."""
        parent = line.get("parent_tool_use_id")
        agent_id = line.get("agentId") if isinstance(line.get("agentId"), str) else None
        if isinstance(parent, str):
            return self.tasks.get(parent, (agent_id, None))[0] or _SUBAGENT, parent
        if not line.get("isSidechain") or self.file_sidechain:
            return None, None
        up = line.get("parentUuid")
        owner = self.chains.get(up) if isinstance(up, str) else None
        if owner is None:
            message = line.get("message")
            prompt = message.get("content") if isinstance(message, dict) else None
            open_tasks = [c for c in self.tasks if self.b.is_open(c)]
            called = [c for c in open_tasks if self.tasks[c][1] == prompt] or open_tasks[-1:]
            task = called[0] if called else None
            name = self.tasks[task][0] if task is not None else None
            owner = (name or agent_id or _SUBAGENT, task)
        if isinstance(line.get("uuid"), str):
            self.chains[line["uuid"]] = owner
        return owner

    def _assistant(self, message: dict[str, Any], at: str, side: dict[str, Any]) -> None:
        b = self.b
        key = opt_str(message, "id", at) or f"({at})"
        meta = {"model": opt_str(message, "model", at), "response_id": message.get("id"), **side}
        if key != self.message:
            self._close_text()
            b.end_turn(**self.meta)  # what the last message left (reasoning, usage) stays there
            self.message, self.meta = key, meta
            b.agent, b.parent_step_id = self.owner  # what closed above was the last one's
        self.first.setdefault(key, len(b.steps))
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            b.note(f"{at}.content", "assistant content that is not blocks", content)
            content = []
        for index, block in enumerate(content):
            self._block(block, f"{at}.content[{index}]", key, meta)
        self._usage(message, key, at)

    def _block(self, block: Any, at: str, key: str, meta: dict[str, Any]) -> None:
        b = self.b
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            if self.text is None or self.text.key != key:
                self._close_text()
                self.text = _Text(key, at, meta)
            self.text.parts.append(block["text"])
            return
        if kind in ("thinking", "redacted_thinking"):
            # Interleaved thinking does not split the message's text (as anthropic-messages).
            thinking = block.get("thinking") if kind == "thinking" else None
            b.reasoning(thinking if isinstance(thinking, str) else None, at)
            return
        self._close_text()
        if isinstance(kind, str) and kind.endswith("tool_use"):
            server = True if kind != "tool_use" else None
            call_id, name = opt_str(block, "id", at), opt_str(block, "name", at)
            args = block.get("input")
            if name in _TASK_TOOLS and call_id and isinstance(args, dict):
                kind_of = args.get("subagent_type")
                self.tasks[call_id] = (
                    kind_of if isinstance(kind_of, str) else None,
                    args.get("prompt"),
                )
            b.call(call_id, name, block.get("input"), f"{at}.input", server_tool=server, **meta)
        elif isinstance(kind, str) and kind.endswith("tool_result"):
            self._tool_result(block, at)
        else:
            b.note(at, f"{kind or 'untyped'} block is not a step", block)

    def _close_text(self) -> None:
        if self.text is not None:
            text, self.text = self.text, None
            self.b.text("".join(text.parts), text.at, **text.meta)

    def _usage(self, message: dict[str, Any], key: str, at: str) -> None:
        """Claude Code repeats a message's usage on each of its lines (output_tokens grows
        until the last): the builder keeps the largest, once per message id."""
        usage = message.get("usage")
        usage = usage if isinstance(usage, dict) else None
        where = f"{at}.usage"
        input_tokens = add_counts(
            opt_count(usage, "input_tokens", where),
            opt_count(usage, "cache_creation_input_tokens", where),
            opt_count(usage, "cache_read_input_tokens", where),
        )
        output_tokens = opt_count(usage, "output_tokens", where)
        cost = opt_amount(message, "costUSD", at)
        self.b.tokens(self.first[key], input_tokens, output_tokens, at, key=key, cost_usd=cost)
        duration = opt_amount(message, "durationMs", at)
        if duration is not None:
            self.latency[key] = duration

    def _end_message(self) -> None:
        """A user turn ends the assistant message being read."""
        self._close_text()
        self.b.end_turn(**self.meta)
        self.message, self.meta = None, {}

    def _user(self, message: dict[str, Any], at: str, meta: dict[str, Any]) -> None:
        self._end_message()
        content = message.get("content")
        self._user_content(content, at if isinstance(content, str) else f"{at}.content", meta)

    def _user_content(self, content: Any, at: str, meta: dict[str, Any]) -> None:
        b = self.b
        if isinstance(content, str):
            self._input(content, at, meta)
            return
        if not isinstance(content, list):
            b.note(at, "user content that is neither text nor blocks", content)
            return
        for index, block in enumerate(content):
            where = f"{at}[{index}]"
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
        if isinstance(content, list) and all(
            isinstance(p, dict) and isinstance(p.get("text"), str) for p in content
        ):
            content = "\n".join(p["text"] for p in content)  # else kept as the blocks
        is_error = block.get("is_error")
        self.b.result(
            opt_str(block, "tool_use_id", at),
            content,
            at,
            is_error=is_error if isinstance(is_error, bool) else None,
        )

    def _result(self, line: dict[str, Any], at: str) -> None:
        """The Agent SDK's closing ResultMessage: run outcome, and the run's totals (the
        usage of the main agent's messages, the cost of the whole run)."""
        keep = ("subtype", "is_error", "num_turns", "duration_ms", "duration_api_ms")
        self.b.metadata["result"] = {k: line[k] for k in keep if k in line}
        self.run_totals = result_totals(line, at)
        session = line.get("session_id")
        if session is not None and self.b.trace_id is None:
            self.b.labels({"trace_id": session}, at)
        self.b.mark(at)

    def finish(self) -> list[dict[str, Any]]:
        b = self.b
        self._close_text()
        b.end_turn(**self.meta)
        for key, latency in self.latency.items():
            first = self.first[key]
            if first < len(b.steps) and b.steps[first]["type"] == "model_response":
                b.measure(first, latency_ms=latency)
        if self.run_totals is not None:
            b.recorded_totals(run_totals(self.run_totals, b.steps, b._owners))
        return [b.build()]


ADAPTER: Adapter = session_adapter(
    NAME,
    "Claude Code session JSONL and the Claude Agent SDK message stream",
    start=_Session,
    detect=detect,
    detect_line=detect_line,
)
