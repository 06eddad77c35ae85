"""Budget rules (ARH-BUD-*): exact totals, unrecorded values, the findings cap."""

from __future__ import annotations

from agent_reliability_harness.rules import MAX_FINDINGS
from helpers import findings, report, response


def test_costs_are_summed_exactly() -> None:
    steps = [response("a", cost_usd=0.1), response("b", cost_usd=0.2)]
    got = report(steps, {"budgets": {"max_total_cost_usd": 0.3}})
    assert got.findings == () and got.total_cost_usd == 0.3


def test_a_value_equal_to_its_budget_passes() -> None:
    policy = {"budgets": {"max_step_latency_ms": 100, "max_total_latency_ms": 200}}
    assert findings([response("a", latency_ms=100), response("b", latency_ms=100)], policy) == []
    assert findings([response("a", latency_ms=100.5)], policy) == [("ARH-BUD-001", "error", "a")]


def test_unrecorded_values_warn_and_the_budget_still_scores() -> None:
    policy = {
        "budgets": {"max_total_tokens": 10, "max_total_latency_ms": 5, "max_total_cost_usd": 1}
    }
    got = report([response("a")], policy)
    assert [(f.rule_id, f.severity.value) for f in got.findings] == [
        ("ARH-BUD-005", "warning"),
        ("ARH-BUD-006", "warning"),
        ("ARH-BUD-007", "warning"),
    ]
    assert got.category_scores == {"budget": 100.0}  # applies with no check


def test_tokens_sum_only_the_steps_that_record_them() -> None:
    steps = [response("a", input_tokens=3), response("b"), response("c", output_tokens=4)]
    got = report(steps, {"budgets": {"max_total_tokens": 6}})
    assert got.total_tokens == 7
    assert [(f.rule_id, f.observed) for f in got.findings] == [("ARH-BUD-004", 7)]


def test_findings_are_capped_per_rule_with_a_truthful_remainder() -> None:
    steps = [response(f"s{i}", latency_ms=10 + i) for i in range(MAX_FINDINGS + 250)]
    got = report(steps, {"budgets": {"max_step_latency_ms": 5}})
    kept = [f for f in got.findings if f.step_id is not None]
    assert [f.step_id for f in kept] == [f"s{i}" for i in range(MAX_FINDINGS)]
    last = got.findings[-1]
    assert (last.rule_id, last.severity.value, last.step_id, last.observed) == (
        "ARH-BUD-001",
        "error",
        None,
        250,
    )
    assert last.message == "... and 250 more ARH-BUD-001 findings"
    assert len(got.findings) == MAX_FINDINGS + 1
    assert got.category_scores == {"budget": 0.0}  # every check still counts
