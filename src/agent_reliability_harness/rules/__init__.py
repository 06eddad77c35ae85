"""The rule registry: every built-in rule, imported in the fixed order of the contract's
categories; plugins' rules join a run whose policy names them (rules/plugins.py)."""

from __future__ import annotations

from collections.abc import Iterable

from ..models.common import Category, Severity
from . import (  # noqa: F401  (each module declares its rules)
    agents,
    budget,
    claims,
    commands,
    completion,
    dataflow,
    flow,
    grounding,
    preconditions,
    recorded,
    results,
    safety,
    schema,
    schema_lint,
    secrets,
    sequence,
    trajectory,
)
from .base import (
    MAX_FINDINGS,
    PLUGIN_RULES,
    REGISTRY,
    RETIRED_IDS,
    Counts,
    Hit,
    Moment,
    Rule,
    RuleContext,
    RuleResult,
    RuleState,
    rule,
)
from .facts import TraceFacts
from .plugins import enabled_rules, rule_order


def all_rules(plugins: Iterable[str] = ()) -> tuple[Rule, ...]:
    """Every built-in rule and those of the named plugins (imported the first time;
    PolicyError when one cannot be used), in the contract's category order, then by ID."""
    return tuple(sorted([*REGISTRY.values(), *enabled_rules(plugins)], key=rule_order))


def get_rule(rule_id: str) -> Rule:
    """The rule with this ID (built-in, or of a plugin imported so far); KeyError if
    there is none."""
    found = REGISTRY.get(rule_id) or PLUGIN_RULES.get(rule_id)
    if found is None:
        raise KeyError(rule_id)
    return found


__all__ = [
    "MAX_FINDINGS",
    "PLUGIN_RULES",
    "REGISTRY",
    "RETIRED_IDS",
    "Category",
    "Counts",
    "Hit",
    "Moment",
    "Rule",
    "RuleContext",
    "RuleResult",
    "RuleState",
    "Severity",
    "TraceFacts",
    "all_rules",
    "get_rule",
    "rule",
]
