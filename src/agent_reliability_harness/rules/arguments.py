"""Argument contracts, compiled once per policy and checked in one pass per tool call:
the hits of SCH-003..009, 011 and 012, nested `items` / `properties` / `required` included.

A nested value is checked with its own spec's rules, where the enclosing value has the
type the nesting needs (`items` on a list, `properties` / `required` on an object), and
its findings carry the full argument path (`arguments.passengers[0].dob`) in the
message and in `observed` (`{"path": ..., and what a top-level finding observes}`).
Recursion follows the policy's nesting (at most MAX_SPEC_DEPTH levels), never the value's.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from ..models.common import type_name
from ..models.policy import ArgSpec, Policy
from ..models.policy.notes import dotted
from ..models.trace import Step
from ..models.types import ARG_TYPES
from .base import Hit, RuleContext, brief
from .outputs import json_equal

__all__ = [
    "ARGUMENT_RULES",
    "ArgCheck",
    "Tools",
    "argument_hits",
    "compile_tools",
    "contract_hits",
    "json_equal",
]

# The rules whose hits the one pass finds, in ID order.
ARGUMENT_RULES = (*(f"ARH-SCH-00{i}" for i in range(3, 10)), "ARH-SCH-011", "ARH-SCH-012")


def _anything(_: Any) -> bool:
    return True


class ArgCheck:
    """One declared argument (or nested value), compiled: what its rules test."""

    __slots__ = (
        "accepts",
        "bounded",
        "constrained",
        "enum_strs",
        "items",
        "lengths",
        "properties",
        "quick",
        "required",
        "spec",
        "type_check",
        "unknown",
        "v11",
    )

    def __init__(self, spec: ArgSpec) -> None:
        self.spec = spec
        # None when the check always passes ("any") or is skipped (an unknown type):
        # either way the value goes on to the value checks.
        check = ARG_TYPES.get(spec.type)
        self.type_check = None if spec.type == "any" else check
        self.accepts = self.type_check or _anything
        self.unknown = not spec.known_type
        self.bounded = spec.min is not None or spec.max is not None
        self.lengths = spec.min_length is not None or spec.max_length is not None
        self.items = None if spec.items is None else ArgCheck(spec.items)
        self.properties = (
            None
            if spec.properties is None
            else {name: ArgCheck(sub) for name, sub in spec.properties.items()}
        )
        self.required = spec.required
        # Whether any v1.1 key (not_pattern, lengths, nesting) is set: a v1 spec skips them.
        self.v11 = spec.not_pattern is not None or self.lengths or spec.nested
        self.constrained = (
            spec.enum is not None or spec.pattern is not None or self.bounded or self.v11
        )
        # json_equal(str, x) is `x == str` for an exact str x and False for the rest,
        # so an exact str value is in the enum exactly when it is in this set.
        self.enum_strs = frozenset(v for v in spec.enum or () if type(v) is str)
        self.quick = _quick(self) if self.constrained and not (self.unknown or self.v11) else None


def _quick(check: ArgCheck) -> Callable[[Any], bool]:
    """For a constrained v1 spec: a test that is True only for a value every check of the
    spec passes (an exact str, int or float the type, enum, pattern and range accept), so
    that the common passing value skips the full check; False sends it there."""
    spec = check.spec
    strs = spec.type in {"str", "any"}
    enum_strs = check.enum_strs if spec.enum is not None else None
    pattern = spec.pattern
    numbers = spec.enum is None and spec.type in {"int", "float", "any"}
    floats = numbers and spec.type != "int"
    low, high = spec.min, spec.max

    def quick(value: Any) -> bool:
        kind = value.__class__
        if kind is str:
            return (
                strs
                and (enum_strs is None or value in enum_strs)
                and (pattern is None or bool(pattern.fullmatch(value)))
            )
        if kind is int or (kind is float and floats):
            return numbers and (low is None or low <= value) and (high is None or value <= high)
        return False

    return quick


# A listed tool, compiled: its required argument names, and a check per declared
# argument (a required spec wins over an optional one, as in ToolSchema.spec_for).
Tools = dict[str, tuple[tuple[str, ...], dict[str, ArgCheck]]]


def compile_tools(policy: Policy) -> Tools:
    """The allowed tools' argument contracts, compiled (once per Evaluator)."""
    compiled: Tools = {}
    for name, tool in policy.allowed_tools.items():
        checks = {n: ArgCheck(spec) for n, spec in tool.optional_arguments.items()}
        checks.update((n, ArgCheck(spec)) for n, spec in tool.required_arguments.items())
        compiled[name] = (tuple(tool.required_arguments), checks)
    return compiled


