"""ARH-BUD-*: latency, cost and token budgets (totals summed exactly, in decimal)."""

from __future__ import annotations

from decimal import Decimal

from ..models.common import Category, Severity
from ..models.policy import Policy
from .base import Counts, Hit, Moment, RuleContext, RuleResult, RuleState, rule
from .facts import json_number

BUDGET = Category.BUDGET
ERROR = Severity.ERROR


def _limit(value: float) -> Decimal:
    return Decimal(value) if isinstance(value, int) else Decimal(repr(value))


# A set budget is scored even when nothing was recorded (it then adds no check).
SCORED = Counts.RATIO_WHEN_SET


@rule(
    "ARH-BUD-001",
    BUDGET,
    ERROR,
    moment=Moment.AFTER,
    title="Step latency over budget",
    remediation="Make the slow step faster (timeouts, caching, a smaller model) or raise "
    "max_step_latency_ms.",
    applies=lambda p: p.budgets.max_step_latency_ms is not None,
    counts=SCORED,
)
class StepLatency(RuleState):
    """One check per step that records latency; a hit per step over the limit."""

    __slots__ = ()

    def scan(self, ctx: RuleContext) -> None:
        limit = ctx.policy.budgets.max_step_latency_ms
        assert limit is not None
        _step_latency(ctx, limit, self.result)


def _step_latency(ctx: RuleContext, limit: float, result: RuleResult) -> None:
    for index, step in enumerate(ctx.facts.steps, ctx.facts.start):
        latency = step.latency_ms
        if latency is None:
            continue
        result.checks += 1
        if latency > limit:
            result.failed += 1
            result.hits.append(
                Hit(
                    index,
                    f"step latency {latency} ms exceeds max_step_latency_ms {limit}",
                    expected=limit,
                    observed=latency,
                    step_id=step.step_id,
                )
            )


def _total_check(
    total: Decimal | int | None, limit: float | None, what: str, key: str, unit: str
) -> RuleResult:
    result = RuleResult()
    if total is None or limit is None:
        return result
    result.checks = 1
    exact = Decimal(total) if isinstance(total, int) else total
    if exact > _limit(limit):
        observed = json_number(exact)
        result.failed = 1
        result.hits.append(
            Hit(
                None,
                f"total {what} {observed}{unit} exceeds {key} {limit}",
                expected=limit,
                observed=observed,
            )
        )
    return result


@rule(
    "ARH-BUD-002",
    BUDGET,
    ERROR,
    moment=Moment.CLOSING,
    title="Total latency over budget",
    remediation="Cut steps or make them faster, or raise max_total_latency_ms.",
    applies=lambda p: p.budgets.max_total_latency_ms is not None,
    counts=SCORED,
)
def total_latency(ctx: RuleContext) -> RuleResult:
    return _total_check(
        ctx.facts.latency_total,
        ctx.policy.budgets.max_total_latency_ms,
        "latency",
        "max_total_latency_ms",
        " ms",
    )


@rule(
    "ARH-BUD-003",
    BUDGET,
    ERROR,
    moment=Moment.CLOSING,
    title="Total cost over budget",
    remediation="Use fewer or cheaper calls, or raise max_total_cost_usd.",
    applies=lambda p: p.budgets.max_total_cost_usd is not None,
    counts=SCORED,
)
def total_cost(ctx: RuleContext) -> RuleResult:
    return _total_check(
        ctx.facts.cost_total,
        ctx.policy.budgets.max_total_cost_usd,
        "cost",
        "max_total_cost_usd",
        " USD",
    )


@rule(
    "ARH-BUD-004",
    BUDGET,
    ERROR,
    moment=Moment.CLOSING,
    title="Total tokens over budget",
    remediation="Shorten prompts and outputs or use fewer model calls, or raise max_total_tokens.",
    applies=lambda p: p.budgets.max_total_tokens is not None,
    counts=SCORED,
)
def total_tokens(ctx: RuleContext) -> RuleResult:
    limit = ctx.policy.budgets.max_total_tokens
    return _total_check(ctx.facts.token_total, limit, "tokens", "max_total_tokens", "")


def _unverifiable(recorded: bool, what: str, field: str) -> RuleResult:
    result = RuleResult()
    if not recorded:
        result.hits.append(
            Hit(
                None,
                f"a {what} budget is set but no step records {field}; the budget "
                "cannot be verified",
            )
        )
    return result


def _token_budget(p: Policy) -> bool:
    return p.budgets.max_total_tokens is not None


@rule(
    "ARH-BUD-005",
    BUDGET,
    Severity.WARNING,
    moment=Moment.CLOSING,
    title="Token budget cannot be verified",
    remediation="Record input_tokens and output_tokens on the steps (most SDKs report usage).",
    applies=_token_budget,
    counts=Counts.NONE,
)
def tokens_unrecorded(ctx: RuleContext) -> RuleResult:
    return _unverifiable(
        ctx.facts.token_total is not None, "token", "input_tokens or output_tokens"
    )


@rule(
    "ARH-BUD-006",
    BUDGET,
    Severity.WARNING,
    moment=Moment.CLOSING,
    title="Latency budget cannot be verified",
    remediation="Record latency_ms on the steps.",
    applies=lambda p: p.budgets.latency_set,
    counts=Counts.NONE,
)
def latency_unrecorded(ctx: RuleContext) -> RuleResult:
    return _unverifiable(ctx.facts.latency_total is not None, "latency", "latency_ms")


@rule(
    "ARH-BUD-007",
    BUDGET,
    Severity.WARNING,
    moment=Moment.CLOSING,
    title="Cost budget cannot be verified",
    remediation="Record cost_usd on the steps.",
    applies=lambda p: p.budgets.max_total_cost_usd is not None,
    counts=Counts.NONE,
)
def cost_unrecorded(ctx: RuleContext) -> RuleResult:
    return _unverifiable(ctx.facts.cost_total is not None, "cost", "cost_usd")
