"""The rule declaration: one decorated function per rule ID, collected in REGISTRY.

A check returns a RuleResult (checks counted for scoring, and Hits). A Hit
carries only location and wording; the engine stamps rule ID, category and
severity from the declaration, so no rule can drift from the registry.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

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
    """What a check found: where (step position, or None for the trace) and what."""

    step_index: int | None
    message: str
    expected: Any = None
    observed: Any = None


@dataclass(slots=True)
class RuleResult:
    """Checks counted for the category score, how many failed, and the hits."""

    checks: int = 0
    failed: int = 0
    hits: list[Hit] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class RuleContext:
    trace: Trace
    policy: Policy
    facts: TraceFacts


CheckFn = Callable[[RuleContext], RuleResult]


@dataclass(frozen=True, slots=True)
class Rule:
    """Everything about one rule, declared in one place."""

    rule_id: str
    category: Category
    severity: Severity
    title: str
    remediation: str
    applies: Callable[[Policy], bool]
    check: CheckFn
    # For the one rule whose severity depends on the policy (ARH-GRD-001).
    severity_for: Callable[[Policy], Severity] | None = None
    severity_note: str | None = None

    def effective_severity(self, policy: Policy) -> Severity:
        return self.severity if self.severity_for is None else self.severity_for(policy)


REGISTRY: dict[str, Rule] = {}


def _always(_: Policy) -> bool:
    return True


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
    """Declare a rule; refuses malformed, mis-categorised, duplicate or retired IDs."""
    match = _ID_PATTERN.fullmatch(rule_id)
    if match is None:
        raise ValueError(f"malformed rule ID {rule_id!r}")
    if _PREFIX[match.group(1)] is not category:
        raise ValueError(f"rule {rule_id} declared in category {category.value}")
    if rule_id in REGISTRY or rule_id in RETIRED_IDS:
        raise ValueError(f"rule ID {rule_id} is already used or retired")

    def register(check: CheckFn) -> CheckFn:
        REGISTRY[rule_id] = Rule(
            rule_id=rule_id,
            category=category,
            severity=severity,
            title=title,
            remediation=remediation,
            applies=applies,
            check=check,
            severity_for=severity_for,
            severity_note=severity_note,
        )
        return check

    return register


def brief(value: Any, limit: int = 200) -> Any:
    """A value small enough to show in a finding: long strings and containers are cut."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + "..."
    if isinstance(value, list | dict):
        text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
        return value if len(text) <= limit else text[:limit] + "..."
    return value