Found = dict[str, list[Hit]]


def argument_hits(ctx: RuleContext, tools: Tools) -> tuple[int, Found]:
    """The listed calls of the steps being scanned and the hits of every argument rule
    on them, found in one pass for all of them (once per chunk, whichever rule asks).

    The pass visits listed calls in order and, per call, the required names (SCH-003)
    then the arguments in order, exactly as each rule alone would: every rule's own
    hits keep their order.
    """
    key = ("schema.argument_hits", id(tools))
    found: tuple[int, Found] | None = ctx.facts.memo.get(key)
    if found is None:
        found = _find_argument_hits(ctx, tools)
        ctx.facts.memo[key] = found
    return found


def call_argument_hits(ctx: RuleContext, tools: Tools, index: int, step: Step) -> Found:
    """Every argument rule's hits on one call, as `argument_hits` finds them (the probe
    of a call not scanned yet; once per call, whichever rule asks)."""
    key = ("schema.call_argument_hits", id(tools), index, id(step))
    found: Found | None = ctx.facts.memo.get(key)
    if found is None:
        found = {rule_id: [] for rule_id in ARGUMENT_RULES}
        compiled = tools.get(step.tool_name or "")
        if compiled is not None:
            _call_hits(index, step, compiled, found)
        ctx.facts.memo[key] = found
    return found


def _find_argument_hits(ctx: RuleContext, tools: Tools) -> tuple[int, Found]:
    found: Found = {rule_id: [] for rule_id in ARGUMENT_RULES}
    listed = 0
    for index, step in ctx.facts.calls:
        compiled = tools.get(step.tool_name or "")
        if compiled is None:
            continue
        listed += 1
        _call_hits(index, step, compiled, found)
    return listed, found


def _call_hits(index: int, step: Step, compiled: Any, found: Found) -> None:
    """The argument rules' hits on one listed call (SCH-003 first, then each argument)."""
    required, checks = compiled
    arguments = step.arguments
    for name in required:
        if not arguments or name not in arguments:
            found["ARH-SCH-003"].append(
                Hit(
                    index,
                    f"tool '{step.tool_name}' is missing required argument '{name}'",
                    expected=name,
                    step_id=step.step_id,
                )
            )
    if not arguments:
        return
    values: _Value | None = None
    for name, value in arguments.items():
        check = checks.get(name)
        if check is None:
            message = f"{_arg(step, name)} is not declared in the policy"
            found["ARH-SCH-005"].append(Hit(index, message, observed=name, step_id=step.step_id))
        elif check.constrained or check.unknown or not check.accepts(value):
            quick = check.quick
            if quick is not None and quick(value):
                continue
            if values is None:
                values = _Value(index, step, found)
            values.check(check, value, name, None)


def _arg(step: Step, name: str) -> str:
    return f"argument '{name}' of tool '{step.tool_name}'"


