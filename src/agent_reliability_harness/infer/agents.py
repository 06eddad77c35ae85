"""Per-agent tool sets (policy v1.2 `agents`) from good runs whose steps name their agent:
each agent's entry allows the tools that agent called (with the argument names it passed,
declared as any value, so the entry adds no argument check of its own: the top-level
`allowed_tools` already has those). Written only when some step carries `agent` and the
good runs show two or more agents; a step without `agent` belongs to its trace's
`agent_name`, as the spec says.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..models.trace import Trace
from .entities import Say


def glob_literal(text_: str) -> str:
    """An fnmatch glob matching exactly `text_`."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in text_)


@dataclass(slots=True)
class AgentTool:
    runs: int = 0
    calls: int = 0
    args: set[str] = field(default_factory=set)

    def merge(self, other: AgentTool) -> None:
        self.runs += other.runs
        self.calls += other.calls
        self.args |= other.args


@dataclass(slots=True)
class AgentStats:
    """Agent -> tool -> its calls by that agent; whether any step named its agent."""

    named: bool = False
    runs: dict[str, int] = field(default_factory=dict)  # agent -> runs it took a step in
    tools: dict[str, dict[str, AgentTool]] = field(default_factory=dict)

    def add(self, trace: Trace) -> None:
        seen: set[str] = set()
        called: set[tuple[str, str]] = set()
        for step in trace.steps:
            self.named = self.named or step.agent is not None
            agent = step.agent if step.agent is not None else trace.agent_name
            if not agent:
                continue
            seen.add(agent)
            tools = self.tools.setdefault(agent, {})
            if step.is_tool_call and step.tool_name is not None:
                tool = tools.setdefault(step.tool_name, AgentTool())
                tool.calls += 1
                tool.args.update(step.arguments or {})
                called.add((agent, step.tool_name))
        for agent in seen:
            self.runs[agent] = self.runs.get(agent, 0) + 1
        for agent, name in called:
            self.tools[agent][name].runs += 1

    def merge(self, other: AgentStats) -> None:
        self.named = self.named or other.named
        for agent, count in other.runs.items():
            self.runs[agent] = self.runs.get(agent, 0) + count
        for agent, tools in other.tools.items():
            mine = self.tools.setdefault(agent, {})
            for name, tool in tools.items():
                mine.setdefault(name, AgentTool()).merge(tool)

    def section(self, say: Say) -> dict[str, Any]:
        """The `agents` section ({} when fewer than two agents, or none named);
        `say(path, statement, target)` records the evidence."""
        if not self.named or len(self.tools) < 2:
            return {}
        out: dict[str, Any] = {}
        for agent in sorted(self.tools):
            key = glob_literal(agent)
            allowed: dict[str, Any] = {}
            for name, tool in sorted(self.tools[agent].items()):
                schema: dict[str, Any] = {}
                say(
                    f"agents.{key}.allowed_tools.{name}",
                    f"called by agent {agent} in {tool.runs} of its {self.runs[agent]} good "
                    f"runs ({tool.calls} calls)",
                    schema,
                )
                if tool.args:
                    schema["optional_arguments"] = {arg: {} for arg in sorted(tool.args)}
                allowed[name] = schema
            if not allowed:
                say(f"agents.{key}", f"agent {agent} called no tool in {self.runs[agent]} runs")
            out[key] = {"allowed_tools": allowed}
        return out
