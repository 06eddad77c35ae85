"""The "atif" format: Agent Trajectory Interchange Format trajectories (Harbor /
Terminal-Bench, RFC 0001-trajectory-format, ATIF-v1.0 to v1.7).

One object: `schema_version` ("ATIF-v1.x"), `session_id`, `agent` {name, version,
model_name}, `steps` and optional `final_metrics`, `notes`, `extra`, and (v1.7) embedded
`subagent_trajectories`. A step has an ordinal `step_id`, a `source` (system, user or
agent), a `message`, and for agent steps `reasoning_content`, `tool_calls`
[{tool_call_id, function_name, arguments}], `observation` {results: [{source_call_id,
content, subagent_trajectory_ref}]} and `metrics` {prompt_tokens (cached included),
completion_tokens, cost_usd}. `final_metrics` totals are the sums of the step metrics:
they are read only when no step has metrics. A result that references an embedded
subagent trajectory is followed by that trajectory's steps, taken by the subagent
(`agent`) under the call that delegated to it (`parent_step_id`).
"""

from __future__ import annotations

from typing import Any

from ..core.base import Adapter
from ..core.common import TraceBuilder, fail, obj, opt_amount, opt_count, opt_list, opt_obj, opt_str
from ..core.totals import RecordedTotals
from ._atif_steps import agent_message, openai_call, pair_results, request_messages
from .swe_agent_mini import text_outcome

NAME = "atif"
_ROOT_BOOKKEEPING = ("extra", "notes", "continued_trajectory_ref", "trajectory_id")


