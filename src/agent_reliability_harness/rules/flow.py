"""ARH-FLW-*: retries after errors, retry storms and duplicated side effects."""

from __future__ import annotations

from ..models.common import Category, Severity, Status
from .base import Hit, RuleContext, RuleResult, rule

FLOW = Category.FLOW
ERROR = Severity.ERROR


@rule(
    "ARH-FLW-001",
    FLOW,
    ERROR,
    title="Failed tool call was not retried",
    remediation="Retry a failed tool call (or handle the failure explicitly) before moving on.",
    applies=lambda p: p.error_handling.require_retry_on_error,
)
def no_retry_after_error(ctx: RuleContext) -> RuleResult:
    result = RuleResult()
    last = ctx.facts.last_call
    for index, step in ctx.facts.calls:
        if step.status is not Status.ERROR:  # ctx.facts.failed(index), inlined
            continue
        result.checks += 1
        if last[step.tool_name or ""] == index:
            result.failed += 1
            result.hits.append(
                Hit(
                    index,
                    f"tool '{step.tool_name}' failed and was never called again",
                    observed=step.error,
                )
            )
    return result


@rule(
    "ARH-FLW-002",
    FLOW,
    ERROR,
    title="Too many identical attempts",
    remediation="Stop retrying the same call after max_attempts (back off, change the "
    "arguments, or give up and report).",
    applies=lambda p: p.error_handling.max_attempts is not None,
)
def retry_storm(ctx: RuleContext) -> RuleResult:
    limit = ctx.policy.error_handling.max_attempts
    assert limit is not None
    result = RuleResult()
    for (tool, _), indices in ctx.facts.groups().items():
        result.checks += 1
        if len(indices) > limit:
            result.failed += 1
            result.hits.append(
                Hit(
                    indices[limit],
                    f"tool '{tool}' was called {len(indices)} times with "
                    f"identical arguments (max_attempts {limit})",
                    expected=limit,
                    observed=len(indices),
                )
            )
    return result


@rule(
    "ARH-FLW-003",
    FLOW,
    ERROR,
    title="Side effect repeated",
    remediation="Make side-effecting calls idempotent or check for an earlier success before "
    "calling again with the same arguments.",
    applies=lambda p: any(t.side_effect for t in p.allowed_tools.values()),
)
def duplicate_side_effect(ctx: RuleContext) -> RuleResult:
    side_effect = {name for name, t in ctx.policy.allowed_tools.items() if t.side_effect}
    result = RuleResult()
    for (tool, _), indices in ctx.facts.groups().items():
        if tool not in side_effect:
            continue
        result.checks += 1
        succeeded_at: int | None = None
        duplicates = 0
        for index in indices:
            if succeeded_at is not None:
                duplicates += 1
                result.hits.append(
                    Hit(
                        index,
                        f"side-effect tool '{tool}' was called again with identical "
                        f"arguments after it succeeded at step "
                        f"'{ctx.facts.steps[succeeded_at].step_id}'",
                    )
                )
            elif not ctx.facts.failed(index):
                succeeded_at = index
        result.failed += duplicates > 0
    return result
