"""ARH-SEQ-009: a step by an agent that no `agents` glob matches (policy v1.2 section 1)."""

from __future__ import annotations

from ..models.common import Category, Severity
from ..models.policy import Policy
from ..models.policy.model import AgentEntries
from ..models.trace import Step
from .base import Hit, Moment, RuleContext, RuleResult, RuleState, rule


def _refuses_unlisted(policy: Policy) -> bool:
    return policy.agents is not None and not policy.allow_unlisted_agents


@rule(
    "ARH-SEQ-009",
    Category.SEQUENCE,
    Severity.ERROR,
    moment=Moment.PREVENTIVE,
    title="Step by an agent that no agents entry lists",
    remediation="Add a glob that matches the agent to agents (or set allow_unlisted_agents: "
    "true), or stop the agent from running.",
    since="1.2",
    applies=_refuses_unlisted,
)
class UnlistedAgent(RuleState):
    """One check per agent that took a step (its own `agent`, else the trace's
    agent_name); a hit at the first step of each agent no glob matches."""

    __slots__ = ("first", "first_default")

    def __init__(self, policy: Policy) -> None:
        super().__init__(policy)
        self.first: dict[str, tuple[int, str]] = {}  # agent -> its first step
        # The first step without `agent` while the trace's agent_name is not known yet.
        self.first_default: tuple[int, str] | None = None

    def scan(self, ctx: RuleContext) -> None:
        facts, first = ctx.facts, self.first
        default = facts.agent_name
        for index, step in enumerate(facts.steps, facts.start):
            agent = step.agent if step.agent is not None else default
            if agent is None:
                if self.first_default is None:
                    self.first_default = (index, step.step_id)
            elif agent not in first:
                first[agent] = (index, step.step_id)

    def finish(self, ctx: RuleContext) -> RuleResult:
        entries, first, result = ctx.policy.agents, self.first, self.result
        assert entries is not None
        default = ctx.facts.agent_name
        if self.first_default is not None and default is not None:
            known = first.get(default)
            if known is None or self.first_default[0] < known[0]:
                first[default] = self.first_default
        for agent, (index, step_id) in first.items():
            result.checks += 1
            if entries.index(agent) is None:
                result.failed += 1
                result.hits.append(_unlisted(entries, agent, index, step_id))
        return result

    def probe(self, ctx: RuleContext, index: int, step: Step) -> list[Hit]:
        default = ctx.facts.agent_name
        agent = step.agent if step.agent is not None else default
        entries = ctx.policy.agents
        assert entries is not None
        if agent is None or agent in self.first or entries.index(agent) is not None:
            return []
        if agent == default and self.first_default is not None:
            return []
        return [_unlisted(entries, agent, index, step.step_id)]


def _unlisted(entries: AgentEntries, agent: str, index: int, step_id: str) -> Hit:
    return Hit(
        index,
        f"agent '{agent}' matches no glob in agents",
        expected=[glob for glob, _ in entries.entries] or None,
        observed=agent,
        step_id=step_id,
    )
