"""The "openhands" format: OpenHands event trajectories and evaluation `output.jsonl` records.

A trajectory is the JSON array of events OpenHands saves (`save_trajectory_path`, the
replay files); an evaluation record is one line of a benchmark's `output.jsonl`
(`instance_id`, `history` = the events, `metrics`, `test_result`, `error`). Actions are
the agent's steps; an observation answers the action its `cause` names. Each action the
model produced carries `tool_call_metadata` with the ChatCompletion behind it (usage
included), counted once per completion id.
"""

from __future__ import annotations

from typing import Any

from ..core.base import Adapter
from ..core.common import TraceBuilder, arr, content_text, fail, obj, opt_count, opt_obj, opt_str

NAME = "openhands"
# Events OpenHands writes about itself, not the run (see docs/adapters.md).
_STATE_ACTIONS = {"change_agent_state": "agent state change", "recall": "workspace recall request"}
_STATE_OBSERVATIONS = {
    "agent_state_changed": "agent state change",
    "null": "empty observation",
    "recall": "workspace context added by OpenHands (repository and microagent instructions)",
}
_DELEGATE = "delegate"
# Observations that fail the action they answer: an error, a user who rejected the
# action in confirmation mode.
_FAILURES = ("error", "user_rejected")


def _is_event(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and "id" in item
        and isinstance(item.get("source"), str)
        and ("action" in item or "observation" in item)
    )


def _is_record(item: Any) -> bool:
    history = item.get("history") if isinstance(item, dict) else None
    return isinstance(history, list) and any(_is_event(e) for e in history[:1000])


def detect(value: Any) -> bool:
    """An array of OpenHands events (`id`, `source`, `action` or `observation`), an
    evaluation record (`history` of such events), or an array of records."""
    if isinstance(value, dict):
        return _is_record(value)
    if isinstance(value, list):
        return any(_is_event(v) or _is_record(v) for v in value[:1000])
    return False


def convert(value: Any, name_hint: str) -> list[Any]:
    if isinstance(value, dict) and _is_record(value):
        return [_record(value, "$", name_hint)]
    if not isinstance(value, list):
        raise fail("$", "expected OpenHands events or evaluation records")
    if value and all(isinstance(v, dict) and "history" in v for v in value):
        many = len(value) > 1
        return [
            _record(obj(v, f"[{n}]"), f"[{n}]", f"{name_hint}-{n + 1}" if many else name_hint)
            for n, v in enumerate(value)
        ]
    b = TraceBuilder(NAME, name_hint)
    _Events(b).walk(value, "")
    return [b.build()]


def _record(record: dict[str, Any], at: str, hint: str) -> dict[str, Any]:
    """One evaluation record: the run's events, its labels and what the harness recorded."""
    b = TraceBuilder(NAME, hint)
    prefix = "" if at == "$" else at
    b.labels({"task_id": record.get("instance_id")}, prefix)
    meta: dict[str, Any] = {}
    settings = opt_obj(record, "metadata", at) or {}
    if isinstance(settings.get("agent_class"), str):
        b.agent_name = settings["agent_class"]
        meta["agent_class"] = settings["agent_class"]
    llm = settings.get("llm_config")
    if isinstance(llm, dict) and isinstance(llm.get("model"), str):
        meta["model"] = llm["model"]
    for key in ("max_iterations", "dataset"):
        if settings.get(key) is not None:
            meta[key] = settings[key]
    if record.get("error") is not None:
        meta["error"] = record["error"]  # the run stopped early (iteration limit, crash)
    metrics = opt_obj(record, "metrics", at) or {}
    if isinstance(metrics.get("accumulated_token_usage"), dict):
        meta["accumulated_token_usage"] = metrics["accumulated_token_usage"]
    if metrics.get("accumulated_cost") is not None:
        meta["accumulated_cost"] = metrics["accumulated_cost"]
    _test_result(b, record, at, meta)
    b.metadata["openhands"] = meta
    events = _Events(b)
    where = f"{prefix}.history" if prefix else "history"
    events.walk(arr(record.get("history"), where), where)
    if not events.usage_seen:
        _run_total(b, metrics, f"{prefix}.metrics" if prefix else "metrics")
    return b.build()


