"""ARH-SEQ-*: which tools were called, in what order and how often."""

from __future__ import annotations

import bisect

from ..models.common import Category, Severity
from .base import MAX_FINDINGS, Hit, RuleContext, RuleResult, rule

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


@rule(
    "ARH-SEQ-002",
    SEQUENCE,
    ERROR,
    title="Forbidden tool was called",
    remediation="Stop the agent from calling tools in sequence.forbidden_tools.",
    applies=lambda p: bool(p.sequence.forbidden_tools),
)
def forbidden_tool_called(ctx: RuleContext) -> RuleResult:
    forbidden, facts = ctx.policy.sequence.forbidden_tools, ctx.facts
    hits = [
        Hit(index, f"forbidden tool '{tool}' was called", observed=tool, step_id=step_id)
        for index, step_id, tool in facts.watched_calls  # the calls of forbidden tools
    ]
    failed = sum(1 for name in forbidden if name in facts.counts)
    return RuleResult(checks=len(forbidden), failed=failed, hits=hits)


@rule(
    "ARH-SEQ-003",
    SEQUENCE,
    ERROR,
    title="Tools called out of order",
    remediation="Make the earlier tool's first call come before the later tool's first call.",
    applies=lambda p: len(p.sequence.call_order) > 1,
)
def wrong_call_order(ctx: RuleContext) -> RuleResult:
    """One check per pair of listed tools that were both called. The violated pairs are
    counted without listing them (a long call_order against a reversed trace has about
    n**2 / 2), and hits are made for the first MAX_FINDINGS in report order only."""
    first, first_id = ctx.facts.first_call, ctx.facts.first_call_id
    called = [name for name in ctx.policy.sequence.call_order if name in first]
    positions = [first[name] for name in called]
    earlier_later = _inversions(positions)
    result = RuleResult(checks=len(called) * (len(called) - 1) // 2, failed=sum(earlier_later))
    hits = result.hits
    # Report order is by the later-listed tool's first call, then by message.
    for j in sorted((j for j, n in enumerate(earlier_later) if n), key=positions.__getitem__):
        after, at = called[j], positions[j]
        pairs = sorted(
            (f"tool '{after}' was first called before '{before}'", before)
            for before in called[:j]
            if first[before] > at
        )
        hits += [
            Hit(at, message, [before, after], [after, before], first_id[after])
            for message, before in pairs
        ]
        if len(hits) >= MAX_FINDINGS:
            break
    result.more = result.failed - len(hits)
    return result


def _inversions(positions: list[int]) -> list[int]:
    """For each item, how many items before it are larger (distinct ints)."""
    seen: list[int] = []
    out = []
    for position in positions:
        out.append(len(seen) - bisect.bisect(seen, position))
        bisect.insort(seen, position)
    return out


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
