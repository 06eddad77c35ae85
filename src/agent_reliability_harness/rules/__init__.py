"""The rule registry: every rule, imported in the fixed order of the contract's categories."""

from __future__ import annotations

from ..models.common import Category
from . import (  # noqa: F401  (each module declares its rules)
    agents,
    budget,
    completion,
    dataflow,
    flow,
    grounding,
    safety,
    schema,
    schema_lint,
    sequence,
    trajectory,
)
from .base import (
    MAX_FINDINGS,
    REGISTRY,
    RETIRED_IDS,
    Counts,
    Hit,
    Rule,
    RuleContext,
    RuleResult,
    RuleState,
)
from .facts import TraceFacts


def all_rules() -> tuple[Rule, ...]:
    """Every rule, in the contract's category order, then by ID."""
    order = {category: position for position, category in enumerate(Category)}
    return tuple(sorted(REGISTRY.values(), key=lambda r: (order[r.category], r.rule_id)))


def get_rule(rule_id: str) -> Rule:
    """The rule with this ID; KeyError if there is none."""
    return REGISTRY[rule_id]


__all__ = [
    "MAX_FINDINGS",
    "REGISTRY",
    "RETIRED_IDS",
    "Counts",
    "Hit",
    "Rule",
    "RuleContext",
    "RuleResult",
    "RuleState",
    "TraceFacts",
    "all_rules",
    "get_rule",
]
