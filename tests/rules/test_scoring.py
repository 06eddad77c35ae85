"""Scoring: weights, renormalisation, applicability and the verdict."""

from __future__ import annotations

import pytest

from agent_reliability_harness import validate_trace
from agent_reliability_harness.scoring import WEIGHTS, trace_score
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
