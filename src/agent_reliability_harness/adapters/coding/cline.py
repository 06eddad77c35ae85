"""The "cline" format: Cline task histories and Cline SDK session messages.

A task history (`api_conversation_history.json`, written by the Cline VS Code extension
and its forks Roo Code and Kilo Code) is the Anthropic message list Cline sent, with
Cline's own conventions: each tool result is a text block of the next user message
(`[read_file for 'x'] Result:` then the output), calls it refused are a text `Tool [x]
was not executed ...`, it appends context to user messages (`<environment_details>`),
wraps the user's words (`<task>`, `<feedback>`), and records each request's usage on the
assistant message (`metrics.tokens` {prompt, completion, cached}, `modelInfo`). Before
native tool calling, calls were XML tags in the assistant's text. A Cline SDK session
(`<id>.messages.json`: `{version, sessionId, agent, messages, system_prompt}`) holds the
messages with `tool_result` blocks and per-message `metrics` {inputTokens (cache reads
included), outputTokens, cacheReadTokens, cacheWriteTokens, cost}.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..core.base import Adapter
from ..core.common import TraceBuilder, fail, opt_amount, opt_count

NAME = "cline"
_HEADER = re.compile(
    r"\A\s*(?:\[[A-Za-z_][\w-]*(?: for [^\n]*?)?\] Result:|Tool \[[\w-]+\] was not executed)"
)
_CONTEXT_TAG = "<environment_details>"
_SCANNED = 200


def _texts(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        b["text"]
        for b in content[:_SCANNED]
        if isinstance(b, dict) and isinstance(b.get("text"), str)
    ]


def _cline_message(message: Any) -> bool:
    """A message with a mark only Cline writes: its usage record or model info, a tool
    result written as text, the editor context it appends."""
    if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
        return False
    metrics, info = message.get("metrics"), message.get("modelInfo")
    if isinstance(metrics, dict) and ("tokens" in metrics or "inputTokens" in metrics):
        return True
    if isinstance(info, dict) and ("modelId" in info or "providerId" in info):
        return True
    return message["role"] == "user" and any(
        _HEADER.match(t) or t.lstrip().startswith(_CONTEXT_TAG) for t in _texts(message)
    )


def _history(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(m, dict) and "role" in m for m in value[:_SCANNED])
        and any(_cline_message(m) for m in value[:_SCANNED])
    )


def _session(value: Any) -> bool:
    """The SDK's session messages file: its envelope keys and Cline-marked messages."""
    if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
        return False
    envelope = isinstance(value.get("sessionId"), str) and (
        "system_prompt" in value or "version" in value
    )
    return envelope and (not value["messages"] or _history(value["messages"]))


