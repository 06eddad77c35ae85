"""Repeated-run statistics: estimators against enumeration, Wilson and Fisher against
hand values and scipy, aggregation, summary and verdicts (section 7, issue 16)."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import fisher_exact

from agent_reliability_harness.stats import (
    Z95,
    TaskTally,
    Verdict,
    any_repeated,
    as_alpha,
    compare_tasks,
    fired_verdict,
    fisher_drop,
    fisher_rise,
    pass_at_k,
    pass_hat_k,
    pass_verdict,
    round_output,
    summarize,
    task_stats,
    wilson_interval,
)

COUNTS = st.integers(1, 9).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n)))


@given(COUNTS)
def test_estimators_equal_enumeration_over_all_k_subsets(counts: tuple[int, int]) -> None:
    n, c = counts
    runs = [True] * c + [False] * (n - c)
    for k in range(1, n + 1):
        subsets = list(combinations(runs, k))
        assert pass_at_k(n, c, k) == Fraction(sum(any(s) for s in subsets), len(subsets))
        assert pass_hat_k(n, c, k) == Fraction(sum(all(s) for s in subsets), len(subsets))


def test_estimators_by_hand() -> None:
    # 3 of 4 runs pass: pass^2 = C(3,2)/C(4,2) = 1/2; pass@2 = 1 - C(1,2)/C(4,2) = 1.
    assert pass_hat_k(4, 3, 2) == Fraction(1, 2)
    assert pass_at_k(4, 3, 2) == 1
    assert pass_hat_k(4, 3, 1) == pass_at_k(4, 3, 1) == Fraction(3, 4)
    assert pass_hat_k(4, 3, 4) == 0 and pass_at_k(4, 0, 4) == 0
    assert pass_hat_k(8, 7, 8) == 0 and pass_hat_k(8, 8, 8) == 1
    # Exact where floats would drift: n = 1000.
    assert pass_hat_k(1000, 999, 500) == Fraction(1, 2)
    for bad in ((0, 0, 1), (4, 5, 1), (4, 2, 0), (4, 2, 5), (4, -1, 1)):
        with pytest.raises(ValueError):
            pass_hat_k(*bad)
        with pytest.raises(ValueError):
            pass_at_k(*bad)


def test_rounding_is_half_even_on_the_exact_value() -> None:
    assert round_output(Fraction(5, 10**7)) == 0.0
    assert round_output(Fraction(15, 10**7)) == 0.000002
    assert round_output(Fraction(25, 10**7)) == 0.000002
    assert round_output(Fraction(1, 3)) == 0.333333
    assert round_output(Fraction(2, 3)) == 0.666667
    assert round_output(1) == 1.0
    assert repr(round_output(Fraction(261, 12870))) == "0.02028"
    assert math.copysign(1, round_output(Fraction(-1, 10**9))) == 1  # never -0.0


def _wilson_float(c: int, n: int) -> tuple[float, float]:
    p = c / n
    denom = 1 + Z95**2 / n
    center = (p + Z95**2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denom
    return center - half, center + half


@given(COUNTS)
def test_wilson_matches_the_textbook_formula(counts: tuple[int, int]) -> None:
    n, c = counts
    low, high = wilson_interval(c, n)
    want_low, want_high = _wilson_float(c, n)
    assert float(low) == pytest.approx(max(0.0, want_low), abs=1e-12)
    assert float(high) == pytest.approx(min(1.0, want_high), abs=1e-12)
    assert 0 <= low <= Fraction(c, n) <= high <= 1


def test_wilson_by_hand() -> None:
    assert [round_output(x) for x in wilson_interval(2, 8)] == [0.071479, 0.590725]
    assert [round_output(x) for x in wilson_interval(0, 8)] == [0.0, 0.324408]
    assert [round_output(x) for x in wilson_interval(8, 8)] == [0.675592, 1.0]
    assert wilson_interval(0, 3)[0] == 0 and wilson_interval(3, 3)[1] == 1


@pytest.mark.parametrize(
    ("base", "cand", "p4"),
    [((7, 8), (2, 8), 0.0203), ((5, 8), (4, 8), 0.5), ((4, 8), (1, 8), 0.141)],
)
def test_fisher_anchors_of_issue_16(
    base: tuple[int, int], cand: tuple[int, int], p4: float
) -> None:
    p = fisher_drop(base[0], 8, cand[0], 8)
    assert round(float(p), 4 if p4 != 0.141 else 3) == p4


def test_fisher_by_hand() -> None:
    assert fisher_drop(7, 8, 2, 8) == Fraction(261, 12870)
    assert fisher_drop(5, 8, 4, 8) == Fraction(1, 2)
    assert fisher_drop(4, 8, 1, 8) == Fraction(1815, 12870)
    assert fisher_drop(0, 5, 5, 5) == 1
    assert fisher_rise(2, 8, 7, 8) == fisher_drop(7, 8, 2, 8)


SIDES = st.integers(1, 40).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n)))


@settings(max_examples=300)
@given(SIDES, SIDES)
def test_fisher_equals_scipy(base: tuple[int, int], cand: tuple[int, int]) -> None:
    (n1, c1), (n2, c2) = base, cand
    table = [[c1, n1 - c1], [c2, n2 - c2]]
    assert float(fisher_drop(c1, n1, c2, n2)) == pytest.approx(
        fisher_exact(table, alternative="greater").pvalue, rel=1e-9, abs=1e-300
    )
    assert float(fisher_rise(c1, n1, c2, n2)) == pytest.approx(
        fisher_exact(table, alternative="less").pvalue, rel=1e-9, abs=1e-300
    )


@pytest.mark.parametrize(("c1", "c2"), [(950, 900), (500, 520), (1000, 999), (3, 0), (700, 640)])
def test_fisher_exact_at_a_thousand_runs_a_side(c1: int, c2: int) -> None:
    p = fisher_drop(c1, 1000, c2, 1000)
    assert isinstance(p, Fraction) and 0 <= p <= 1
    want = fisher_exact([[c1, 1000 - c1], [c2, 1000 - c2]], alternative="greater").pvalue
    assert float(p) == pytest.approx(want, rel=1e-9, abs=1e-300)


def test_task_stats_and_summary() -> None:
    runs = [
        ("t2", True, ["ARH-SEQ-006"]),
        ("t1", True, []),
        ("t2", False, ["ARH-SEQ-006", "ARH-SEQ-006", "ARH-FLW-004"]),
        ("t1", True, []),
        ("t2", True, ["ARH-SEQ-006"]),
        ("t1", False, ["ARH-CMP-001"]),
    ]
    stats = task_stats(runs)
    assert [t.task_id for t in stats] == ["t1", "t2"]
    assert stats[1].to_json() == {
        "task_id": "t2",
        "runs": 3,
        "passed": 2,
        "pass_at_k": {"1": 0.666667, "2": 1.0, "3": 1.0},
        "pass_hat_k": {"1": 0.666667, "2": 0.333333, "3": 0.0},
        "rules": [
            {
                "rule_id": "ARH-FLW-004",
                "fired_runs": 1,
                "rate": 0.333333,
                "ci95": [0.061492, 0.79234],
                "flaky": True,
            },
            {
                "rule_id": "ARH-SEQ-006",
                "fired_runs": 3,
                "rate": 1.0,
                "ci95": [0.438503, 1.0],
                "flaky": False,
            },
        ],
    }
    assert any_repeated(stats) and not any_repeated(task_stats([("x", True, [])]))
    assert summarize(stats).to_json() == {
        "tasks": 2,
        "k_min": 3,
        "mean_pass_hat_1": 0.666667,
        "mean_pass_hat_k_min": 0.0,
    }
    assert summarize([]).to_json() == {
        "tasks": 0,
        "k_min": None,
        "mean_pass_hat_1": None,
        "mean_pass_hat_k_min": None,
    }


RUNS = st.lists(
    st.tuples(
        st.sampled_from(["t1", "t2", "t3"]),
        st.booleans(),
        st.lists(st.sampled_from(["ARH-SEQ-006", "ARH-FLW-004"]), max_size=2),
    ),
    max_size=12,
)


@given(RUNS, st.integers(0, 12))
def test_tallies_merge_whatever_the_split(
    runs: list[tuple[str, bool, list[str]]], cut: int
) -> None:
    left, right = TaskTally(), TaskTally()
    for n, (task_id, passed, fired) in enumerate(runs):
        (left if n < cut else right).add(task_id, passed, fired)
    left.merge(right)
    assert left.stats() == task_stats(runs)


def test_verdicts() -> None:
    alpha = as_alpha(0.05)
    assert alpha == Fraction(1, 20) and as_alpha("0.01") == Fraction(1, 100)
    assert pass_verdict((8, 7), (8, 2), alpha)[0] is Verdict.REGRESSED
    assert pass_verdict((8, 5), (8, 4), alpha)[0] is Verdict.INCONCLUSIVE
    assert pass_verdict((8, 4), (8, 1), alpha)[0] is Verdict.INCONCLUSIVE
    assert pass_verdict((8, 2), (8, 7), alpha)[0] is Verdict.IMPROVED
    assert pass_verdict((8, 4), (4, 2), alpha)[0] is Verdict.UNCHANGED
    assert fired_verdict((8, 1), (8, 7), alpha)[0] is Verdict.REGRESSED
    assert fired_verdict((8, 7), (8, 1), alpha)[0] is Verdict.IMPROVED
    # p exactly at alpha is not significant.
    assert pass_verdict((8, 7), (8, 2), Fraction(261, 12870))[0] is Verdict.INCONCLUSIVE


def test_compare_tasks() -> None:
    base = task_stats(
        [("a", i < 7, ["R1"] if i == 0 else []) for i in range(8)] + [("only-base", True, [])]
    )
    cand = task_stats([("a", i < 2, ["R1", "R2"] if i < 7 else []) for i in range(8)])
    tasks, rules = compare_tasks(base, cand)
    assert [c.to_json() for c in tasks] == [
        {
            "task_id": "a",
            "baseline": {"runs": 8, "passed": 7},
            "candidate": {"runs": 8, "passed": 2},
            "p_value": 0.02028,
            "verdict": "regressed",
        }
    ]
    assert [(c.rule_id, c.baseline, c.candidate, c.verdict) for c in rules] == [
        ("R1", (8, 1), (8, 7), Verdict.REGRESSED),
        ("R2", (8, 0), (8, 7), Verdict.REGRESSED),
    ]
    assert rules[0].to_json()["baseline"] == {"runs": 8, "fired_runs": 1}