def _test_result(b: TraceBuilder, record: dict[str, Any], at: str, meta: dict[str, Any]) -> None:
    """`test_result`: the agent's patch, and the benchmark's verdict where it wrote one
    (`report.resolved`, SWE-bench style) as the trace outcome."""
    result = opt_obj(record, "test_result", at)
    if result is None:
        return
    meta["test_result"] = result
    report = result.get("report")
    resolved = report.get("resolved") if isinstance(report, dict) else None
    if isinstance(resolved, bool):
        b.labels({"outcome": {"success": resolved}}, at)


def _run_total(b: TraceBuilder, metrics: dict[str, Any], at: str) -> None:
    """No action carried its completion: the record's accumulated usage goes on the first
    step, once (`metadata.usage` says it is a run total)."""
    usage = opt_obj(metrics, "accumulated_token_usage", at)
    where = f"{at}.accumulated_token_usage"
    prompt = opt_count(usage, "prompt_tokens", where)
    completion = opt_count(usage, "completion_tokens", where)
    if b.steps and (prompt, completion) != (None, None):
        b.tokens(0, prompt, completion, where)
        b.measure(0, usage="run total (metrics.accumulated_token_usage)")


class _Events:
    """Walks one event stream: actions become steps, observations results; a delegation
    (`delegate` action) puts the steps until its observation under the delegate agent."""

    def __init__(self, b: TraceBuilder) -> None:
        self.b = b
        self.usage_seen = False
        self.completions: set[str] = set()
        self.calls: dict[Any, int] = {}  # action event id -> its call's step index
        self.delegations: list[tuple[Any, str, str]] = []  # (event id, agent, step id)

    def walk(self, events: list[Any], at: str) -> None:
        for index, raw in enumerate(events):
            where = f"{at}[{index}]"
            event = obj(raw, where)
            if isinstance(event.get("action"), str):
                self.action(event, where)
            elif isinstance(event.get("observation"), str):
                self.observation(event, where)
            else:
                self.b.note(where, "event that is neither an action nor an observation", event)

    def attribute(self, start: int) -> None:
        """Steps added since `start` ran under the innermost open delegation."""
        if not self.delegations:
            return
        _, agent, parent = self.delegations[-1]
        for step in self.b.steps[start:]:
            step["agent"] = agent
            step["parent_step_id"] = parent

    def action(self, event: dict[str, Any], at: str) -> None:
        b, kind, source = self.b, event.get("action"), event.get("source")
        args = opt_obj(event, "args", at) or {}
        start = len(b.steps)
        if kind in _STATE_ACTIONS:
            b.skip(at, _STATE_ACTIONS[str(kind)])
        elif kind == "system":
            b.input("system", _text(b, args.get("content"), at), at)
        elif kind == "message" and source != "agent":
            b.input("user", _text(b, args.get("content", event.get("message")), at), at)
        elif kind == "message":
            self.usage(event, at, start)
            b.text(_text(b, args.get("content", event.get("message")), at), at)
        else:
            self.tool_action(event, args, at)
        self.attribute(start)
        if kind == _DELEGATE and len(b.steps) > start:
            agent = args.get("agent")
            name = agent if isinstance(agent, str) else "delegate"
            self.delegations.append((_key(event.get("id")), name, b.steps[-1]["step_id"]))

    def tool_action(self, event: dict[str, Any], args: dict[str, Any], at: str) -> None:
        """An action the agent took: its thought (the model's text) and the call."""
        b = self.b
        start = len(b.steps)
        meta = opt_obj(event, "tool_call_metadata", at)
        thought = args.get("thought")
        if isinstance(thought, str) and thought.strip() and not self._said(meta, at):
            b.text(thought, f"{at}.args.thought")
        if meta is not None:
            call_id = opt_str(meta, "tool_call_id", f"{at}.tool_call_metadata") or None
            name = opt_str(meta, "function_name", f"{at}.tool_call_metadata")
            raw = _model_arguments(meta, call_id)
            index = b.call(call_id, name, raw if raw is not None else _args(args), at)
        else:
            call_id, name = None, str(event.get("action"))
            index = b.call(None, name, _args(args), at)
        key = _key(event.get("id"))
        if key is not None:
            self.calls[key] = index
        b.measure(index, action=event.get("action"))
        self.usage(event, at, start)

    def _said(self, meta: dict[str, Any] | None, at: str) -> bool:
        """The thought of a second call of one completion repeats the first call's."""
        response = opt_obj(meta or {}, "model_response", f"{at}.tool_call_metadata")
        key = response.get("id") if response else None
        return isinstance(key, str) and key in self.completions

    def usage(self, event: dict[str, Any], at: str, start: int) -> None:
        """The completion's usage, on the first step it produced, once per completion id."""
        meta = event.get("tool_call_metadata")
        response = meta.get("model_response") if isinstance(meta, dict) else None
        if not isinstance(response, dict):
            return
        key = response.get("id")
        if isinstance(key, str):
            if key in self.completions:
                return
            self.completions.add(key)
        where = f"{at}.tool_call_metadata.model_response.usage"
        usage = opt_obj(response, "usage", f"{at}.tool_call_metadata.model_response")
        prompt = opt_count(usage, "prompt_tokens", where)
        completion = opt_count(usage, "completion_tokens", where)
        if (prompt, completion) != (None, None):
            self.usage_seen = True
        self.b.tokens(start, prompt, completion, where)
        if start < len(self.b.steps) and isinstance(response.get("model"), str):
            self.b.measure(start, model=response["model"])

    def observation(self, event: dict[str, Any], at: str) -> None:
        b, kind = self.b, event.get("observation")
        start = len(b.steps)
        cause = _key(event.get("cause"))
        if self.delegations and kind == _DELEGATE and cause == self.delegations[-1][0]:
            self.delegations.pop()
        if kind in _STATE_OBSERVATIONS:
            b.skip(at, _STATE_OBSERVATIONS[str(kind)])
            return
        content = event.get("content")
        if kind == "error" and cause is None and event.get("tool_call_metadata") is None:
            # OpenHands rejected the model's function call before any action (a bad
            # parameter, an unknown tool): the model's turn failed, as its text says.
            index = b.text(None, at, openhands="function call rejected by OpenHands")
            b.settle(index, error=_text(b, content, at) or "error observation")
            self.attribute(start)
            return
        error, failed = _status(event, kind, content)
        answered = self.calls.pop(cause) if cause in self.calls else None
        if answered is not None:  # the action it answers, named by `cause`
            b.settle(answered, content, error=error, is_error=failed)
            b.mark(at)
            return
        meta = event.get("tool_call_metadata")
        known = meta.get("tool_call_id") if isinstance(meta, dict) else None
        if isinstance(known, str) and known:  # its action is not in the events: by call id
            b.result(known, content, at, error=error, is_error=failed)
        else:
            b.note(at, "observation of an action the events do not hold", event)


