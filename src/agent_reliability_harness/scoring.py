"""Category scores, the weighted trace score and the pass/fail verdict (the contract's model).

Scores follow from the rules' results and each rule's declared `counts` alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

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


class ScorePlan:
    """What scoring needs of the declarations, worked out once per Evaluator: for each
    applicable rule, in the order its results come, its category and how it counts."""

    __slots__ = ("categories", "coverage", "per_call", "ratio", "when_set")

    def __init__(self, rules: Sequence[tuple[Rule, Severity]]) -> None:
        scored = {r.category for r, _ in rules if r.counts is not _NONE}
        self.categories = tuple(c for c in Category if c in scored)  # contract order
        slot = {category: n for n, category in enumerate(self.categories)}
        self.when_set = [False] * len(self.categories)
        self.ratio: list[tuple[int, int]] = []
        self.per_call: list[tuple[int, int, bool]] = []
        self.coverage: list[tuple[int, int]] = []
        for index, (rule, severity) in enumerate(rules):
            counts = rule.counts
            if counts is _NONE:
                continue
            at = slot[rule.category]
            if counts is _RATIO or counts is _WHEN_SET:
                self.ratio.append((index, at))
                self.when_set[at] = self.when_set[at] or counts is _WHEN_SET
            elif counts is _PER_CALL:
                self.per_call.append((index, at, severity is _ERROR))
            else:
                self.coverage.append((index, at))

    def scores(self, results: Sequence[RuleResult]) -> dict[Category, float]:
        """Scores of the categories that apply to this trace, in contract order, from the
        results of the rules the plan was made for (in the same order)."""
        size = len(self.categories)
        checks, failed, calls = [0] * size, [0] * size, [0] * size
        for index, at in self.ratio:
            result = results[index]
            checks[at] += result.checks
            failed[at] += result.failed
        failing: dict[int, set[int | None]] = {}
        for index, at, error in self.per_call:
            result = results[index]
            calls[at] = max(calls[at], result.checks)
            if error and result.hits:
                failing.setdefault(at, set()).update(hit.step_index for hit in result.hits)
        covered = {at: results[index] for index, at in self.coverage}
        out: dict[Category, float] = {}
        for at, category in enumerate(self.categories):
            coverage = covered.get(at)
            if coverage is not None:
                score = _coverage(coverage)
            else:
                total = checks[at] + calls[at]
                score = (
                    _ratio(total, failed[at] + len(failing.get(at, ())))
                    if total or self.when_set[at]
                    else None
                )
            if score is not None:
                out[category] = score
        return out


def _coverage(result: RuleResult) -> float | None:
    """Coverage c = (checks - failed) / checks against the result's target, if any."""
    if not result.checks:
        return None
    covered = (result.checks - result.failed) / result.checks
    target = result.target
    return 100.0 * min(1.0, covered / float(target)) if target else 100.0 * covered


def category_scores(
    results: Iterable[tuple[Rule, Severity, RuleResult]],
) -> dict[Category, float]:
    """Scores of the categories that apply, from each applicable rule's (declaration,
    effective severity, result)."""
    listed = list(results)
    plan = ScorePlan([(rule, severity) for rule, severity, _ in listed])
    return plan.scores([result for _, _, result in listed])


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
