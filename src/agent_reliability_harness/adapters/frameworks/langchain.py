"""The "langchain" format: LangChain / LangGraph message lists as `messages_to_dict`, `dumpd`
and `model_dump` write them, LangGraph state snapshots and checkpoints holding such lists,
and LangSmith run exports (langsmith_runs.py). One trace per message list; one per trace
id of a run export."""

from __future__ import annotations

from typing import Any

from ..core.agents import handoff
from ..core.base import Adapter
from ..core.common import TraceBuilder, fail
from ..core.langchain_messages import add_message, message
from . import langsmith_runs

NAME = "langchain"
# Where LangGraph keeps the message list: state values, a StateSnapshot as a dict, a
# checkpoint (its channel values), a checkpoint tuple.
_PATHS = (
    ("messages",),
    ("values", "messages"),
    ("channel_values", "messages"),
    ("checkpoint", "channel_values", "messages"),
)


def _container(value: Any) -> tuple[list[Any], str] | None:
    """The message list of a document and its location."""
    if isinstance(value, list):
        return value, ""
    for path in _PATHS:
        found: Any = value
        for key in path:
            found = found.get(key) if isinstance(found, dict) else None
        if isinstance(found, list):
            return found, ".".join(path)
    return None


def detect(value: Any) -> bool:
    """A message list (or LangGraph state, snapshot or checkpoint) with serialised LangChain
    messages, or LangSmith runs (`run_type` with `inputs` / `child_runs`)."""
    if langsmith_runs.detect(value):
        return True
    found = _container(value)
    return found is not None and any(message(m) is not None for m in found[0][:1000])


def convert(value: Any, name_hint: str) -> list[Any]:
    if langsmith_runs.detect(value):
        return langsmith_runs.convert(value, name_hint)
    found = _container(value)
    if found is None:
        raise fail("$", "expected a list of LangChain messages or a LangGraph state")
    items, where = found
    b = TraceBuilder(NAME, name_hint)
    _config(b, value)
    for index, raw in enumerate(items):
        _speaker(b, raw)
        add_message(b, raw, f"{where}[{index}]", set())
    if where == "messages":  # state values: labels written next to the messages
        b.labels(value)
    return [b.build()]


def _speaker(b: TraceBuilder, raw: Any) -> None:
    """Trace v1.2: an AI message's `name` is the agent that wrote it (LangGraph's agents
    name their messages); its steps run under the latest hand-off to that agent."""
    found = message(raw)
    if found is None:
        return
    kind, fields = found
    if kind != "ai" and not (kind == "chat" and fields.get("role") == "assistant"):
        return
    name = fields.get("name")
    b.agent = name if isinstance(name, str) and name else None
    b.parent_step_id = handoff(b.steps, b.agent) if b.agent is not None else None


def _config(b: TraceBuilder, value: Any) -> None:
    """LangGraph bookkeeping kept as trace metadata: thread and checkpoint ids."""
    if not isinstance(value, dict):
        return
    config = value.get("config")
    if isinstance(config, dict) and isinstance(config.get("configurable"), dict):
        configurable = config["configurable"]
        for key in ("thread_id", "checkpoint_id", "checkpoint_ns"):
            if isinstance(configurable.get(key), str) and configurable[key]:
                b.metadata[key] = configurable[key]
    inner = value.get("checkpoint")
    checkpoint: dict[str, Any] = inner if isinstance(inner, dict) else value
    if "channel_values" in checkpoint and isinstance(checkpoint.get("id"), str):
        b.metadata["checkpoint_id"] = checkpoint["id"]


ADAPTER = Adapter(
    name=NAME,
    description="LangChain / LangGraph messages and state, LangSmith run exports",
    detect=detect,
    convert=convert,
)