def _quoted(value: Any, limit: int = 80) -> str:
    """A value as JSON text for a message (`"EUR"`, `7`, `["a"]`), cut past `limit`."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Value:
    """The checks of one call's values: each hit worded for a top-level argument (`path`
    None: v1 wording, `argument 'name' of tool 't'`) or for a nested value (its full path)."""

    __slots__ = ("found", "index", "step")

    def __init__(self, index: int, step: Step, found: Found) -> None:
        self.index, self.step, self.found = index, step, found

    def hit(  # noqa: PLR0917 - a hit's parts, passed apart so that no check builds them
        self,
        rule_id: str,
        name: str,
        path: str | None,
        message: str,
        expected: Any,
        key: str,
        observed: Any,
    ) -> None:
        """One hit: `observed` alone at the top level, `{"path": ..., key: observed}` nested."""
        step = self.step
        if path is None:
            label, shown = _arg(step, name), observed
        else:
            label, shown = f"{path} of tool '{step.tool_name}'", {"path": path, key: observed}
        self.found[rule_id].append(
            Hit(self.index, f"{label} {message}", expected, shown, step.step_id)
        )

    def check(self, check: ArgCheck, value: Any, name: str, path: str | None) -> None:
        """Every rule of `check` on `value` (SCH-004, 006..009, 011, 012), then its nested
        specs where the value has their type (v1 order: type, enum, pattern, range)."""
        spec = check.spec
        if check.unknown:
            message = f"declares unknown type '{spec.type}'; type check skipped"
            self.hit("ARH-SCH-006", name, path, message, None, "type", spec.type)
        type_check = check.type_check
        if type_check is not None and not type_check(value):
            got = type_name(value)
            message = f"must be {spec.type} (got {got})"
            self.hit("ARH-SCH-004", name, path, message, spec.type, "type", got)
            return
        if not check.constrained:
            return
        enum = spec.enum
        if enum is not None and not (
            value in check.enum_strs
            if type(value) is str
            else any(json_equal(value, v) for v in enum)
        ):
            message = f"is not one of the allowed values (got {_quoted(value)})"
            self.hit("ARH-SCH-007", name, path, message, list(enum), "value", brief(value))
        pattern = spec.pattern
        if pattern is not None and isinstance(value, str) and not pattern.fullmatch(value):
            message = f"does not fully match pattern '{pattern.pattern}'"
            self.hit("ARH-SCH-008", name, path, message, pattern.pattern, "value", brief(value))
        if check.bounded:
            self._range(spec, value, name, path)
        if check.v11:
            self._v11(check, value, name, path)

    def _v11(self, check: ArgCheck, value: Any, name: str, path: str | None) -> None:
        spec, forbidden = check.spec, check.spec.not_pattern
        if forbidden is not None and isinstance(value, str) and forbidden.search(value):
            message = f"contains a match of not_pattern '{forbidden.pattern}'"
            expected = {"not_pattern": forbidden.pattern}
            self.hit("ARH-SCH-011", name, path, message, expected, "value", brief(value))
        if check.lengths and isinstance(value, str | list):
            self._length(spec, len(value), name, path)
        if check.items is not None and isinstance(value, list):
            self._items(check.items, value, name, path)
        if (check.properties is not None or check.required) and isinstance(value, dict):
            self._properties(check, value, name, path)

    def _range(self, spec: ArgSpec, value: Any, name: str, path: str | None) -> None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return
        nan = isinstance(value, float) and math.isnan(value)
        if spec.min is not None and (nan or value < spec.min):
            message = f"is below min {spec.min} (got {value})"
            self.hit("ARH-SCH-009", name, path, message, {"min": spec.min}, "value", value)
        if spec.max is not None and (nan or value > spec.max):
            message = f"is above max {spec.max} (got {value})"
            self.hit("ARH-SCH-009", name, path, message, {"max": spec.max}, "value", value)

    def _length(self, spec: ArgSpec, length: int, name: str, path: str | None) -> None:
        """`length`: code points of a str, elements of a list."""
        if spec.min_length is not None and length < spec.min_length:
            message = f"is shorter than min_length {spec.min_length} (length {length})"
            expected = {"min_length": spec.min_length}
            self.hit("ARH-SCH-012", name, path, message, expected, "length", length)
        if spec.max_length is not None and length > spec.max_length:
            message = f"is longer than max_length {spec.max_length} (length {length})"
            expected = {"max_length": spec.max_length}
            self.hit("ARH-SCH-012", name, path, message, expected, "length", length)

    def _items(self, items: ArgCheck, value: list[Any], name: str, path: str | None) -> None:
        base = _path(name, path)
        visit = items.constrained or items.unknown
        for position, element in enumerate(value):
            if visit or not items.accepts(element):
                self.check(items, element, name, f"{base}[{position}]")

    def _properties(
        self, check: ArgCheck, value: dict[str, Any], name: str, path: str | None
    ) -> None:
        base = _path(name, path)
        for required in check.required:
            if required not in value:
                where = dotted(base, required)
                message = f"tool '{self.step.tool_name}' is missing required {where}"
                self.found["ARH-SCH-003"].append(
                    Hit(self.index, message, required, {"path": where}, self.step.step_id)
                )
        for key, sub in (check.properties or {}).items():
            if key in value:
                element = value[key]
                if sub.constrained or sub.unknown or not sub.accepts(element):
                    self.check(sub, element, name, dotted(base, key))


def _path(name: str, path: str | None) -> str:
    """The full path of a value: `arguments.<name>` at the top level."""
    return dotted("arguments", name) if path is None else path


def contract_hits(index: int, step: Step, check: ArgCheck, value: Any, path: str) -> list[Hit]:
    """Every hit of one compiled contract on a value at `path` (a call's output: policy
    v1.2 `output`), all rules' in one list, in check order; the note that a declared
    type is unknown is left out (the policy's warnings say it)."""
    shared: list[Hit] = []
    found: Found = dict.fromkeys(ARGUMENT_RULES, shared)
    found["ARH-SCH-006"] = []
    _Value(index, step, found).check(check, value, path, path)
    return shared
