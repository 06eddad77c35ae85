"""The rule declaration: one decorated function (or class) per rule ID, in REGISTRY.

A rule reads the trace through TraceFacts, which a long trace gets a chunk of
steps at a time. So a rule has up to two parts: a scan of each chunk (what it
finds at single steps, and whatever it must carry to the end) and a finish (what
only the whole trace decides). Three declarations cover them:

- `@rule`: a finish only, `check(ctx) -> RuleResult`, from the trace-wide facts;
- `@step_rule`: a scan only, `scan(ctx, result)`, adding each chunk's checks and hits;
- `@stateful_rule`: a class made once per trace, with `scan(ctx)` and `finish(ctx)`.

A Hit carries only location and wording; the engine stamps rule ID, category and
severity from the declaration, so no rule can drift from the registry.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from ..models.common import Category, Severity
from ..models.policy import Policy
from ..models.trace import Trace
from .facts import TraceFacts

_ID_PATTERN = re.compile(r"ARH-(SCH|BUD|SAF|GRD|SEQ|FLW|CMP)-\d{3}")
_PREFIX = {
    "SCH": Category.SCHEMA,
    "BUD": Category.BUDGET,
    "SAF": Category.SAFETY,
    "GRD": Category.GROUNDING,
    "SEQ": Category.SEQUENCE,
    "FLW": Category.FLOW,
    "CMP": Category.COMPLETION,
}
# IDs that were once used and must never be reused.
RETIRED_IDS: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Hit:
    """What a check found: where (step position and id, or None for the trace) and what."""

    step_index: int | None
    message: str
    expected: Any = None
    observed: Any = None
    # The id of the step at step_index (the step itself may be gone by the time the
    # trace is reported, when it is read a chunk at a time).
    step_id: str | None = None


@dataclass(slots=True)
class RuleResult:
    """Checks counted for the category score, how many failed, and the hits."""

    checks: int = 0
    failed: int = 0
    hits: list[Hit] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class RuleContext:
    """What a rule sees: the trace (None while it is read a chunk at a time), the policy,
    and the facts (the current chunk and the trace so far; see TraceFacts)."""

    trace: Trace | None
    policy: Policy
    facts: TraceFacts


CheckFn = Callable[[RuleContext], RuleResult]
ScanFn = Callable[[RuleContext, RuleResult], None]


class RuleState(Protocol):
    """The per-trace part of a `@stateful_rule` (the class is called with the policy)."""

    def scan(self, ctx: RuleContext) -> None: ...

    def finish(self, ctx: RuleContext) -> RuleResult: ...


@dataclass(frozen=True, slots=True)
class Rule:
    """Everything about one rule, declared in one place."""

    rule_id: str
    category: Category
    severity: Severity
    title: str
    remediation: str
    applies: Callable[[Policy], bool]
    # For the one rule whose severity depends on the policy (ARH-GRD-001).
    severity_for: Callable[[Policy], Severity] | None = None
    severity_note: str | None = None
    # Exactly one of these, by how the rule was declared (see the module docstring).
    check_fn: CheckFn | None = None
    scan_fn: ScanFn | None = None
    state_cls: Callable[[Policy], RuleState] | None = None

    def effective_severity(self, policy: Policy) -> Severity:
        return self.severity if self.severity_for is None else self.severity_for(policy)

    def check(self, ctx: RuleContext) -> RuleResult:
        """The result for a trace whose facts cover it whole (`TraceFacts(trace)`)."""
        if self.check_fn is not None:
            return self.check_fn(ctx)
        if self.scan_fn is not None:
            result = RuleResult()
            self.scan_fn(ctx, result)
            return result
        assert self.state_cls is not None
        state = self.state_cls(ctx.policy)
        state.scan(ctx)
        return state.finish(ctx)


REGISTRY: dict[str, Rule] = {}


def _always(_: Policy) -> bool:
    return True


def _check_id(rule_id: str, category: Category) -> None:
    """Refuse malformed, mis-categorised, duplicate or retired IDs."""
    match = _ID_PATTERN.fullmatch(rule_id)
    if match is None:
        raise ValueError(f"malformed rule ID {rule_id!r}")
    if _PREFIX[match.group(1)] is not category:
        raise ValueError(f"rule {rule_id} declared in category {category.value}")
    if rule_id in REGISTRY or rule_id in RETIRED_IDS:
        raise ValueError(f"rule ID {rule_id} is already used or retired")


_F = TypeVar("_F")


def _declaration(
    rule_id: str, category: Category, severity: Severity, slot: str, fields: dict[str, Any]
) -> Callable[[_F], _F]:
    """Check the ID at once; the decorator registers the rule with what it decorates as
    `slot` (check_fn, scan_fn or state_cls) and gives it back unchanged."""
    _check_id(rule_id, category)

    def register(declared: _F) -> _F:
        _check_id(rule_id, category)  # still free: nothing took it in between
        parts: dict[str, Any] = {**fields, slot: declared}
        REGISTRY[rule_id] = Rule(rule_id, category, severity, **parts)
        return declared

    return register


def rule(
    rule_id: str,
    category: Category,
    severity: Severity,
    *,
    title: str,
    remediation: str,
    applies: Callable[[Policy], bool] = _always,
    severity_for: Callable[[Policy], Severity] | None = None,
    severity_note: str | None = None,
) -> Callable[[CheckFn], CheckFn]:
    """Declare a rule decided by the trace-wide facts alone: `check(ctx) -> RuleResult`."""
    fields: dict[str, Any] = {"title": title, "remediation": remediation, "applies": applies}
    fields |= {"severity_for": severity_for, "severity_note": severity_note}
    return _declaration(rule_id, category, severity, "check_fn", fields)


def step_rule(
    rule_id: str,
    category: Category,
    severity: Severity,
    *,
    title: str,
    remediation: str,
    applies: Callable[[Policy], bool] = _always,
    severity_for: Callable[[Policy], Severity] | None = None,
    severity_note: str | None = None,
) -> Callable[[ScanFn], ScanFn]:
    """Declare a rule decided step by step: `scan(ctx, result)` adds each chunk's checks
    and hits to the trace's result."""
    fields: dict[str, Any] = {"title": title, "remediation": remediation, "applies": applies}
    fields |= {"severity_for": severity_for, "severity_note": severity_note}
    return _declaration(rule_id, category, severity, "scan_fn", fields)


_StateT = TypeVar("_StateT", bound=type)


def stateful_rule(
    rule_id: str,
    category: Category,
    severity: Severity,
    *,
    title: str,
    remediation: str,
    applies: Callable[[Policy], bool] = _always,
) -> Callable[[_StateT], _StateT]:
    """Declare a rule that carries state from chunk to chunk: a class made per trace with
    the policy, with `scan(ctx)` per chunk and `finish(ctx) -> RuleResult`."""
    fields: dict[str, Any] = {"title": title, "remediation": remediation, "applies": applies}
    return _declaration(rule_id, category, severity, "state_cls", fields)


def brief(value: Any, limit: int = 200) -> Any:
    """A value small enough to show in a finding: long strings and containers are cut."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + "..."
    if isinstance(value, list | dict):
        text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
        return value if len(text) <= limit else text[:limit] + "..."
    return value
