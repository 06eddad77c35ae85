"""ARH-CMP-*: whether the run ended with an answer, within its step limit."""

from __future__ import annotations

from ..models.common import Category, Severity, Status
from ..models.policy import Policy
from ..models.trace import Step
from .base import Hit, Moment, RuleContext, RuleResult, rule

COMPLETION = Category.COMPLETION


@rule(
    "ARH-CMP-001",
    COMPLETION,
    Severity.ERROR,
    moment=Moment.CLOSING,
    title="No final response",
    remediation="End every run with a successful model_response that answers the user.",
    applies=lambda p: p.completion.require_final_response,
)
def no_final_response(ctx: RuleContext) -> RuleResult:
    """A last step that is an ok model_response with text, or (`completion.final_tools`)
    a call of a final tool that did not fail (effective status), completes the trace."""
    result = RuleResult(checks=1)
    facts, last = ctx.facts, ctx.facts.last_step
    if last is None:
        result.failed = 1
        result.hits.append(Hit(None, "trace has no steps, so no final response"))
        return result
    final_tools = ctx.policy.completion.final_tools
    index = facts.step_count - 1
    problem = None
    if final_tools and last.is_tool_call and _final(last, ctx.policy):
        if facts.failed(index, last):
            how = "failed" + facts.failure_note(index)
            if not facts.output_failed(index):
                how = "has status error"
            problem = f"last step is a call of final tool '{last.tool_name}' that {how}"
    elif not last.is_model_response:
        problem = f"last step is a {last.type.value}, not a model_response"
        if final_tools:
            shown = ctx.policy.completion.final_written or final_tools
            problem += f" or a call of a final tool ({', '.join(shown)})"
    elif last.status is not Status.OK:
        problem = "last step is a model_response with status error"
    elif not (last.text or "").strip():
        problem = "last step is a model_response with blank text"
    if problem is not None:
        result.failed = 1
        result.hits.append(Hit(index, problem, step_id=last.step_id))
    return result


@rule(
    "ARH-CMP-002",
    COMPLETION,
    Severity.ERROR,
    moment=Moment.CLOSING,
    title="Too many steps",
    remediation="Make the agent finish in fewer steps (planning, loop guards), or raise max_steps.",
    applies=lambda p: p.completion.max_steps is not None,
)
def too_many_steps(ctx: RuleContext) -> RuleResult:
    limit = ctx.policy.completion.max_steps
    assert limit is not None
    result = RuleResult(checks=1)
    if ctx.facts.step_count > limit:
        result.failed = 1
        result.hits.append(
            Hit(
                None,
                f"trace has {ctx.facts.step_count} steps (max_steps {limit})",
                expected=limit,
                observed=ctx.facts.step_count,
            )
        )
    return result


def _final(step: Step, policy: Policy) -> bool:
    """Whether a call is of a final tool, or of a final kind (`kind:finish`: a finishing
    tool or shell command by the tool-kind mapping)."""
    if step.tool_name in policy.completion.final_tools:
        return True
    if not policy.completion.final_kinds:
        return False
    from ..toolkinds import ToolKinds  # noqa: PLC0415 - only for policies that name kinds

    action = ToolKinds(policy.tool_kinds).action_of(step)
    return action is not None and action.kind in policy.completion.final_kinds