def detect(value: Any) -> bool:
    """An object whose `schema_version` is an ATIF version, with `steps`."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("schema_version"), str)
        and value["schema_version"].startswith("ATIF-")
        and isinstance(value.get("steps"), list)
    )


class _Reader:
    def __init__(self, root: dict[str, Any], name_hint: str) -> None:
        agent = root.get("agent")
        name = agent.get("name") if isinstance(agent, dict) else None
        self.b = TraceBuilder(NAME, name_hint, agent_name=name if isinstance(name, str) else None)
        self.embedded: dict[str, tuple[str, dict[str, Any]]] = {}

    def trajectory(
        self, root: dict[str, Any], at: str, agent: str | None = None, parent: str | None = None
    ) -> None:
        for index, raw in enumerate(opt_list(root, "subagent_trajectories", at)):
            where = f"{at}.subagent_trajectories[{index}]"
            sub = obj(raw, where)
            key = opt_str(sub, "trajectory_id", where) or opt_str(sub, "session_id", where)
            if key is not None:
                self.embedded[key] = (where, sub)
            else:
                self.b.note(where, "subagent trajectory without an id", sub)
        model = None
        info = opt_obj(root, "agent", at)
        if info is not None:
            model = opt_str(info, "model_name", f"{at}.agent")
        for index, raw in enumerate(opt_list(root, "steps", at)):
            where = f"{at}.steps[{index}]"
            self._step(obj(raw, where), where, model, agent, parent)

    def _step(
        self,
        step: dict[str, Any],
        at: str,
        model: str | None,
        agent: str | None,
        parent: str | None,
    ) -> None:
        b = self.b
        source = step.get("source")
        message = step.get("message")
        text = message if isinstance(message, str) else None
        if source in ("system", "user") and parent is not None:
            # A subagent's prompt: the task its delegating call gave it, kept with that call.
            self._task(parent, text if text is not None else message)
            b.mark(at)
            return
        if source in ("system", "user"):
            self._input(step, str(source), message, at)
            return
        if source != "agent":
            b.note(at, "step of an unknown source", step)
            return
        start = len(b.steps)
        model = opt_str(step, "model_name", at) or model
        calls = opt_list(step, "tool_calls", at)
        reasoning = opt_str(step, "reasoning_content", at)
        chat_calls: list[Any] = []
        if isinstance(message, dict):
            text, said, chat_calls = agent_message(b, message, f"{at}.message", bool(calls))
            reasoning = reasoning or said
        elif message is not None and text is None:
            b.note(f"{at}.message", "message that is not a string", message)
        if reasoning:
            b.reasoning(reasoning, f"{at}.reasoning_content")
        if text or not (calls or chat_calls):
            self._own(b.text(text or None, at, model=model), agent, parent)
        taken: list[tuple[str, int]] = []
        for index, raw in enumerate(calls):
            where = f"{at}.tool_calls[{index}]"
            call = obj(raw, where)
            call_id = opt_str(call, "tool_call_id", where)
            name = opt_str(call, "function_name", where)
            taken.append(self._call(call_id, name, call.get("arguments"), where, model))
        for index, raw in enumerate(chat_calls):
            where = f"{at}.message.tool_calls[{index}]"
            call_id, name, arguments = openai_call(raw, where)
            taken.append(self._call(call_id, name, arguments, where, model))
        for _, index in taken:
            self._own(index, agent, parent)
        self._metrics(step, at, start)
        self._observation(step, at, taken)
        b.end_turn(model=model)

    def _call(
        self, call_id: str | None, name: str | None, arguments: Any, at: str, model: str | None
    ) -> tuple[str, int]:
        index = self.b.call(call_id, name, arguments, f"{at}.arguments", model=model)
        return self.b.steps[index]["step_id"], index

    def _input(self, step: dict[str, Any], source: str, message: Any, at: str) -> None:
        b = self.b
        if step.get("tool_calls") or step.get("metrics"):
            b.note(at, f"{source} step with tool calls or metrics", step)
        if isinstance(message, list):
            request_messages(b, message, source, f"{at}.message")
            b.mark(at)
        else:
            if message is not None and not isinstance(message, str):
                b.note(f"{at}.message", "message that is not a string", message)
            b.input(source, message if isinstance(message, str) else "", at)
        self._observation(step, at, [])

    def _task(self, parent: str, message: Any) -> None:
        caller = next((s for s in self.b.steps if s.get("step_id") == parent), None)
        if caller is not None:
            caller.setdefault("metadata", {}).setdefault("subagent_tasks", []).append(message)

    def _own(self, index: int, agent: str | None, parent: str | None) -> None:
        """The v1.2 fields of a subagent's step: its agent, and the call it ran under."""
        step = self.b.steps[index]
        if agent is not None:
            step["agent"] = agent
        if parent is not None:
            step["parent_step_id"] = parent

    def _metrics(self, step: dict[str, Any], at: str, start: int) -> None:
        metrics = opt_obj(step, "metrics", at)
        if metrics is None:
            return
        where = f"{at}.metrics"
        inp = opt_count(metrics, "prompt_tokens", where)
        out = opt_count(metrics, "completion_tokens", where)
        cost = opt_amount(metrics, "cost_usd", where)
        self.b.tokens(start, inp, out, where, cost_usd=cost)

    def _observation(self, step: dict[str, Any], at: str, calls: list[tuple[str, int]]) -> None:
        observation = opt_obj(step, "observation", at)
        if observation is None:
            return
        results: list[tuple[str, dict[str, Any]]] = []
        for index, raw in enumerate(opt_list(observation, "results", f"{at}.observation")):
            where = f"{at}.observation.results[{index}]"
            results.append((where, obj(raw, where)))
        answers = pair_results([r for _, r in results], calls)
        for (where, result), answered in zip(results, answers, strict=True):
            self._result(result, where, answered)

    def _result(self, result: dict[str, Any], at: str, answered: list[int]) -> None:
        b = self.b
        call_id = opt_str(result, "source_call_id", at)
        content = _content(result.get("content"))
        failed, error = text_outcome(content)
        caller: dict[str, Any] | None
        if answered:
            # The step's own call(s): the content is kept once, on the last call it answers.
            holder = b.steps[answered[-1]]
            b.settle(answered[-1], content, error=error, is_error=failed)
            for index in answered[:-1]:
                b.settle(index, error=error, is_error=failed)
                b.steps[index].setdefault("metadata", {})["output_with"] = holder["step_id"]
            b.mark(at)
            caller = holder
        elif call_id is None:
            # An action without a tool call (or a system operation): kept with the last step.
            if b.steps:
                b.steps[-1].setdefault("metadata", {}).setdefault("observations", []).append(
                    content
                )
                b.mark(at)
            else:
                b.note(at, "observation before any step", result)
            return
        else:
            if not b.result(call_id, content, at, error=error, is_error=failed):
                return
            caller = next((s for s in reversed(b.steps) if s.get("step_id") == call_id), None)
        refs = opt_list(result, "subagent_trajectory_ref", at)
        for index, raw in enumerate(refs):
            self._subagent(raw, f"{at}.subagent_trajectory_ref[{index}]", caller)

    def _subagent(self, raw: Any, at: str, caller: dict[str, Any] | None) -> None:
        """A delegated subagent: its embedded trajectory's steps, or the reference."""
        ref = obj(raw, at)
        key = opt_str(ref, "trajectory_id", at) or opt_str(ref, "session_id", at)
        found = self.embedded.pop(key, None) if key is not None else None
        if caller is not None:
            caller.setdefault("metadata", {}).setdefault("subagent_trajectories", []).append(ref)
        if found is None:
            self.b.mark(at)  # a trajectory kept in another file: the reference is kept
            return
        where, sub = found
        info = sub.get("agent")
        name = info.get("name") if isinstance(info, dict) else None
        parent = caller.get("step_id") if caller is not None else None
        self.b.mark(at)
        self.trajectory(sub, where, name if isinstance(name, str) else key, parent)

    def finish(self, root: dict[str, Any]) -> dict[str, Any]:
        b = self.b
        for where, sub in self.embedded.values():
            b.note(where, "subagent trajectory that no result references", sub)
        final = opt_obj(root, "final_metrics", "$")
        if final is not None:
            b.recorded_totals(_totals(final))
        for key in _ROOT_BOOKKEEPING:
            if root.get(key) is not None:
                b.skip(f"$.{key}", f"trajectory {key}")
        return b.build()


