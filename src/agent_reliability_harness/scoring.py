"""Category scores, the weighted trace score and the pass/fail verdict (the contract's model).

Scores follow from the rules' results and each rule's declared `counts` alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from .models.common import Category, Severity
from .models.report import Finding
from .rules.base import Counts, Rule, RuleResult

WEIGHTS: dict[Category, float] = {
    Category.SCHEMA: 0.3,
    Category.BUDGET: 0.3,
    Category.SAFETY: 0.25,
    Category.GROUNDING: 0.15,
    Category.SEQUENCE: 0.25,
    Category.FLOW: 0.2,
    Category.COMPLETION: 0.1,
}
DEFAULT_FAIL_UNDER = 70.0


def _ratio(checks: int, failed: int) -> float:
    if checks <= 0:
        return 100.0
    return 100.0 * max(0, checks - failed) / checks


_RATIO, _WHEN_SET = Counts.RATIO, Counts.RATIO_WHEN_SET
_PER_CALL, _COVERAGE, _NONE = Counts.PER_CALL, Counts.COVERAGE, Counts.NONE
_ERROR = Severity.ERROR


def category_scores(
    results: Iterable[tuple[Rule, Severity, RuleResult]],
) -> dict[Category, float]:
    """Scores of the categories that apply to this trace, in contract order, from each
    applicable rule's (declaration, effective severity, result)."""
    # Per category: [checks, failed, tool calls, scored when set, failing calls, coverage]
    tallies: dict[Category, list[Any]] = {}
    for rule, severity, result in results:
        counts = rule.counts
        if counts is _NONE:
            continue
        tally = tallies.get(rule.category)
        if tally is None:
            tally = tallies[rule.category] = [0, 0, 0, False, set(), None]
        if counts is _RATIO or counts is _WHEN_SET:
            tally[0] += result.checks
            tally[1] += result.failed
            tally[3] = tally[3] or counts is _WHEN_SET
        elif counts is _PER_CALL:
            tally[2] = max(tally[2], result.checks)
            if severity is _ERROR and result.hits:
                tally[4].update(hit.step_index for hit in result.hits)
        else:
            tally[5] = result
    scores = {category: _score(tally) for category, tally in tallies.items()}
    return {c: s for c in Category if (s := scores.get(c)) is not None}


def _score(tally: list[Any]) -> float | None:
    """A category's score from its tally, or None when it does not apply to the trace."""
    checks, failed, calls, when_set, failing_calls, coverage = tally
    coverage = cast("RuleResult | None", coverage)
    if coverage is not None:
        if not coverage.checks:
            return None
        covered = (coverage.checks - coverage.failed) / coverage.checks
        target = coverage.target
        return 100.0 * min(1.0, covered / float(target)) if target else 100.0 * covered
    checks += calls
    failed += len(failing_calls)
    if not checks and not when_set:
        return None
    return _ratio(checks, failed)


def trace_score(scores: Mapping[Category, float]) -> float:
    """Weighted mean over the applicable categories, weights renormalised; 100 when none."""
    if not scores:
        return 100.0
    weight = sum(WEIGHTS[c] for c in scores)
    return sum(WEIGHTS[c] * s for c, s in scores.items()) / weight


def round_score(value: float) -> float:
    return round(value + 0.0, 2)


def passes(findings: Iterable[Finding], score: float, fail_under: float) -> bool:
    """A trace passes with no error-severity finding and a (rounded) score >= fail_under."""
    return score >= fail_under and not any(f.severity is Severity.ERROR for f in findings)
