"""mini-swe-agent trajectories (`{info, messages, trajectory_format}`), part of "swe-agent".

Messages are chat-shaped: bash commands come from assistant `tool_calls` (v2) or
the parsed `extra.actions` / fenced block (text mode); observations carry the return code.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import InputError
from ..io import decode_json
from ._common import (
    TraceBuilder,
    content_text,
    obj,
    opt_amount,
    opt_count,
    opt_list,
    opt_obj,
    opt_str,
)

# The fenced command block of text-mode models (mini-swe-agent v1 and v2's textbased models).
_FENCE = re.compile(r"```(?:bash|mswea_bash_command)\s*\n(.*?)\n```", re.DOTALL)
_RETURNCODE = re.compile(r"\A\s*<returncode>(-?\d{1,10})</returncode>")
_BASH = "bash"


def is_mini(value: Any) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
        return False
    fmt = value.get("trajectory_format")
    info = value.get("info")
    return (isinstance(fmt, str) and fmt.startswith("mini-swe-agent")) or (
        isinstance(info, dict) and "mini_version" in info
    )


def convert_mini(value: dict[str, Any], name_hint: str, source: str) -> dict[str, Any]:
    b = TraceBuilder(source, name_hint, agent_name="mini-swe-agent")
    info = opt_obj(value, "info", "$") or {}
    if "instance_id" in info:
        b.labels({"task_id": info.get("instance_id")}, "info")
    for key in ("exit_status", "submission", "mini_version"):
        if info.get(key) not in (None, ""):
            b.metadata[key] = info[key]
    config = info.get("config")
    model = config.get("model") if isinstance(config, dict) else None
    if isinstance(model, dict) and isinstance(model.get("model_name"), str):
        b.metadata["model"] = model["model_name"]
    if info:
        b.mark("info")
    walk = _Walk(b)
    for index, raw in enumerate(opt_list(value, "messages", "$")):
        at = f"messages[{index}]"
        walk.message(obj(raw, at), at)
    if not walk.priced:
        stats = opt_obj(info, "model_stats", "info")
        cost = opt_amount(stats, "instance_cost", "info.model_stats")
        if cost is not None and b.steps:
            b.measure(0, cost_usd=cost, cost="run total (info.model_stats)")
    return b.build()


class _Walk:
    def __init__(self, b: TraceBuilder) -> None:
        self.b = b
        self.started = False
        self.priced = False
        self.open_ids: list[str] = []

    def message(self, m: dict[str, Any], at: str) -> None:
        role = m.get("role")
        extra: dict[str, Any] = m["extra"] if isinstance(m.get("extra"), dict) else {}
        if role == "assistant":
            self.started = True
            self._assistant(m, extra, at)
            self.b.end_turn()
        elif role == "tool":
            self._observation(m, extra, at, opt_str(m, "tool_call_id", at))
        elif role == "exit":
            self._exit(m, extra, at)
        elif role in ("system", "user"):
            self._user(m, str(role), extra, at)
        else:
            self.b.note(at, "message with an unknown role", m)

    def _user(self, m: dict[str, Any], role: str, extra: dict[str, Any], at: str) -> None:
        if extra.get("interrupt_type") == "FormatError" and isinstance(extra.get("response"), dict):
            self._rejected(extra, at)  # the feedback text itself is an input, below
        elif self.started and self.b.is_open(None) and _returncode(m, extra) is not None:
            self._observation(m, extra, at, None)
            return
        text = content_text(m.get("content"), f"{at}.content", self.b, "\n")
        self.b.input(role, text or "", at)

    def _assistant(self, m: dict[str, Any], extra: dict[str, Any], at: str) -> None:
        b = self.b
        start = len(b.steps)
        reasoning = m.get("reasoning_content")
        if isinstance(reasoning, str) and reasoning:
            b.reasoning(reasoning, f"{at}.reasoning_content")
        text = content_text(m.get("content"), f"{at}.content", b)
        if text:
            b.text(text, at)
        calls = opt_list(m, "tool_calls", at)
        for index, raw in enumerate(calls):
            where = f"{at}.tool_calls[{index}]"
            call = obj(raw, where)
            function = opt_obj(call, "function", where) or {}
            call_id = opt_str(call, "id", where) or None
            name = opt_str(function, "name", where)
            b.call(call_id, name, function.get("arguments"), f"{where}.function.arguments")
            if call_id:
                self.open_ids.append(call_id)
        if not calls:
            self._text_actions(extra, text or "", at)
        self._usage(extra, start, at)

    def _text_actions(self, extra: dict[str, Any], text: str, at: str) -> None:
        actions = extra.get("actions")
        if not isinstance(actions, list):
            found = _FENCE.findall(text)
            for command in found if len(found) == 1 else []:
                self.b.call(None, _BASH, {"command": command}, f"{at}.content")
            return
        for index, action in enumerate(actions):
            where = f"{at}.extra.actions[{index}]"
            command = action.get("command") if isinstance(action, dict) else None
            if isinstance(command, str):
                self.b.call(None, _BASH, {"command": command}, where)
            else:
                self.b.note(where, "action without a command", action)

    def _usage(self, extra: dict[str, Any], start: int, at: str) -> None:
        response = extra.get("response")
        usage = response.get("usage") if isinstance(response, dict) else None
        usage = usage if isinstance(usage, dict) else None
        where = f"{at}.extra.response.usage"
        cost = opt_amount(extra, "cost", f"{at}.extra")
        self.priced = self.priced or cost is not None
        self.b.tokens(
            start,
            opt_count(usage, "prompt_tokens", where),
            opt_count(usage, "completion_tokens", where),
            at,
            cost_usd=cost,
        )

    def _rejected(self, extra: dict[str, Any], at: str) -> None:
        """A model turn mini-swe-agent rejected as malformed: it kept only the raw response."""
        response = extra["response"]
        where = f"{at}.extra.response"
        choices = response.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else None
        message = choice.get("message") if isinstance(choice, dict) else None
        message = message if isinstance(message, dict) else {}
        start = len(self.b.steps)
        text = content_text(message.get("content"), f"{where}.content", self.b)
        self.b.text(text, where, format_error=True)
        for index, call in enumerate(opt_list(message, "tool_calls", where)):
            self.b.note(
                f"{where}.tool_calls[{index}]",
                "tool call rejected as malformed, never executed",
                call,
            )
        self._usage(extra, start, at)
        self.b.end_turn()

    def _observation(
        self, m: dict[str, Any], extra: dict[str, Any], at: str, call_id: str | None
    ) -> None:
        content = m.get("content")
        output = (
            content_text(content, f"{at}.content", self.b, "\n")
            if isinstance(content, list)
            else content
        )
        if call_id in self.open_ids:
            self.open_ids.remove(call_id)
        code = _returncode(m, extra)
        error = None
        if code is not None and code != 0:
            detail = extra.get("exception_info")
            error = f"returncode {code}" + (
                f": {detail}" if isinstance(detail, str) and detail else ""
            )
        failed = None if code is None else code != 0
        self.b.result(call_id, output, at, is_error=failed, error=error)

    def _exit(self, m: dict[str, Any], extra: dict[str, Any], at: str) -> None:
        for key in ("exit_status", "submission"):
            if extra.get(key) not in (None, ""):
                self.b.metadata.setdefault(key, extra[key])
        # The submit command's output is the submission itself (the exit message).
        content = m.get("content")
        if self.open_ids:
            self.b.result(self.open_ids.pop(), content, at, is_error=False)
        elif self.b.is_open(None):
            self.b.result(None, content, at, is_error=False)
        else:
            self.b.mark(at)  # the run's exit status and submission, in trace metadata


def _returncode(m: dict[str, Any], extra: dict[str, Any]) -> int | None:
    code = extra.get("returncode")
    if isinstance(code, int) and not isinstance(code, bool):
        return code
    text = m.get("content")
    if isinstance(text, list):
        parts = [p.get("text") for p in text if isinstance(p, dict)]
        text = "".join(p for p in parts if isinstance(p, str))
    if not isinstance(text, str):
        return None
    found = _RETURNCODE.match(text)
    if found:
        return int(found.group(1))
    if text.lstrip().startswith("{"):
        try:
            decoded = decode_json(text)
        except InputError:
            return None
        code = decoded.get("returncode") if isinstance(decoded, dict) else None
        if isinstance(code, int) and not isinstance(code, bool):
            return code
    return None


__all__ = ["convert_mini", "is_mini"]