def _key(value: Any) -> int | str | None:
    """An event id (or `cause`) usable as a key: an integer or a string."""
    if isinstance(value, int | str) and not isinstance(value, bool):
        return value
    return None


def _status(event: dict[str, Any], kind: Any, content: Any) -> tuple[str | None, bool | None]:
    """An error (or user_rejected) observation fails its action; a command fails with a
    non-zero exit code
    (`extras.metadata.exit_code`; -1 is a command OpenHands timed out or interrupted)."""
    if kind in _FAILURES:
        return (content if isinstance(content, str) and content else f"{kind} observation"), True
    extras = event.get("extras")
    meta = extras.get("metadata") if isinstance(extras, dict) else None
    code = meta.get("exit_code") if isinstance(meta, dict) else None
    if kind == "run" and isinstance(code, int) and not isinstance(code, bool):
        return (f"exit code {code}" if code != 0 else None), code != 0
    return None, None


def _model_arguments(meta: dict[str, Any], call_id: str | None) -> Any:
    """The arguments the model wrote for this call, from the completion it carries."""
    response = meta.get("model_response")
    choices = response.get("choices") if isinstance(response, dict) else None
    if not call_id or not isinstance(choices, list):
        return None
    for choice in choices:
        message = choice.get("message") if isinstance(choice, dict) else None
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict) and call.get("id") == call_id:
                function = call.get("function")
                return function.get("arguments") if isinstance(function, dict) else None
    return None


def _args(args: dict[str, Any]) -> dict[str, Any]:
    """An action's own fields without its thought (mapped as the model's text)."""
    return {k: v for k, v in args.items() if k != "thought"}


def _text(b: TraceBuilder, content: Any, at: str) -> str:
    return content_text(content, at, b, "\n") or ""


ADAPTER = Adapter(
    name=NAME,
    description="OpenHands event trajectories and evaluation output.jsonl records",
    detect=detect,
    convert=convert,
)
