"""ARH-SCH-*: tool calls against `allowed_tools` and their argument contracts."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..models.common import Category, Severity, type_name
from ..models.policy import ArgSpec, Policy
from ..models.trace import Step
from .base import Hit, RuleContext, RuleResult, brief, stateful_rule, step_rule

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


class _ArgCheck:
    """One declared argument, compiled: what SCH-004 and SCH-006..009 test on it."""

    __slots__ = ("bounded", "constrained", "enum_strs", "spec", "type_check", "unknown")

    def __init__(self, spec: ArgSpec) -> None:
        self.spec = spec
        # None when the check always passes ("any") or is skipped (an unknown type):
        # either way the value goes on to the enum, pattern and range checks.
        check = _TYPE_CHECKS.get(spec.type)
        self.type_check = None if spec.type == "any" else check
        self.unknown = not spec.known_type
        self.bounded = spec.min is not None or spec.max is not None
        self.constrained = spec.enum is not None or spec.pattern is not None or self.bounded
        # json_equal(str, x) is `x == str` for an exact str x and False for the rest,
        # so an exact str value is in the enum exactly when it is in this set.
        self.enum_strs = frozenset(v for v in spec.enum or () if type(v) is str)


# A listed tool, compiled: its required argument names, and a check per declared
# argument (a required spec wins over an optional one, as in ToolSchema.spec_for).
_Compiled = dict[str, tuple[tuple[str, ...], dict[str, _ArgCheck]]]
_COMPILED: list[tuple[Policy, _Compiled]] = []


def _compiled_tools(policy: Policy) -> _Compiled:
    """The allowed tools compiled once per policy (the last policy is kept)."""
    cached = _COMPILED[0] if _COMPILED else None
    if cached is not None and cached[0] is policy:
        return cached[1]
    compiled: _Compiled = {}
    for name, tool in policy.allowed_tools.items():
        checks = {n: _ArgCheck(spec) for n, spec in tool.optional_arguments.items()}
        checks.update((n, _ArgCheck(spec)) for n, spec in tool.required_arguments.items())
        compiled[name] = (tuple(tool.required_arguments), checks)
    _COMPILED[:] = [(policy, compiled)]
    return compiled


_ARGUMENT_RULES = tuple(f"ARH-SCH-00{i}" for i in range(3, 10))


def _argument_hits(ctx: RuleContext, result: RuleResult, rule_id: str) -> None:
    """Add the chunk's hits of one of SCH-003..009, all found in one pass per chunk.

    The pass visits listed calls in order and, per call, the required names (SCH-003)
    then the arguments in order, exactly as each rule alone would: every rule's own
    hits keep their order.
    """
    key = ("schema.argument_hits", id(ctx.policy))
    found: dict[str, list[Hit]] | None = ctx.facts.memo.get(key)
    if found is None:
        found = _find_argument_hits(ctx)
        ctx.facts.memo[key] = found
    result.hits.extend(found[rule_id])


def _find_argument_hits(ctx: RuleContext) -> dict[str, list[Hit]]:
    found: dict[str, list[Hit]] = {rule_id: [] for rule_id in _ARGUMENT_RULES}
    missing, wrong, undeclared, unknown, not_in_enum, mismatch, out_of_range = found.values()
    tools = _compiled_tools(ctx.policy)
    for index, step in ctx.facts.calls:
        compiled = tools.get(step.tool_name or "")
        if compiled is None:
            continue
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
                undeclared.append(
                    Hit(
                        index,
                        f"{_arg(step, name)} is not declared in the policy",
                        observed=name,
                        step_id=step.step_id,
                    )
                )
                continue
            spec = check.spec
            if check.unknown:
                unknown.append(
                    Hit(
                        index,
                        f"{_arg(step, name)} declares unknown type '{spec.type}'; type check "
                        "skipped",
                        observed=spec.type,
                        step_id=step.step_id,
                    )
                )
            type_check = check.type_check
            if type_check is not None and not type_check(value):
                wrong.append(
                    Hit(
                        index,
                        f"{_arg(step, name)} must be {spec.type} (got {type_name(value)})",
                        expected=spec.type,
                        observed=type_name(value),
                        step_id=step.step_id,
                    )
                )
                continue
            if not check.constrained:
                continue
            enum = spec.enum
            if enum is not None and not (
                value in check.enum_strs
                if type(value) is str
                else any(json_equal(value, v) for v in enum)
            ):
                not_in_enum.append(
                    Hit(
                        index,
                        f"{_arg(step, name)} is not one of the allowed values",
                        expected=list(enum),
                        observed=brief(value),
                        step_id=step.step_id,
                    )
                )
            pattern = spec.pattern
            if pattern is not None and isinstance(value, str) and not pattern.fullmatch(value):
                mismatch.append(
                    Hit(
                        index,
                        f"{_arg(step, name)} does not fully match pattern '{pattern.pattern}'",
                        expected=pattern.pattern,
                        observed=brief(value),
                        step_id=step.step_id,
                    )
                )
            if check.bounded:
                out_of_range.extend(_range_hits(index, step, name, spec, value))
    return found


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


@step_rule(
    "ARH-SCH-001",
    SCHEMA,
    ERROR,
    title="Tool is not allowed by the policy",
    remediation="Add the tool to allowed_tools (with its argument contract), or stop the "
    "agent from calling it.",
)
def tool_not_allowed(ctx: RuleContext, result: RuleResult) -> None:
    if ctx.policy.allow_unlisted_tools:
        return
    tools = ctx.policy.allowed_tools
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


@step_rule(
    "ARH-SCH-002",
    SCHEMA,
    ERROR,
    title="Tool call has no tool name",
    remediation="Record the name of the invoked tool in tool_name for every tool_call step.",
)
def tool_name_missing(ctx: RuleContext, result: RuleResult) -> None:
    facts = ctx.facts
    if not facts.unnamed_calls:  # the usual case: every tool_call of the chunk is named
        return
    for index, step in enumerate(facts.steps, facts.start):
        if step.is_tool_call and not step.tool_name:
            result.hits.append(Hit(index, "tool_call has no tool_name", step_id=step.step_id))


@step_rule(
    "ARH-SCH-003",
    SCHEMA,
    ERROR,
    title="Required argument is missing",
    remediation="Pass every argument listed in the tool's required_arguments.",
)
def required_argument_missing(ctx: RuleContext, result: RuleResult) -> None:
    _argument_hits(ctx, result, "ARH-SCH-003")


@step_rule(
    "ARH-SCH-004",
    SCHEMA,
    ERROR,
    title="Argument has the wrong type",
    remediation="Pass the argument with the type the policy declares (str, int, float, bool, "
    "list, dict).",
)
def argument_wrong_type(ctx: RuleContext, result: RuleResult) -> None:
    _argument_hits(ctx, result, "ARH-SCH-004")


@step_rule(
    "ARH-SCH-005",
    SCHEMA,
    Severity.WARNING,
    title="Argument is not declared",
    remediation="Declare the argument in required_arguments or optional_arguments, or stop "
    "passing it.",
)
def argument_undeclared(ctx: RuleContext, result: RuleResult) -> None:
    _argument_hits(ctx, result, "ARH-SCH-005")


@step_rule(
    "ARH-SCH-006",
    SCHEMA,
    Severity.INFO,
    title="Argument declares an unknown type",
    remediation="Use one of the type names str, int, float, bool, list, dict or any; until "
    "then the type check is skipped.",
)
def argument_unknown_type(ctx: RuleContext, result: RuleResult) -> None:
    _argument_hits(ctx, result, "ARH-SCH-006")


@step_rule(
    "ARH-SCH-007",
    SCHEMA,
    ERROR,
    title="Argument value is not in the enum",
    remediation="Pass one of the values listed in the argument's enum.",
)
def argument_not_in_enum(ctx: RuleContext, result: RuleResult) -> None:
    _argument_hits(ctx, result, "ARH-SCH-007")


@step_rule(
    "ARH-SCH-008",
    SCHEMA,
    ERROR,
    title="Argument does not match its pattern",
    remediation="Pass a string that matches the argument's pattern as a whole.",
)
def argument_pattern_mismatch(ctx: RuleContext, result: RuleResult) -> None:
    _argument_hits(ctx, result, "ARH-SCH-008")


@step_rule(
    "ARH-SCH-009",
    SCHEMA,
    ERROR,
    title="Argument is out of range",
    remediation="Pass a number within the argument's min and max.",
)
def argument_out_of_range(ctx: RuleContext, result: RuleResult) -> None:
    _argument_hits(ctx, result, "ARH-SCH-009")


@stateful_rule(
    "ARH-SCH-010",
    SCHEMA,
    Severity.WARNING,
    title="Step id is not unique",
    remediation="Give every step a unique step_id so findings and fingerprints point at one step.",
)
class DuplicateStepId:
    """Step ids seen so far (kept in first-seen order, without their positions: a repeated
    id's first position is worked out at the end) and the positions of repeats."""

    __slots__ = ("counts", "repeats", "seen")

    def __init__(self, _: Policy) -> None:
        self.seen: dict[str, None] = {}
        self.repeats: list[int] = []  # positions of steps whose id was seen before
        self.counts: dict[str, int] = {}  # occurrences of each repeated id

    def scan(self, ctx: RuleContext) -> None:
        facts = ctx.facts
        steps = facts.steps
        if facts.complete and len({step.step_id for step in steps}) == len(steps):
            return  # the usual case: no repeats
        seen, repeats = self.seen, self.repeats
        for index, step in enumerate(steps, facts.start):
            step_id = step.step_id
            if step_id in seen:
                repeats.append(index)
                self.counts[step_id] = self.counts.get(step_id, 1) + 1
            else:
                seen[step_id] = None

    def finish(self, ctx: RuleContext) -> RuleResult:
        result = RuleResult()
        if not self.repeats:
            return result
        counts = self.counts
        # The k-th new id stands at position k + r, r being the number of repeats before
        # it: each of the first r repeats stands at or before k + (its own rank), since
        # only new ids and earlier repeats precede it.
        repeats, rank = self.repeats, 0
        for ordinal, step_id in enumerate(self.seen):
            while rank < len(repeats) and repeats[rank] <= ordinal + rank:
                rank += 1
            count = counts.get(step_id)
            if count is not None:
                result.hits.append(
                    Hit(
                        ordinal + rank,
                        f"step_id '{step_id}' occurs {count} times",
                        observed=count,
                        step_id=step_id,
                    )
                )
        return result
