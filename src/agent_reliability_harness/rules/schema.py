"""ARH-SCH-*: tool calls against `allowed_tools` and their argument contracts."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

from ..models.common import Category, Severity, type_name
from ..models.policy import ArgSpec, ToolSchema
from ..models.trace import Step
from .base import Hit, RuleContext, RuleResult, brief, rule

SCHEMA = Category.SCHEMA
ERROR = Severity.ERROR

_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "str": lambda v: isinstance(v, str),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
    "list": lambda v: isinstance(v, list),
    "dict": lambda v: isinstance(v, dict),
    "any": lambda v: True,
}


def type_matches(arg_type: str, value: Any) -> bool | None:
    """True/False for a known type name, None for an unknown one (check skipped)."""
    check = _TYPE_CHECKS.get(arg_type)
    return None if check is None else bool(check(value))


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values: numbers by value, a boolean never equals a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _listed_calls(ctx: RuleContext) -> Iterator[tuple[int, Step, ToolSchema]]:
    tools = ctx.policy.allowed_tools
    for index, step in ctx.facts.calls:
        tool = tools.get(step.tool_name or "")
        if tool is not None:
            yield index, step, tool


# (position, step, name, value, declared spec or None, type check result) for every
# argument passed to a listed tool, in call then argument order.
Argument = tuple[int, Step, str, Any, ArgSpec | None, bool | None]


def _arguments(ctx: RuleContext) -> list[Argument]:
    """The argument table, built once per trace and policy and shared by SCH-004..009."""
    key = ("schema.arguments", id(ctx.policy))
    table: list[Argument] | None = ctx.facts.memo.get(key)
    if table is None:
        table = []
        for index, step, tool in _listed_calls(ctx):
            if not step.arguments:
                continue
            for name, value in step.arguments.items():
                spec = tool.spec_for(name)
                matches = None if spec is None else type_matches(spec.type, value)
                table.append((index, step, name, value, spec, matches))
        ctx.facts.memo[key] = table
    return table


def _checked_values(ctx: RuleContext) -> Iterator[tuple[int, Step, str, ArgSpec, Any]]:
    """Present, declared arguments whose type check passed or was skipped."""
    for index, step, name, value, spec, matches in _arguments(ctx):
        if spec is not None and matches is not False:
            yield index, step, name, spec, value


def _arg(step: Step, name: str) -> str:
    return f"argument '{name}' of tool '{step.tool_name}'"


@rule(
    "ARH-SCH-001",
    SCHEMA,
    ERROR,
    title="Tool is not allowed by the policy",
    remediation="Add the tool to allowed_tools (with its argument contract), or stop the "
    "agent from calling it.",
)
def tool_not_allowed(ctx: RuleContext) -> RuleResult:
    result = RuleResult()
    if ctx.policy.allow_unlisted_tools:
        return result
    tools = ctx.policy.allowed_tools
    for index, step in ctx.facts.calls:
        if step.tool_name not in tools:
            result.hits.append(
                Hit(
                    index,
                    f"tool '{step.tool_name}' is not in allowed_tools",
                    expected=sorted(tools) or None,
                    observed=step.tool_name,
                )
            )
    return result


@rule(
    "ARH-SCH-002",
    SCHEMA,
    ERROR,
    title="Tool call has no tool name",
    remediation="Record the name of the invoked tool in tool_name for every tool_call step.",
)
def tool_name_missing(ctx: RuleContext) -> RuleResult:
    result = RuleResult()
    for index, step in enumerate(ctx.facts.steps):
        if step.is_tool_call and not step.tool_name:
            result.hits.append(Hit(index, "tool_call has no tool_name"))
    return result


@rule(
    "ARH-SCH-003",
    SCHEMA,
    ERROR,
    title="Required argument is missing",
    remediation="Pass every argument listed in the tool's required_arguments.",
)
def required_argument_missing(ctx: RuleContext) -> RuleResult:
    result = RuleResult()
    for index, step, tool in _listed_calls(ctx):
        arguments = step.arguments or {}
        for name in tool.required_arguments:
            if name not in arguments:
                result.hits.append(
                    Hit(
                        index,
                        f"tool '{step.tool_name}' is missing required argument '{name}'",
                        expected=name,
                    )
                )
    return result


@rule(
    "ARH-SCH-004",
    SCHEMA,
    ERROR,
    title="Argument has the wrong type",
    remediation="Pass the argument with the type the policy declares (str, int, float, bool, "
    "list, dict).",
)
def argument_wrong_type(ctx: RuleContext) -> RuleResult:
    result = RuleResult()
    for index, step, name, value, spec, matches in _arguments(ctx):
        if spec is not None and matches is False:
            result.hits.append(
                Hit(
                    index,
                    f"{_arg(step, name)} must be {spec.type} (got {type_name(value)})",
                    expected=spec.type,
                    observed=type_name(value),
                )
            )
    return result


@rule(
    "ARH-SCH-005",
    SCHEMA,
    Severity.WARNING,
    title="Argument is not declared",
    remediation="Declare the argument in required_arguments or optional_arguments, or stop "
    "passing it.",
)
def argument_undeclared(ctx: RuleContext) -> RuleResult:
    result = RuleResult()
    for index, step, name, _value, spec, _matches in _arguments(ctx):
        if spec is None:
            result.hits.append(
                Hit(index, f"{_arg(step, name)} is not declared in the policy", observed=name)
            )
    return result


@rule(
    "ARH-SCH-006",
    SCHEMA,
    Severity.INFO,
    title="Argument declares an unknown type",
    remediation="Use one of the type names str, int, float, bool, list, dict or any; until "
    "then the type check is skipped.",
)
def argument_unknown_type(ctx: RuleContext) -> RuleResult:
    result = RuleResult()
    for index, step, name, _value, spec, _matches in _arguments(ctx):
        if spec is not None and not spec.known_type:
            result.hits.append(
                Hit(
                    index,
                    f"{_arg(step, name)} declares unknown type '{spec.type}'; type check skipped",
                    observed=spec.type,
                )
            )
    return result


@rule(
    "ARH-SCH-007",
    SCHEMA,
    ERROR,
    title="Argument value is not in the enum",
    remediation="Pass one of the values listed in the argument's enum.",
)
def argument_not_in_enum(ctx: RuleContext) -> RuleResult:
    result = RuleResult()
    for index, step, name, spec, value in _checked_values(ctx):
        if spec.enum is not None and not any(json_equal(value, v) for v in spec.enum):
            result.hits.append(
                Hit(
                    index,
                    f"{_arg(step, name)} is not one of the allowed values",
                    expected=list(spec.enum),
                    observed=brief(value),
                )
            )
    return result


@rule(
    "ARH-SCH-008",
    SCHEMA,
    ERROR,
    title="Argument does not match its pattern",
    remediation="Pass a string that matches the argument's pattern as a whole.",
)
def argument_pattern_mismatch(ctx: RuleContext) -> RuleResult:
    result = RuleResult()
    for index, step, name, spec, value in _checked_values(ctx):
        if (
            spec.pattern is not None
            and isinstance(value, str)
            and not spec.pattern.fullmatch(value)
        ):
            result.hits.append(
                Hit(
                    index,
                    f"{_arg(step, name)} does not fully match pattern '{spec.pattern.pattern}'",
                    expected=spec.pattern.pattern,
                    observed=brief(value),
                )
            )
    return result


@rule(
    "ARH-SCH-009",
    SCHEMA,
    ERROR,
    title="Argument is out of range",
    remediation="Pass a number within the argument's min and max.",
)
def argument_out_of_range(ctx: RuleContext) -> RuleResult:
    result = RuleResult()
    for index, step, name, spec, value in _checked_values(ctx):
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        nan = isinstance(value, float) and math.isnan(value)
        if spec.min is not None and (nan or value < spec.min):
            result.hits.append(
                Hit(
                    index,
                    f"{_arg(step, name)} is below min {spec.min} (got {value})",
                    expected={"min": spec.min},
                    observed=value,
                )
            )
        if spec.max is not None and (nan or value > spec.max):
            result.hits.append(
                Hit(
                    index,
                    f"{_arg(step, name)} is above max {spec.max} (got {value})",
                    expected={"max": spec.max},
                    observed=value,
                )
            )
    return result


@rule(
    "ARH-SCH-010",
    SCHEMA,
    Severity.WARNING,
    title="Step id is not unique",
    remediation="Give every step a unique step_id so findings and fingerprints point at one step.",
)
def duplicate_step_id(ctx: RuleContext) -> RuleResult:
    result = RuleResult()
    first: dict[str, int] = {}
    repeats: dict[str, int] = {}
    for index, step in enumerate(ctx.facts.steps):
        if step.step_id in first:
            repeats[step.step_id] = repeats.get(step.step_id, 1) + 1
        else:
            first[step.step_id] = index
    for step_id, count in repeats.items():
        result.hits.append(
            Hit(first[step_id], f"step_id '{step_id}' occurs {count} times", observed=count)
        )
    return result
