"""Scoring: weights, renormalisation, applicability and the verdict."""

from __future__ import annotations

import pytest

from agent_reliability_harness import validate_trace
from agent_reliability_harness.models.common import Category, Severity
from agent_reliability_harness.rules.base import Counts, Hit, Rule, RuleResult
from agent_reliability_harness.scoring import WEIGHTS, category_scores, trace_score
from helpers import make_trace, response, tool_call


def test_weights_are_the_contracts() -> None:
    assert {c.value: w for c, w in WEIGHTS.items()} == {
        "schema": 0.3,
        "budget": 0.3,
        "safety": 0.25,
        "grounding": 0.15,
        "sequence": 0.25,
        "flow": 0.2,
        "completion": 0.1,
    }


def test_no_applicable_category_scores_100() -> None:
    assert trace_score({}) == 100.0
    report = validate_trace(make_trace(response("s1")), {"policy_id": "p"})
    assert report.score == 100.0 and report.category_scores == {} and report.passed


def test_renormalised_weighted_mean() -> None:
    # schema: 1 of 2 calls fails -> 50; safety: 1 of 4 blobs matches -> 75;
    # completion: last step is a call -> 0. (0.3*50 + 0.25*75 + 0.1*0) / 0.65 = 51.92
    policy = {
        "policy_id": "p",
        "allowed_tools": {"ok": {}},
        "unsafe_patterns": ["bad"],
        "completion": {"require_final_response": True},
    }
    trace = make_trace(
        response("s1", "fine"),
        tool_call("s2", "ok", {"a": "bad", "b": "x"}),
        tool_call("s3", "nope", {"c": "y"}),
    )
    report = validate_trace(trace, policy)
    assert report.category_scores == {"schema": 50.0, "safety": 75.0, "completion": 0.0}
    assert report.score == pytest.approx(51.92, abs=0.01)


def test_fail_under_uses_the_reported_score() -> None:
    policy = {"policy_id": "p"}
    trace = make_trace(
        response("s1", requires_grounding=True, citations=[{"source": "a"}]),
        response("s2", requires_grounding=True),
        response("s3", requires_grounding=True),
    )
    report = validate_trace(trace, policy, fail_under=33.33)
    assert report.score == 33.33 and report.passed
    assert not validate_trace(trace, policy, fail_under=33.34).passed


def test_warnings_never_fail_alone() -> None:
    policy = {"policy_id": "p", "budgets": {"max_total_tokens": 10}, "allow_unlisted_tools": True}
    report = validate_trace(make_trace(tool_call("s1", "x"), tool_call("s1", "y")), policy)
    assert {f.severity.value for f in report.findings} == {"warning"} and report.passed


def test_fail_under_range_is_checked() -> None:
    with pytest.raises(ValueError):
        validate_trace(make_trace(), {"policy_id": "p"}, fail_under=101)


def _declared(rule_id: str, counts: Counts) -> Rule:
    category = {"SAF": Category.SAFETY, "SCH": Category.SCHEMA, "BUD": Category.BUDGET}
    return Rule(rule_id, category[rule_id[4:7]], Severity.ERROR, "t", "r", lambda _: True, counts)


def test_scores_follow_only_results_and_declared_counts() -> None:
    """A second safety rule adds its own checks: the category's ratio covers both."""
    results = [
        (_declared("ARH-SAF-001", Counts.RATIO), Severity.ERROR, RuleResult(checks=8, failed=2)),
        (_declared("ARH-SAF-002", Counts.RATIO), Severity.ERROR, RuleResult(checks=2, failed=0)),
        (_declared("ARH-SCH-013", Counts.NONE), Severity.WARNING, RuleResult(checks=9, failed=9)),
        (_declared("ARH-BUD-001", Counts.RATIO_WHEN_SET), Severity.ERROR, RuleResult()),
    ]
    assert category_scores(results) == {Category.BUDGET: 100.0, Category.SAFETY: 80.0}


def test_per_call_rules_share_one_check_per_call() -> None:
    hit = Hit(3, "m")
    results = [
        (_declared("ARH-SCH-001", Counts.PER_CALL), Severity.ERROR, RuleResult(4, hits=[hit])),
        (_declared("ARH-SCH-002", Counts.PER_CALL), Severity.ERROR, RuleResult(5, hits=[hit])),
        (
            _declared("ARH-SCH-005", Counts.PER_CALL),
            Severity.WARNING,
            RuleResult(4, hits=[Hit(1, "w")]),
        ),
    ]
    assert category_scores(results) == {Category.SCHEMA: 80.0}  # 5 calls, one failing
