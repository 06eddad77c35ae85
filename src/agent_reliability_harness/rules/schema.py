"""ARH-SCH-*: tool calls against `allowed_tools` and their argument contracts."""

from __future__ import annotations

import json
import math
from typing import Any

from ..models.common import Category, Severity, type_name
from ..models.policy import ArgSpec, Policy
from ..models.trace import Step
from ..models.types import ARG_TYPES, type_list, type_matches
from .base import Counts, Hit, RuleContext, RuleState, brief, rule

SCHEMA = Category.SCHEMA
ERROR = Severity.ERROR
PER_CALL = Counts.PER_CALL
_TYPES = list(ARG_TYPES)

__all__ = ["json_equal", "type_matches"]


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


def _anything(_: Any) -> bool:
    return True


class _ArgCheck:
    """One declared argument, compiled: what SCH-004 and SCH-006..009 test on it."""

    __slots__ = ("accepts", "bounded", "constrained", "enum_strs", "spec", "type_check", "unknown")

    def __init__(self, spec: ArgSpec) -> None:
        self.spec = spec
        # None when the check always passes ("any") or is skipped (an unknown type):
        # either way the value goes on to the enum, pattern and range checks.
        check = ARG_TYPES.get(spec.type)
        self.type_check = None if spec.type == "any" else check
        self.accepts = self.type_check or _anything
        self.unknown = not spec.known_type
        self.bounded = spec.min is not None or spec.max is not None
        self.constrained = spec.enum is not None or spec.pattern is not None or self.bounded
        # json_equal(str, x) is `x == str` for an exact str x and False for the rest,
        # so an exact str value is in the enum exactly when it is in this set.
        self.enum_strs = frozenset(v for v in spec.enum or () if type(v) is str)


# A listed tool, compiled: its required argument names, and a check per declared
# argument (a required spec wins over an optional one, as in ToolSchema.spec_for).
Tools = dict[str, tuple[tuple[str, ...], dict[str, _ArgCheck]]]


def compile_tools(policy: Policy) -> Tools:
    """The allowed tools' argument contracts, compiled (once per Evaluator)."""
    compiled: Tools = {}
    for name, tool in policy.allowed_tools.items():
        checks = {n: _ArgCheck(spec) for n, spec in tool.optional_arguments.items()}
        checks.update((n, _ArgCheck(spec)) for n, spec in tool.required_arguments.items())
        compiled[name] = (tuple(tool.required_arguments), checks)
    return compiled


_ARGUMENT_RULES = tuple(f"ARH-SCH-00{i}" for i in range(3, 10))


def _argument_hits(ctx: RuleContext, tools: Tools) -> tuple[int, dict[str, list[Hit]]]:
    """The listed calls of the steps being scanned and the hits of SCH-003..009 on them,
    found in one pass for the seven rules.

    The pass visits listed calls in order and, per call, the required names (SCH-003)
    then the arguments in order, exactly as each rule alone would: every rule's own
    hits keep their order.
    """
    key = ("schema.argument_hits", id(tools))
    found: tuple[int, dict[str, list[Hit]]] | None = ctx.facts.memo.get(key)
    if found is None:
        found = _find_argument_hits(ctx, tools)
        ctx.facts.memo[key] = found
    return found


def _find_argument_hits(ctx: RuleContext, tools: Tools) -> tuple[int, dict[str, list[Hit]]]:
    found: dict[str, list[Hit]] = {rule_id: [] for rule_id in _ARGUMENT_RULES}
    missing, undeclared = found["ARH-SCH-003"], found["ARH-SCH-005"]
    listed = 0
    for index, step in ctx.facts.calls:
        compiled = tools.get(step.tool_name or "")
        if compiled is None:
            continue
        listed += 1
        required, checks = compiled
        arguments = step.arguments
        for name in required:
            if not arguments or name not in arguments:
                missing.append(
                    Hit(
                        index,
                        f"tool '{step.tool_name}' is missing required argument '{name}'",
                        expected=name,
                        step_id=step.step_id,
                    )
                )
        if not arguments:
            continue
        for name, value in arguments.items():
            check = checks.get(name)
            if check is None:
                message = f"{_arg(step, name)} is not declared in the policy"
                undeclared.append(Hit(index, message, observed=name, step_id=step.step_id))
            elif check.constrained or check.unknown or not check.accepts(value):
                _value_hits(index, step, name, value, check, found=found)
    return listed, found


