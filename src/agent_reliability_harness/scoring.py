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
    """What scoring needs of the declarations, worked out once per Evaluator: per
    category that a rule scores (in contract order), the positions of its rules'
    results by how they count (results come in the order of the rules given)."""

    __slots__ = ("categories", "claims", "plan")

    def __init__(self, rules: Sequence[tuple[Rule, Severity]]) -> None:
        scored = {r.category for r, _ in rules if r.counts is not _NONE}
        self.categories = tuple(c for c in Category if c in scored)  # contract order
        # (category, ratio positions, (position, error severity) per per-call rule, the
        # coverage position or None, whether the category applies with no check)
        self.plan: list[
            tuple[Category, tuple[int, ...], tuple[tuple[int, bool], ...], int | None, bool]
        ] = []
        # Per category with a coverage rule: the positions of its policy v1.3 ratio rules
        # (claims, ARH-GRD-004/005), which score alongside the coverage.
        self.claims: dict[Category, tuple[int, ...]] = {}
        for category in self.categories:
            mine = [(n, r, s) for n, (r, s) in enumerate(rules) if r.category is category]
            coverage = [n for n, r, _ in mine if r.counts is _COVERAGE]
            self.plan.append(
                (
                    category,
                    tuple(n for n, r, _ in mine if r.counts is _RATIO or r.counts is _WHEN_SET),
                    tuple((n, s is _ERROR) for n, r, s in mine if r.counts is _PER_CALL),
                    coverage[-1] if coverage else None,
                    any(r.counts is _WHEN_SET for _, r, _ in mine),
                )
            )
            if coverage:
                self.claims[category] = tuple(
                    n for n, r, _ in mine if r.counts is _RATIO and r.since == "1.3"
                )

    def scores(self, results: Sequence[RuleResult]) -> dict[Category, float]:
        """Scores of the categories that apply to this trace, in contract order, from the
        results of the rules the plan was made for (in the same order)."""
        return combined_scores([self.tallies(results)])

    def tallies(self, results: Sequence[RuleResult]) -> dict[Category, Tally]:
        """Per category that applies, in contract order: the coverage score, or the
        checks and failed checks of its rules (a call failed once, whichever per-call
        rules hit it) and whether it applies with no check."""
        out: dict[Category, Tally] = {}
        for category, ratio, per_call, coverage, when_set in self.plan:
            if coverage is not None:  # a coverage rule alone scores its category
                score = _coverage(results[coverage])
                if self.claims[category]:
                    score = _with_claims(score, [results[n] for n in self.claims[category]])
                if score is not None:
                    out[category] = score
                continue
            checks = failed = calls = 0
            for index in ratio:
                result = results[index]
                checks += result.checks
                failed += result.failed
            failing: set[int | None] | None = None
            for index, error in per_call:  # a call fails once, whichever rules hit it
                result = results[index]
                calls = max(calls, result.checks)
                if error and result.hits:
                    if failing is None:
                        failing = set()
                    failing.update(hit.step_index for hit in result.hits)
            total = checks + calls
            if total or when_set:
                out[category] = (total, failed + (len(failing) if failing else 0))
        return out


# A category's coverage score, or its (checks, failed checks).
Tally = float | tuple[int, int]


def combined_scores(parts: Sequence[Mapping[Category, Tally]]) -> dict[Category, float]:
    """Category scores, in contract order, of several runs of rules over one trace (the
    policy's and, policy v1.2, each agent entry's): checks and failed checks add up; a
    coverage score is the first run's."""
    if len(parts) == 1:
        only = parts[0]
        return {c: t if isinstance(t, float) else _ratio(*t) for c, t in only.items()}
    sums: dict[Category, Tally] = {}
    for part in parts:
        for category, tally in part.items():
            before = sums.get(category)
            if before is None:
                sums[category] = tally
            elif isinstance(before, tuple) and isinstance(tally, tuple):
                sums[category] = (before[0] + tally[0], before[1] + tally[1])
    return {
        c: t if isinstance(t, float) else _ratio(*t)
        for c in Category
        if (t := sums.get(c)) is not None
    }


def _with_claims(coverage: float | None, results: Sequence[RuleResult]) -> float | None:
    """A coverage score with the policy v1.3 claims checks of its category: the lower of
    the coverage and the claims' ratio (either alone when the other does not apply)."""
    checks = sum(result.checks for result in results)
    if not checks:
        return coverage
    ratio = _ratio(checks, sum(result.failed for result in results))
    return ratio if coverage is None else min(coverage, ratio)


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
