"""Policy v1.2 `agents`: each agent entry checked against each agent's own steps.

A step's agent is its `agent`, else the trace's `agent_name`; it belongs to the first
entry whose glob matches. Every agent that belongs to an entry gets a run of that
entry's Evaluator of its own, fed its steps in order as the trace is read (a chunk at a
time or whole), exactly as a trace of its own; the run's findings carry the agent
and the ORIGINAL positions and ids of their steps, and its checks add to their
categories (scoring.combined_scores). An entry's runs come in order of each agent's
first step.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import msgspec

from .models.common import Category
from .models.policy import Policy
from .models.report import Finding
from .models.trace import Step, Trace
from .rules import Rule

if TYPE_CHECKING:
    from .engine import Evaluator, TraceRun
    from .scoring import Tally

# A policy with nothing in it: the rules that apply even to it read only the trace
# (lint, citation coverage) and stay with the whole trace, except the allowed-tools
# check, which an entry's `allowed_tools` turns on.
_NOTHING = Policy(policy_id="-", allow_unlisted_tools=True)
_TOOL_NOT_ALLOWED = "ARH-SCH-001"


def entry_rule(rule: Rule, policy: Policy) -> bool:
    """Whether an agent entry's run applies this rule: one its sections turn on."""
    if not rule.applies(policy):
        return False
    if rule.rule_id == _TOOL_NOT_ALLOWED:
        return not policy.allow_unlisted_tools
    return not rule.applies(_NOTHING)


class AgentPlan:
    """Per Evaluator: the compiled Evaluator of each agent entry, in key order."""

    __slots__ = ("entries", "evaluators")

    def __init__(self, policy: Policy, make: Callable[[Policy], Evaluator]) -> None:
        assert policy.agents is not None
        self.entries = policy.agents
        self.evaluators = tuple(make(entry) for _, entry in policy.agents.entries)

    def start(self, head: Trace | None = None, probing: bool = False) -> AgentRuns:
        """`head`: the trace's top-level fields, when known before its steps."""
        return AgentRuns(self, head, probing)


class _AgentRun:
    """One agent's run: its TraceRun and where its steps are in the trace (blocks of
    consecutive positions: (first position in the run, first position in the trace))."""

    __slots__ = ("count", "run", "starts", "trace_starts")

    def __init__(self, run: TraceRun) -> None:
        self.run = run
        self.count = 0
        self.starts: list[int] = []
        self.trace_starts: list[int] = []

    def add(self, steps: list[Step], positions: list[int], complete: bool) -> None:
        count, last = self.count, None
        if self.starts:
            last = self.trace_starts[-1] + (count - self.starts[-1]) - 1
        for offset, position in enumerate(positions):
            if last is None or position != last + 1:
                self.starts.append(count + offset)
                self.trace_starts.append(position)
            last = position
        self.count += len(steps)
        self.run.add(steps, complete)

    def position(self, index: int | None) -> int | None:
        """The trace position of the run's step `index` (other values unchanged)."""
        if index is None or not 0 <= index < self.count:
            return index
        block = bisect_right(self.starts, index) - 1
        return self.trace_starts[block] + index - self.starts[block]


class AgentRuns:
    """Per trace: the run of each agent that belongs to an entry, by agent name."""

    __slots__ = ("head", "pending", "plan", "probing", "runs")

    def __init__(self, plan: AgentPlan, head: Trace | None = None, probing: bool = False) -> None:
        self.plan = plan
        self.head = head
        self.probing = probing
        self.runs: dict[str, _AgentRun | None] = {}  # None: an unlisted agent
        # Chunks (steps, start, complete) held while a step needs the trace's agent_name
        # and it is not known yet (a trace read a chunk at a time that gives it last).
        self.pending: list[tuple[Sequence[Step], int, bool]] = []

    def add(
        self, steps: Sequence[Step], start: int, agent_name: str | None, complete: bool
    ) -> None:
        """The trace's next steps (at positions `start`...); `agent_name` is the trace's."""
        if agent_name is None:
            if self.pending or any(step.agent is None for step in steps):
                self.pending.append((steps, start, complete))
                return
        elif self.pending:
            self._flush(agent_name)
        self._add(steps, start, agent_name, complete)

    def _flush(self, agent_name: str) -> None:
        pending, self.pending = self.pending, []
        for steps, start, complete in pending:
            self._add(steps, start, agent_name, complete)

    def _add(
        self, steps: Sequence[Step], start: int, agent_name: str | None, complete: bool
    ) -> None:
        groups: dict[str, tuple[list[Step], list[int]]] = {}
        for position, step in enumerate(steps, start):
            agent = step.agent
            if agent is None:
                assert agent_name is not None
                agent = agent_name
            group = groups.get(agent)
            if group is None:
                group = groups[agent] = ([], [])
            group[0].append(step)
            group[1].append(position)
        for agent, (mine, positions) in groups.items():
            run = self._run(agent)
            if run is not None:
                run.add(mine, positions, complete)

    def _run(self, agent: str) -> _AgentRun | None:
        runs = self.runs
        if agent not in runs:
            index = self.plan.entries.index(agent)
            runs[agent] = (
                None
                if index is None
                else _AgentRun(self.plan.evaluators[index].start(self._head(agent), self.probing))
            )
        return runs[agent]

    def _head(self, agent: str) -> Trace | None:
        head = self.head
        return None if head is None else msgspec.structs.replace(head, agent_name=agent, steps=())

    def probe(self, step: Step, position: int, agent_name: str | None) -> list[Finding]:
        """The findings of the call's agent entry's preventive rules on the call `step`
        if it came next, at trace position `position` (TraceRun.probe)."""
        agent = step.agent if step.agent is not None else agent_name
        if agent is None or self.pending:
            return []
        run = self._run(agent)
        if run is None:
            return []
        return [
            msgspec.structs.replace(
                finding,
                agent=agent,
                step_index=position,
                source_step_index=run.position(finding.source_step_index),
            )
            for finding in run.run.probe(step)
        ]

    def finish(self, trace: Trace) -> tuple[list[Finding], list[dict[Category, Tally]]]:
        """Every agent run's findings (with the agent, at trace positions) and tallies."""
        if self.pending:
            self._flush(trace.agent_name)
        findings: list[Finding] = []
        tallies: list[dict[Category, Tally]] = []
        for agent, run in self.runs.items():
            if run is None:
                continue
            head = msgspec.structs.replace(trace, agent_name=agent, steps=())
            found, tally = run.run.finish_parts(head)
            tallies.append(tally)
            findings += [_placed(f, agent, run) for f in found]
        return findings, tallies


def _placed(finding: Finding, agent: str, run: _AgentRun) -> Finding:
    return msgspec.structs.replace(
        finding,
        agent=agent,
        step_index=run.position(finding.step_index),
        source_step_index=run.position(finding.source_step_index),
    )


__all__ = ["AgentPlan", "AgentRuns", "entry_rule"]
