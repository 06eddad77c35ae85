"""ARH-SEQ-*: which tools were called, in what order and how often."""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections import Counter
from collections.abc import Iterator

from ..models.common import Category, Severity
from ..models.policy import Policy
from ..models.trace import Step
from .base import MAX_FINDINGS, Hit, Moment, RuleContext, RuleResult, RuleState, rule

SEQUENCE = Category.SEQUENCE
ERROR = Severity.ERROR


@rule(
    "ARH-SEQ-001",
    SEQUENCE,
    ERROR,
    moment=Moment.CLOSING,
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
    moment=Moment.PREVENTIVE,
    title="Forbidden tool was called",
    remediation="Stop the agent from calling tools in sequence.forbidden_tools.",
    applies=lambda p: bool(p.sequence.forbidden_tools),
    probe=lambda ctx, index, step: (
        [_forbidden(index, step.step_id, step.tool_name)]
        if step.tool_name in ctx.policy.sequence.forbidden_tools
        else []
    ),
)
def forbidden_tool_called(ctx: RuleContext) -> RuleResult:
    forbidden, facts = ctx.policy.sequence.forbidden_tools, ctx.facts
    hits = [
        _forbidden(index, step_id, tool)
        for index, step_id, tool in facts.watched_calls  # the calls of forbidden tools
    ]
    failed = sum(1 for name in forbidden if name in facts.counts)
    return RuleResult(checks=len(forbidden), failed=failed, hits=hits)


def _forbidden(index: int, step_id: str, tool: str | None) -> Hit:
    return Hit(index, f"forbidden tool '{tool}' was called", observed=tool, step_id=step_id)


class _CallOrder:
    """`call_order`, compiled: its chains, and the pairs that more than one chain holds
    with how many times more (so that every pair counts once)."""

    __slots__ = ("chains", "shared")

    def __init__(self, policy: Policy) -> None:
        self.chains = policy.sequence.call_order_chains
        held: Counter[tuple[str, str]] = Counter()
        if len(self.chains) > 1:
            for chain in self.chains:
                held.update(itertools.combinations(chain, 2))
        self.shared = {pair: count - 1 for pair, count in held.items() if count > 1}


@rule(
    "ARH-SEQ-003",
    SEQUENCE,
    ERROR,
    moment=Moment.PREVENTIVE,
    title="Tools called out of order",
    remediation="Make the earlier tool's first call come before the later tool's first call.",
    applies=lambda p: bool(p.sequence.call_order_pairs),
    compile=_CallOrder,
)
class WrongCallOrder(RuleState):
    """One check per ordered pair of `call_order` (every chain's, each pair once) whose
    tools were both called. The violated pairs are counted chain by chain without
    listing them (a long chain against a reversed trace has about n**2 / 2), less the
    pairs that several chains share; hits are made for the first MAX_FINDINGS in report
    order only, merged across chains."""

    __slots__ = ()

    def finish(self, ctx: RuleContext) -> RuleResult:
        order: _CallOrder = self.compiled
        first, first_id = ctx.facts.first_call, ctx.facts.first_call_id
        result = RuleResult()
        streams = []
        for chain in order.chains:
            called = [name for name in chain if name in first]
            if len(called) < 2:
                continue
            positions = [first[name] for name in called]
            earlier_later = _inversions(positions)
            violated = sum(earlier_later)
            result.checks += len(called) * (len(called) - 1) // 2
            if violated:
                result.failed += violated
                streams.append(_violations(called, positions, earlier_later, first))
        for (before, after), extra in order.shared.items():
            if before in first and after in first:
                result.checks -= extra
                result.failed -= extra if first[after] < first[before] else 0
        if not streams:
            return result
        hits, last = result.hits, None
        # Report order is by the later-listed tool's first call, then by message; a pair
        # that several chains hold comes once from each, one after the other.
        merged = streams[0] if len(streams) == 1 else heapq.merge(*streams)
        for at, message, before, after in merged:
            if (at, message) == last:
                continue
            last = (at, message)
            hits.append(Hit(at, message, [before, after], [after, before], first_id[after]))
            if len(hits) == MAX_FINDINGS:
                break
        result.more = result.failed - len(hits)
        return result

    def probe(self, ctx: RuleContext, index: int, step: Step) -> list[Hit]:
        """A tool's first call before a tool its chain lists earlier was called: out of
        order once that tool is called (the guard cannot wait for it; docs/guard.md)."""
        order: _CallOrder = self.compiled
        first, tool = ctx.facts.first_call, step.tool_name
        if not tool or tool in first:
            return []
        pending: dict[str, None] = {}
        for chain in order.chains:
            if tool in chain:
                for before in chain[: chain.index(tool)]:
                    if before not in first:
                        pending[before] = None
        return [
            Hit(index, message, [before, tool], [tool, before], step.step_id)
            for message, before in sorted(
                (f"tool '{tool}' was first called before '{before}'", before) for before in pending
            )
        ]


def _violations(
    called: list[str], positions: list[int], earlier_later: list[int], first: dict[str, int]
) -> Iterator[tuple[int, str, str, str]]:
    """The violated pairs of one chain as (position, message, before, after), in report
    order, made as they are asked for."""
    for j in sorted((j for j, n in enumerate(earlier_later) if n), key=positions.__getitem__):
        after, at = called[j], positions[j]
        yield from sorted(
            (at, f"tool '{after}' was first called before '{before}'", before, after)
            for before in called[:j]
            if first[before] > at
        )


def _inversions(positions: list[int]) -> list[int]:
    """For each item, how many items before it are larger (distinct ints)."""
    seen: list[int] = []
    out = []
    for position in positions:
        out.append(len(seen) - bisect.bisect(seen, position))
        bisect.insort(seen, position)
    return out


def _beyond_max_calls(ctx: RuleContext, index: int, step: Step) -> list[Hit]:
    """A call beyond its tool's max_calls (offline, the finding is the trace's)."""
    name = step.tool_name or ""
    tool = ctx.policy.allowed_tools.get(name)
    if tool is None or tool.max_calls is None:
        return []
    count = ctx.facts.counts.get(name, 0) + 1
    if count <= tool.max_calls:
        return []
    message = f"tool '{name}' would be called {count} times (max_calls {tool.max_calls})"
    return [Hit(index, message, tool.max_calls, count, step.step_id)]


@rule(
    "ARH-SEQ-004",
    SEQUENCE,
    ERROR,
    moment=Moment.PREVENTIVE,
    title="Tool called too many times",
    remediation="Cap the agent's calls of this tool (loop guards, caching), or raise max_calls.",
    applies=lambda p: any(t.max_calls is not None for t in p.allowed_tools.values()),
    probe=_beyond_max_calls,
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
    moment=Moment.CLOSING,
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
