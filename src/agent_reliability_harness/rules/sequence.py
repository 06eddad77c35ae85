"""ARH-SEQ-*: which tools were called, in what order and how often."""

from __future__ import annotations

from ..models.common import Category, Severity
from ..models.policy import Policy
from .base import Hit, RuleContext, RuleResult, rule, stateful_rule

SEQUENCE = Category.SEQUENCE
ERROR = Severity.ERROR


@rule(
    "ARH-SEQ-001",
    SEQUENCE,
    ERROR,
    title="Required tool was never called",
    remediation="Make the agent call every tool in sequence.required_tools.",
    applies=lambda p: bool(p.sequence.required_tools),
)
def required_tool_missing(ctx: RuleContext) -> RuleResult:
    result = RuleResult()
    for name in ctx.policy.sequence.required_tools:
        result.checks += 1
        if name not in ctx.facts.counts:
            result.failed += 1
            result.hits.append(Hit(None, f"required tool '{name}' was never called", expected=name))
    return result


@stateful_rule(
    "ARH-SEQ-002",
    SEQUENCE,
    ERROR,
    title="Forbidden tool was called",
    remediation="Stop the agent from calling tools in sequence.forbidden_tools.",
    applies=lambda p: bool(p.sequence.forbidden_tools),
)
class ForbiddenToolCalled:
    """A hit per call of a forbidden tool; one check per forbidden tool."""

    __slots__ = ("forbidden", "hits")

    def __init__(self, policy: Policy) -> None:
        self.forbidden = policy.sequence.forbidden_tools
        self.hits: list[Hit] = []

    def scan(self, ctx: RuleContext) -> None:
        forbidden = self.forbidden
        for index, step in ctx.facts.calls:
            if step.tool_name in forbidden:
                self.hits.append(
                    Hit(
                        index,
                        f"forbidden tool '{step.tool_name}' was called",
                        observed=step.tool_name,
                        step_id=step.step_id,
                    )
                )

    def finish(self, ctx: RuleContext) -> RuleResult:
        forbidden = self.forbidden
        failed = sum(1 for name in forbidden if name in ctx.facts.counts)
        return RuleResult(checks=len(forbidden), failed=failed, hits=self.hits)


@rule(
    "ARH-SEQ-003",
    SEQUENCE,
    ERROR,
    title="Tools called out of order",
    remediation="Make the earlier tool's first call come before the later tool's first call.",
    applies=lambda p: len(p.sequence.call_order) > 1,
)
def wrong_call_order(ctx: RuleContext) -> RuleResult:
    order = ctx.policy.sequence.call_order
    first = ctx.facts.first_call
    called = [name for name in order if name in first]
    result = RuleResult()
    for i, before in enumerate(called):
        for after in called[i + 1 :]:
            result.checks += 1
            if first[after] < first[before]:
                result.failed += 1
                result.hits.append(
                    Hit(
                        first[after],
                        f"tool '{after}' was first called before '{before}'",
                        expected=[before, after],
                        observed=[after, before],
                        step_id=ctx.facts.first_call_id[after],
                    )
                )
    return result


@rule(
    "ARH-SEQ-004",
    SEQUENCE,
    ERROR,
    title="Tool called too many times",
    remediation="Cap the agent's calls of this tool (loop guards, caching), or raise max_calls.",
    applies=lambda p: any(t.max_calls is not None for t in p.allowed_tools.values()),
)
def too_many_calls(ctx: RuleContext) -> RuleResult:
    result = RuleResult()
    for name, tool in ctx.policy.allowed_tools.items():
        if tool.max_calls is None:
            continue
        result.checks += 1
        count = ctx.facts.counts.get(name, 0)
        if count > tool.max_calls:
            result.failed += 1
            result.hits.append(
                Hit(
                    None,
                    f"tool '{name}' was called {count} times (max_calls {tool.max_calls})",
                    expected=tool.max_calls,
                    observed=count,
                )
            )
    return result


@rule(
    "ARH-SEQ-005",
    SEQUENCE,
    ERROR,
    title="Tool called too few times",
    remediation="Make the agent call this tool as often as the workflow needs, or lower min_calls.",
    applies=lambda p: any(t.min_calls is not None for t in p.allowed_tools.values()),
)
def too_few_calls(ctx: RuleContext) -> RuleResult:
    result = RuleResult()
    for name, tool in ctx.policy.allowed_tools.items():
        if tool.min_calls is None:
            continue
        result.checks += 1
        count = ctx.facts.counts.get(name, 0)
        if count < tool.min_calls:
            result.failed += 1
            result.hits.append(
                Hit(
                    None,
                    f"tool '{name}' was called {count} times (min_calls {tool.min_calls})",
                    expected=tool.min_calls,
                    observed=count,
                )
            )
    return result