def _ui_log(value: Any) -> bool:
    """The extension's `ui_messages.json`: the UI's records (`ts`, `type` ask/say)."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(
            isinstance(m, dict) and isinstance(m.get("ts"), int) and m.get("type") in ("ask", "say")
            for m in value[:_SCANNED]
        )
        and any(isinstance(m.get(m["type"]), str) for m in value[:_SCANNED])
    )


def is_cline(value: Any) -> bool:
    """Positive evidence of Cline (used by anthropic-messages to leave such files alone)."""
    return _history(value) or _session(value) or _ui_log(value)


def detect(value: Any) -> bool:
    return is_cline(value)


class _Walk:
    def __init__(self, builder: TraceBuilder) -> None:
        self.b = builder
        self.pending: tuple[str, list[str], str] | None = None  # a text result being read

    def message(self, message: Any, at: str) -> None:
        b = self.b
        if not isinstance(message, dict):
            b.note(at, "message that is not an object", message)
            return
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            b.note(f"{at}.content", "content that is neither text nor blocks", content)
        elif message.get("role") == "assistant":
            self._assistant(message, blocks, at)
        elif message.get("role") == "user":
            self._user(blocks, f"{at}.content")
        else:
            b.note(at, "message of an unknown role", message.get("role"))

    # --- assistant --------------------------------------------------------------------

    def _meta(self, message: dict[str, Any]) -> dict[str, Any]:
        info = message.get("modelInfo")
        info = info if isinstance(info, dict) else {}
        model = info.get("modelId", info.get("id"))
        return {"model": model if isinstance(model, str) else None}

    def _assistant(self, message: dict[str, Any], blocks: list[Any], at: str) -> None:
        b, meta = self.b, self._meta(message)
        start = len(b.steps)
        for index, block in enumerate(blocks):
            where = f"{at}.content[{index}]"
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "thinking":
                thought = block.get("thinking")
                b.reasoning(thought if isinstance(thought, str) else None, where)
            elif kind == "redacted_thinking":
                b.reasoning(None, where)
            elif kind == "text" and isinstance(block.get("text"), str):
                self._text(block["text"], where, meta)
            elif kind == "tool_use":
                self._call(block.get("id"), block.get("name"), block.get("input"), where, meta)
            else:
                b.note(where, f"{kind or 'untyped'} block is not a step", block)
        self._usage(message, start, at)
        b.end_turn(**meta)

    def _text(self, text: str, at: str, meta: dict[str, Any]) -> None:
        from ._cline_text import tool_calls  # noqa: PLC0415 - with the module's regexes

        reasoning, prose, calls = tool_calls(text)
        for thought in reasoning:
            self.b.reasoning(thought, at)
        if prose:
            self.b.text("\n\n".join(prose), at, **meta)
        for name, params in calls:
            self._call(None, name, params, at, meta)
        if not (reasoning or prose or calls):
            self.b.skip(at, "empty text block")

    def _call(self, call_id: Any, name: Any, args: Any, at: str, meta: dict[str, Any]) -> None:
        call_id = call_id if isinstance(call_id, str) and call_id else None
        name = name if isinstance(name, str) else None
        self.b.call(call_id, name, args, f"{at}.input", **meta)
        if name == "attempt_completion" and isinstance(args, dict):
            answer = args.get("result")
            if isinstance(answer, str):
                self.b.metadata["final_answer"] = answer

    def _usage(self, message: dict[str, Any], start: int, at: str) -> None:
        """Cline's usage of the request that wrote the message: the extension's
        `metrics.tokens` (prompt without cache reads + cached, completion) or the SDK's
        `metrics` (inputTokens, cache reads included; outputTokens), and its cost."""
        metrics = message.get("metrics")
        if not isinstance(metrics, dict):
            return
        where = f"{at}.metrics"
        tokens = metrics.get("tokens")
        if isinstance(tokens, dict):
            prompt = opt_count(tokens, "prompt", f"{where}.tokens")
            cached = opt_count(tokens, "cached", f"{where}.tokens")
            ins = None if prompt is None and cached is None else (prompt or 0) + (cached or 0)
            outs = opt_count(tokens, "completion", f"{where}.tokens")
        else:
            ins = opt_count(metrics, "inputTokens", where)
            outs = opt_count(metrics, "outputTokens", where)
        cost = opt_amount(metrics, "cost", where)
        self.b.tokens(start, ins, outs, where, cost_usd=cost)

    # --- user -------------------------------------------------------------------------

    def _user(self, blocks: list[Any], at: str) -> None:
        for index, block in enumerate(blocks):
            where = f"{at}[{index}]"
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text" and isinstance(block.get("text"), str):
                self._user_text(block["text"], where)
            elif kind == "tool_result":
                self._close()
                self._tool_result(block, where)
            elif kind == "file" and self.pending is None:
                self.b.note(where, "file attached to the prompt (its content is not a step)", block)
            elif self.pending is not None:
                self.pending[1].append(json.dumps(block, ensure_ascii=False))
            else:
                self.b.note(where, f"{kind or 'untyped'} block is not a step", block)
        self._close()

    def _user_text(self, text: str, at: str) -> None:
        from ._cline_text import REFUSED, RESULT, is_context, user_words  # noqa: PLC0415

        b = self.b
        header = RESULT.match(text)
        refused = REFUSED.match(text)
        if header is not None:
            self._close()
            self.pending = (header.group("tool"), [text[header.end() :]], at)
        elif refused is not None:
            self._close()
            tool = refused.group("tool") or refused.group("skipped")
            error = text.strip().split("\n", 1)[0]
            b.result(None, text, at, error=error, name=tool)
        elif is_context(text):
            self._close()
            b.skip(at, "context Cline adds to a user message")
        elif self.pending is not None:
            self.pending[1].append(text)  # an older Cline wrote the output as its own block
        else:
            words = user_words(text)
            for said in words or [text]:
                b.input("user", said, at)

    def _close(self) -> None:
        """The text result being read is complete: it answers the oldest open call of its
        tool; a failure text marks the call failed; the user's words in it (feedback on
        a completion) are inputs too."""
        if self.pending is None:
            return
        from ._cline_text import failed, user_words  # noqa: PLC0415

        tool, parts, at = self.pending
        self.pending = None
        output = "\n".join(p for p in parts if p) if len(parts) > 1 else parts[0]
        self.b.result(None, output, at, error=failed(output), name=tool)
        for said in user_words(output):
            self.b.input("user", said, at)

    def _tool_result(self, block: dict[str, Any], at: str) -> None:
        from ._cline_text import tool_result_error  # noqa: PLC0415

        call_id = block.get("tool_use_id")
        call_id = call_id if isinstance(call_id, str) and self.b.is_open(call_id) else None
        name = block.get("name") if isinstance(block.get("name"), str) else None
        content = block.get("content")
        decoded = content
        if isinstance(content, str) and content.startswith(("{", "[")):
            try:
                decoded = json.loads(content)
            except ValueError:
                decoded = content
        is_error = block.get("is_error")
        self.b.result(
            call_id,
            content,
            at,
            error=tool_result_error(decoded),
            is_error=is_error if isinstance(is_error, bool) else None,
            name=name,
        )


def convert(value: Any, name_hint: str) -> list[Any]:
    b = TraceBuilder(NAME, name_hint, agent_name="cline")
    walk = _Walk(b)
    if isinstance(value, dict):
        if not isinstance(value.get("messages"), list):
            raise fail("messages", "expected the session's messages as a list")
        _envelope(b, value)
        messages, prefix = value["messages"], "messages"
    elif _ui_log(value):
        raise fail(
            "$",
            "this is Cline's UI message log (ui_messages.json), which holds what the UI showed, "
            "not the tool results the model read: read the task's api_conversation_history.json",
        )
    elif isinstance(value, list):
        messages, prefix = value, ""
    else:
        raise fail("$", "expected a Cline task history (a list of messages) or a session")
    for index, message in enumerate(messages):
        walk.message(message, f"{prefix}[{index}]")
    return [b.build()]


def _envelope(b: TraceBuilder, value: dict[str, Any]) -> None:
    """The SDK session's own fields: its id, the agent's role, the system prompt."""
    if isinstance(value.get("sessionId"), str):
        b.labels({"trace_id": value["sessionId"]}, "sessionId")
        b.metadata["session_id"] = value["sessionId"]
    for key in ("agent", "version"):
        if isinstance(value.get(key), (str, int)):
            b.metadata[f"cline_{key}"] = value[key]
    prompt = value.get("system_prompt")
    if isinstance(prompt, str):
        b.input("system", prompt, "system_prompt")
    elif prompt is not None:
        b.note("system_prompt", "system prompt that is not text", prompt)


ADAPTER = Adapter(
    name=NAME,
    description="Cline task histories (also Roo Code, Kilo Code) and Cline SDK session messages",
    detect=detect,
    convert=convert,
)
