"""Category scores, the weighted trace score and the pass/fail verdict (the contract's model).

Scores follow from the rules' results and each rule's declared `counts` alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

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


class _Tally:
    """What a category's scored rules reported."""

    __slots__ = ("calls", "checks", "coverage", "failed", "failing_calls", "when_set")

    def __init__(self) -> None:
        self.checks = self.failed = self.calls = 0
        self.when_set = False
        self.failing_calls: set[int | None] = set()
        self.coverage: RuleResult | None = None

    def add(self, counts: Counts, severity: Severity, result: RuleResult) -> None:
        if counts is Counts.PER_CALL:
            self.calls = max(self.calls, result.checks)
            if severity is Severity.ERROR:
                self.failing_calls.update(hit.step_index for hit in result.hits)
        elif counts is Counts.COVERAGE:
            self.coverage = result
        else:
            self.checks += result.checks
            self.failed += result.failed
            self.when_set = self.when_set or counts is Counts.RATIO_WHEN_SET

    def score(self) -> float | None:
        """The category's score, or None when it does not apply to the trace."""
        coverage = self.coverage
        if coverage is not None:
            if not coverage.checks:
                return None
            covered = (coverage.checks - coverage.failed) / coverage.checks
            target = coverage.target
            return 100.0 * min(1.0, covered / target) if target else 100.0 * covered
        checks = self.checks + self.calls
        failed = self.failed + len(self.failing_calls)
        if not checks and not self.when_set:
            return None
        return _ratio(checks, failed)


def category_scores(
    results: Iterable[tuple[Rule, Severity, RuleResult]],
) -> dict[Category, float]:
    """Scores of the categories that apply to this trace, in contract order, from each
    applicable rule's (declaration, effective severity, result)."""
    tallies: dict[Category, _Tally] = {}
    for rule, severity, result in results:
        if rule.counts is not Counts.NONE:
            tally = tallies.get(rule.category)
            if tally is None:
                tally = tallies[rule.category] = _Tally()
            tally.add(rule.counts, severity, result)
    scores = {category: tally.score() for category, tally in tallies.items()}
    return {c: s for c in Category if (s := scores.get(c)) is not None}


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
