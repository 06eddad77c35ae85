"""mini-swe-agent trajectories (`{info, messages, trajectory_format}`), part of "swe-agent".

Messages are chat-shaped: bash commands come from assistant `tool_calls` (v2) or
the parsed `extra.actions` / fenced block (text mode); observations carry the return code.
"""

from __future__ import annotations

import re
from typing import Any

from ...errors import InputError
from ...io import decode_json
from ..core.common import (
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
# The head of mini-swe-agent 1.x's `timeout_template` (its default and benchmark configs):
# the observation of a command it killed, in place of a `<returncode>` one.
_TIMEOUT = re.compile(
    r"\AThe last command <command>.*?</command> timed out and has been killed\.\n"
    r"The output of the command was:",
    re.DOTALL,
)
_TIMED_OUT = "timed out: mini-swe-agent killed the command"
# The head of mini-swe-agent 1.x's default `format_error_template`: its feedback on a
# response without exactly one action, whose command was never run.
_FORMAT_ERROR = re.compile(r"\A\s*Please always provide EXACTLY ONE action in triple backticks")
_NOT_RUN = "format error: mini-swe-agent rejected the response (not exactly one action)"
_EMPTY_EXIT = "empty final message of a run (mini-swe-agent 1.x's exit message, with no text)"
_BASH = "bash"
_INFO_KEYS = ("exit_status", "submission", "mini_version", "exception_str", "traceback")


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
    _task_id(b, value, info)
    for key in _INFO_KEYS:
        if info.get(key) not in (None, ""):
            b.metadata[key] = info[key]
    config = info.get("config")
    model = config.get("model") if isinstance(config, dict) else None
    if isinstance(model, dict) and isinstance(model.get("model_name"), str):
        b.metadata["model"] = model["model_name"]
    if info:
        b.mark("info")
    walk = _Walk(b, info.get("exit_status"))
    messages = opt_list(value, "messages", "$")
    for index, raw in enumerate(messages):
        at = f"messages[{index}]"
        walk.message(obj(raw, at), at, last=index == len(messages) - 1)
    if not walk.crashed and ("exception_str" in b.metadata or "traceback" in b.metadata):
        issue = _crash_issue(info.get("exit_status"))
        if "exception_str" in b.metadata:
            b.note("info", issue, b.metadata["exception_str"])
        else:
            b.note("info", issue)  # mini-swe-agent 1.x: the traceback alone
    if not walk.priced:
        stats = opt_obj(info, "model_stats", "info")
        cost = opt_amount(stats, "instance_cost", "info.model_stats")
        if cost is not None and b.steps:
            b.measure(0, cost_usd=cost, cost="run total (info.model_stats)")
    return b.build()


def _task_id(b: TraceBuilder, value: dict[str, Any], info: dict[str, Any]) -> None:
    """The SWE-bench instance: mini-swe-agent's benchmark runners write `instance_id` next
    to `messages`; other runs may carry one in `info`."""
    if "instance_id" in value:
        b.labels({"task_id": value.get("instance_id")})
        if "instance_id" in info and info.get("instance_id") != value.get("instance_id"):
            b.note(
                "info.instance_id", "a second instance_id, unlike the file's", info["instance_id"]
            )
    elif "instance_id" in info:
        b.labels({"task_id": info.get("instance_id")}, "info")


def _crash_issue(status: Any) -> str:
    return f"the run stopped on an exception ({status}), not by the agent"


class _Walk:
    def __init__(self, b: TraceBuilder, exit_status: Any) -> None:
        self.b = b
        self.exit_status = exit_status
        self.started = False
        self.priced = False
        self.crashed = False
        self.open_ids: list[str] = []

    def message(self, m: dict[str, Any], at: str, last: bool = False) -> None:
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
            self._user(m, str(role), extra, at, last)
        else:
            self.b.note(at, "message with an unknown role", m)

    def _user(
        self, m: dict[str, Any], role: str, extra: dict[str, Any], at: str, last: bool
    ) -> None:
        if extra.get("interrupt_type") == "FormatError" and isinstance(extra.get("response"), dict):
            self._rejected(extra, at)  # the feedback text itself is an input, below
        elif self.started and self.b.is_open(None):
            if _returncode(m, extra) is not None or _timed_out(m):
                self._observation(m, extra, at, None)
                return
            if last and self.exit_status in (None, "Submitted"):
                # mini-swe-agent 1.x ends a submitted run with the submission (the output of
                # the submit command after its first line) as a user message.
                self.b.result(None, _output(m, at, self.b), at, is_error=False)
                return
        text = content_text(m.get("content"), f"{at}.content", self.b, "\n")
        if last and self.started and not text:
            self.b.skip(at, _EMPTY_EXIT)
            return
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
        if call_id in self.open_ids:
            self.open_ids.remove(call_id)
        failed, error = _outcome(m, extra)
        self.b.result(call_id, _output(m, at, self.b), at, is_error=failed, error=error)

    def _exit(self, m: dict[str, Any], extra: dict[str, Any], at: str) -> None:
        b = self.b
        for key in _INFO_KEYS:
            if extra.get(key) not in (None, ""):
                b.metadata.setdefault(key, extra[key])
        exception = extra.get("exception_str")
        status = extra.get("exit_status", self.exit_status)
        error = f"{status}: {exception}" if isinstance(exception, str) and exception else None
        # The submit command's output is the submission itself (the exit message); an
        # exception raised while a command ran is that command's failure.
        content = _output(m, at, b)
        call_id = self.open_ids.pop() if self.open_ids else None
        if call_id is not None or b.is_open(None):
            b.result(call_id, content, at, is_error=error is not None, error=error)
        else:
            if content not in (None, "") and content != exception:
                b.metadata.setdefault("exit_message", content)
            b.mark(at)  # the run's exit status, submission or exception, in trace metadata
        if error is not None:
            self.crashed = True
            b.note(at, _crash_issue(status), exception)


def _output(m: dict[str, Any], at: str, b: TraceBuilder) -> Any:
    """An observation's output: its text (text parts joined), else the content as is."""
    content = m.get("content")
    return content_text(content, f"{at}.content", b, "\n") if isinstance(content, list) else content


def _outcome(m: dict[str, Any], extra: dict[str, Any]) -> tuple[bool | None, str | None]:
    """(failed, error) of an observation: its return code, or mini-swe-agent's timeout."""
    code = _returncode(m, extra)
    if code is None:
        return (True, _TIMED_OUT) if _timed_out(m) else (None, None)
    if code == 0:
        return False, None
    detail = extra.get("exception_info")
    return True, f"returncode {code}" + (
        f": {detail}" if isinstance(detail, str) and detail else ""
    )


def text_outcome(text: Any) -> tuple[bool | None, str | None]:
    """(failed, error) an observation's text says (converted trajectories keep only the
    text): its `<returncode>` (non-zero: failed), mini-swe-agent's timeout or its
    format-error feedback (the command was not run); (None, None) when it says neither."""
    if not isinstance(text, str):
        return None, None
    if _FORMAT_ERROR.match(text):
        return True, _NOT_RUN
    return _outcome({"content": text}, {})


def _text(m: dict[str, Any]) -> str | None:
    text = m.get("content")
    if isinstance(text, list):
        parts = [p.get("text") for p in text if isinstance(p, dict)]
        text = "".join(p for p in parts if isinstance(p, str))
    return text if isinstance(text, str) else None


def _timed_out(m: dict[str, Any]) -> bool:
    text = _text(m)
    return text is not None and _TIMEOUT.match(text) is not None


def _returncode(m: dict[str, Any], extra: dict[str, Any]) -> int | None:
    code = extra.get("returncode")
    if isinstance(code, int) and not isinstance(code, bool):
        return code
    text = _text(m)
    if text is None:
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


__all__ = ["convert_mini", "is_mini", "text_outcome"]