def _totals(final: dict[str, Any]) -> RecordedTotals:
    """The run totals of `final_metrics` (NeMo-Relay's early exporter wrote the step
    metrics' key names, `prompt_tokens` and `completion_tokens`)."""
    at = "$.final_metrics"
    inp = opt_count(final, "total_prompt_tokens", at)
    out = opt_count(final, "total_completion_tokens", at)
    return RecordedTotals(
        at,
        inp if inp is not None else opt_count(final, "prompt_tokens", at),
        out if out is not None else opt_count(final, "completion_tokens", at),
        opt_amount(final, "total_cost_usd", at),
    )


def _content(value: Any) -> Any:
    """A result's content: text, or (v1.6+) content parts whose text joins."""
    if isinstance(value, list) and all(
        isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
        for p in value
    ):
        return "\n".join(p["text"] for p in value)
    return value


def convert(value: Any, name_hint: str) -> list[Any]:
    if not detect(value):
        raise fail("$", 'expected an ATIF trajectory (schema_version "ATIF-v1.x" and steps)')
    reader = _Reader(value, name_hint)
    b = reader.b
    b.labels({"trace_id": value.get("session_id")}, "$")
    b.mark("$")
    info = value.get("agent")
    if isinstance(info, dict):
        for key in ("version", "model_name"):
            if isinstance(info.get(key), str):
                b.metadata[f"agent_{key}"] = info[key]
    b.metadata["schema_version"] = value["schema_version"]
    reader.trajectory(value, "$")
    return [reader.finish(value)]


ADAPTER = Adapter(
    name=NAME,
    description="ATIF agent trajectories (Harbor, Terminal-Bench; ATIF-v1.x JSON)",
    detect=detect,
    convert=convert,
)
