"""ARH-SCH-*: tool calls against `allowed_tools` and their argument contracts."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ..models.common import Category, Severity
from ..models.policy import ArgSpec, Policy
from ..models.trace import Step
from ..models.types import ARG_TYPES, type_list, type_matches
from .arguments import argument_hits, call_argument_hits, compile_tools, json_equal
from .base import Counts, Hit, Moment, RuleContext, RuleState, rule

SCHEMA = Category.SCHEMA
ERROR = Severity.ERROR
PER_CALL = Counts.PER_CALL
_TYPES = list(ARG_TYPES)

__all__ = ["compile_tools", "json_equal", "type_matches"]


@rule(
    "ARH-SCH-001",
    SCHEMA,
    ERROR,
    moment=Moment.PREVENTIVE,
    title="Tool is not allowed by the policy",
    remediation="Add the tool to allowed_tools (with its argument contract), or stop the "
    "agent from calling it.",
    counts=PER_CALL,
)
class ToolNotAllowed(RuleState):
    __slots__ = ()

    def scan(self, ctx: RuleContext) -> None:
        if ctx.policy.allow_unlisted_tools:
            return
        tools, result = ctx.policy.allowed_tools, self.result
        result.checks += len(ctx.facts.calls)
        for index, step in ctx.facts.calls:
            if step.tool_name not in tools:
                result.hits.append(_not_allowed(tools, index, step))

    def probe(self, ctx: RuleContext, index: int, step: Step) -> list[Hit]:
        tools = ctx.policy.allowed_tools
        if ctx.policy.allow_unlisted_tools or not step.tool_name or step.tool_name in tools:
            return []
        return [_not_allowed(tools, index, step)]


def _not_allowed(tools: Mapping[str, Any], index: int, step: Step) -> Hit:
    return Hit(
        index,
        f"tool '{step.tool_name}' is not in allowed_tools",
        expected=sorted(tools) or None,
        observed=step.tool_name,
        step_id=step.step_id,
    )


@rule(
    "ARH-SCH-002",
    SCHEMA,
    ERROR,
    moment=Moment.PREVENTIVE,
    title="Tool call has no tool name",
    remediation="Record the name of the invoked tool in tool_name for every tool_call step.",
    counts=PER_CALL,
)
class ToolNameMissing(RuleState):
    """Looks at every tool call, so its checks are the schema category's."""

    __slots__ = ()

    def scan(self, ctx: RuleContext) -> None:
        facts, result = ctx.facts, self.result
        result.checks += len(facts.calls) + facts.unnamed_calls
        if not facts.unnamed_calls:  # the usual case: every tool_call is named
            return
        for index, step in enumerate(facts.steps, facts.start):
            if step.is_tool_call and not step.tool_name:
                result.hits.append(Hit(index, "tool_call has no tool_name", step_id=step.step_id))

    def probe(self, ctx: RuleContext, index: int, step: Step) -> list[Hit]:
        if step.tool_name:
            return []
        return [Hit(index, "tool_call has no tool_name", step_id=step.step_id)]


class _ArgumentRule(RuleState):
    """One of SCH-003..009, 011, 012: its hits from the shared pass over the listed calls
    (rules/arguments.py)."""

    __slots__ = ()
    rule_id = ""

    def scan(self, ctx: RuleContext) -> None:
        listed, found = argument_hits(ctx, self.compiled)
        self.result.checks += listed
        self.result.hits += found[self.rule_id]

    def probe(self, ctx: RuleContext, index: int, step: Step) -> list[Hit]:
        return call_argument_hits(ctx, self.compiled, index, step)[self.rule_id]


def _argument_rule(
    rule_id: str,
    severity: Severity,
    title: str,
    remediation: str,
    applies: Callable[[Policy], bool] | None = None,
) -> None:
    """Declare one of the argument rules (they differ only in what they are called, and
    the v1.1 ones in when they apply)."""
    declared = type(f"Rule{rule_id[-3:]}", (_ArgumentRule,), {"__slots__": (), "rule_id": rule_id})
    rule(
        rule_id,
        SCHEMA,
        severity,
        title=title,
        remediation=remediation,
        counts=PER_CALL,
        compile=compile_tools,
        applies=applies or _always,
        moment=Moment.PREVENTIVE,
    )(declared)


def _always(_: Policy) -> bool:
    return True


def _specs(spec: ArgSpec) -> Iterator[ArgSpec]:
    """A spec and every spec nested in it (depth-bounded by the policy parser)."""
    yield spec
    if spec.items is not None:
        yield from _specs(spec.items)
    for sub in (spec.properties or {}).values():
        yield from _specs(sub)


def _declares(key: str) -> Callable[[Policy], bool]:
    """Whether any argument spec of the policy, at any depth, sets `key`."""

    def applies(policy: Policy) -> bool:
        return any(
            getattr(spec, key) is not None
            for tool in policy.allowed_tools.values()
            for top in (*tool.required_arguments.values(), *tool.optional_arguments.values())
            for spec in _specs(top)
        )

    return applies


def _declares_length(policy: Policy) -> bool:
    return _declares("min_length")(policy) or _declares("max_length")(policy)


_argument_rule(
    "ARH-SCH-003",
    ERROR,
    "Required argument is missing",
    "Pass every argument listed in the tool's required_arguments.",
)
_argument_rule(
    "ARH-SCH-004",
    ERROR,
    "Argument has the wrong type",
    f"Pass the argument with the type the policy declares ({type_list(_TYPES[:-1])}).",
)
_argument_rule(
    "ARH-SCH-005",
    Severity.WARNING,
    "Argument is not declared",
    "Declare the argument in required_arguments or optional_arguments, or stop passing it.",
)
_argument_rule(
    "ARH-SCH-006",
    Severity.INFO,
    "Argument declares an unknown type",
    f"Use one of the type names {type_list(_TYPES, ' or ')}; until then the type check is skipped.",
)
_argument_rule(
    "ARH-SCH-007",
    ERROR,
    "Argument value is not in the enum",
    "Pass one of the values listed in the argument's enum.",
)
_argument_rule(
    "ARH-SCH-008",
    ERROR,
    "Argument does not match its pattern",
    "Pass a string that matches the argument's pattern as a whole.",
)
_argument_rule(
    "ARH-SCH-009",
    ERROR,
    "Argument is out of range",
    "Pass a number within the argument's min and max.",
)
_argument_rule(
    "ARH-SCH-011",
    ERROR,
    "Argument contains forbidden text",
    "Keep content that matches the argument's not_pattern out of it (or narrow the pattern "
    "if it is a false positive).",
    applies=_declares("not_pattern"),
)
_argument_rule(
    "ARH-SCH-012",
    ERROR,
    "Argument is too short or too long",
    "Pass a string or list whose length is within the argument's min_length and max_length.",
    applies=_declares_length,
)
