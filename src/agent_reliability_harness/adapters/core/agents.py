"""Multi-agent runs (trace v1.2): who took each step and under which step it ran.

Adapters of sources that record agents set `TraceBuilder.agent` / `parent_step_id`
before they add a step; `owned` writes the fields when the trace is built. `SpanTree`
answers both for span exports (OpenAI Agents SDK, OpenTelemetry GenAI, OpenInference,
Langfuse): a step belongs to the nearest agent span at or above its span, and runs under
the step of the nearest span above that agent span which produced one (a tool call that
ran the agent); an agent reached by a hand-off runs under the step that handed off.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


def owned(
    steps: list[dict[str, Any]], owners: dict[int, tuple[str | None, str | None]], default: str
) -> list[dict[str, Any]]:
    """The steps with `agent` and `parent_step_id` after their `type`. Nothing changes for
    a source that records no agent; otherwise every step names its agent (the trace's
    agent_name where the source says nothing), and a parent that names no step of the
    trace is left out."""
    if not owners:
        return steps
    ids = {step["step_id"] for step in steps}
    result = []
    for index, step in enumerate(steps):
        agent, parent = owners.get(index, (None, None))
        head = {"step_id": step["step_id"], "type": step["type"], "agent": agent or default}
        if parent is not None and parent in ids and parent != step["step_id"]:
            head["parent_step_id"] = parent
        result.append({**head, **step})
    return result


def handoff(steps: list[dict[str, Any]], agent: str) -> str | None:
    """The latest hand-off to `agent`: a `transfer_to_<agent>` tool call, as LangGraph's
    handoff tools (langgraph-supervisor, langgraph-swarm) name them (the agent's name in
    lower case, spaces as underscores)."""
    name = "transfer_to_" + agent.strip().lower().replace(" ", "_")
    return next((s["step_id"] for s in reversed(steps) if s.get("tool_name") == name), None)


@dataclass
class SpanTree:
    """The agents of a span export: span id -> parent span id, agent span id -> name."""

    parents: dict[str, str | None] = field(default_factory=dict)
    agents: dict[str, str] = field(default_factory=dict)
    steps: dict[str, str] = field(default_factory=dict)  # span id -> its first step's id
    links: dict[str, str] = field(default_factory=dict)  # agent span id -> hand-off step id
    _homes: dict[str | None, str | None] = field(default_factory=dict)

    @classmethod
    def of(cls, spans: list[tuple[str | None, str | None, str | None]]) -> SpanTree:
        """The tree of (span id, parent span id, agent name or None) entries; a span
        without an id is left out."""
        tree = cls()
        for own, parent, agent in spans:
            if own is not None:
                tree.parents[own] = parent
                if agent is not None:
                    tree.agents[own] = agent
        return tree

    def _climb(self, span_id: str | None, stop: Callable[[str], bool]) -> str | None:
        """The first of the span and its ancestors, nearest first, where `stop` holds (a
        parent missing from the export, or a cycle, ends the climb)."""
        seen: set[str] = set()
        while span_id is not None and span_id not in seen:
            if stop(span_id):
                return span_id
            seen.add(span_id)
            span_id = self.parents.get(span_id)
        return None

    def home(self, span_id: str | None) -> str | None:
        """The agent span at or nearest above the span."""
        if span_id not in self._homes:
            self._homes[span_id] = self._climb(span_id, self.agents.__contains__)
        return self._homes[span_id]

    def owner(self, span_id: str | None, name: str | None = None) -> tuple[str | None, str | None]:
        """(agent, parent step id) of the steps a span produces; `name`: an agent name the
        span itself records (it wins over its agent span's)."""
        home = self.home(span_id)
        if home is None:
            return name, None
        above = self._climb(self.parents.get(home), self.steps.__contains__)
        parent = self.steps[above] if above is not None else self.links.get(home)
        return name or self.agents[home], parent

    def produced(self, span_id: str | None, before: int, steps: list[dict[str, Any]]) -> None:
        """The span produced the steps from index `before` on: the first is the step its
        descendants' agents run under."""
        if span_id is not None and len(steps) > before and span_id not in self.steps:
            self.steps[span_id] = steps[before]["step_id"]