def _value_hits(
    index: int, step: Step, name: str, value: Any, check: _ArgCheck, *, found: dict[str, list[Hit]]
) -> None:
    """SCH-004 and SCH-006..009 on one declared argument's value."""
    spec, step_id = check.spec, step.step_id
    if check.unknown:
        message = f"{_arg(step, name)} declares unknown type '{spec.type}'; type check skipped"
        found["ARH-SCH-006"].append(Hit(index, message, observed=spec.type, step_id=step_id))
    type_check = check.type_check
    if type_check is not None and not type_check(value):
        got = type_name(value)
        message = f"{_arg(step, name)} must be {spec.type} (got {got})"
        found["ARH-SCH-004"].append(Hit(index, message, spec.type, got, step_id))
        return
    if not check.constrained:
        return
    enum = spec.enum
    if enum is not None and not (
        value in check.enum_strs if type(value) is str else any(json_equal(value, v) for v in enum)
    ):
        shown = brief(value)
        message = f"{_arg(step, name)} is not one of the allowed values (got {_quoted(value)})"
        found["ARH-SCH-007"].append(Hit(index, message, list(enum), shown, step_id))
    pattern = spec.pattern
    if pattern is not None and isinstance(value, str) and not pattern.fullmatch(value):
        message = f"{_arg(step, name)} does not fully match pattern '{pattern.pattern}'"
        found["ARH-SCH-008"].append(Hit(index, message, pattern.pattern, brief(value), step_id))
    if check.bounded:
        found["ARH-SCH-009"].extend(_range_hits(index, step, name, spec, value))


def _range_hits(index: int, step: Step, name: str, spec: ArgSpec, value: Any) -> list[Hit]:
    out: list[Hit] = []
    if isinstance(value, bool) or not isinstance(value, int | float):
        return out
    nan = isinstance(value, float) and math.isnan(value)
    if spec.min is not None and (nan or value < spec.min):
        out.append(
            Hit(
                index,
                f"{_arg(step, name)} is below min {spec.min} (got {value})",
                expected={"min": spec.min},
                observed=value,
                step_id=step.step_id,
            )
        )
    if spec.max is not None and (nan or value > spec.max):
        out.append(
            Hit(
                index,
                f"{_arg(step, name)} is above max {spec.max} (got {value})",
                expected={"max": spec.max},
                observed=value,
                step_id=step.step_id,
            )
        )
    return out


def _arg(step: Step, name: str) -> str:
    return f"argument '{name}' of tool '{step.tool_name}'"


def _quoted(value: Any, limit: int = 80) -> str:
    """A value as JSON text for a message (`"EUR"`, `7`, `["a"]`), cut past `limit`."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@rule(
    "ARH-SCH-001",
    SCHEMA,
    ERROR,
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
                result.hits.append(
                    Hit(
                        index,
                        f"tool '{step.tool_name}' is not in allowed_tools",
                        expected=sorted(tools) or None,
                        observed=step.tool_name,
                        step_id=step.step_id,
                    )
                )


@rule(
    "ARH-SCH-002",
    SCHEMA,
    ERROR,
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


class _ArgumentRule(RuleState):
    """One of SCH-003..009: its hits from the shared pass over the listed calls."""

    __slots__ = ()
    rule_id = ""

    def scan(self, ctx: RuleContext) -> None:
        listed, found = _argument_hits(ctx, self.compiled)
        self.result.checks += listed
        self.result.hits += found[self.rule_id]


def _argument_rule(rule_id: str, severity: Severity, title: str, remediation: str) -> None:
    """Declare one of SCH-003..009 (they differ only in what they are called)."""
    declared = type(f"Rule{rule_id[-3:]}", (_ArgumentRule,), {"__slots__": (), "rule_id": rule_id})
    rule(
        rule_id,
        SCHEMA,
        severity,
        title=title,
        remediation=remediation,
        counts=PER_CALL,
        compile=compile_tools,
    )(declared)


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
