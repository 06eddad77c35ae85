"""Properties of the statistical compare: one run per task is the v1 compare byte for
byte; the verdicts follow the exact test; the gate fails exactly on `regressed`; the
task tallies do not depend on the order of the runs."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness.compare import GateOptions, compare
from agent_reliability_harness.compare.model import ReasonKind
from agent_reliability_harness.compare.repeated import task_stats_of
from agent_reliability_harness.models.baseline import parse_report
from agent_reliability_harness.render import RenderOptions, get_renderer
from agent_reliability_harness.stats import Verdict, fisher_drop

_finding = st.fixed_dictionaries(
    {
        "rule_id": st.sampled_from(["ARH-SCH-003", "ARH-SCH-005", "ARH-SEQ-001"]),
        "severity": st.sampled_from(["error", "warning"]),
        "category": st.just("schema"),
        "step_id": st.sampled_from([None, "s1"]),
        "message": st.just("m"),
    }
)
_run = st.fixed_dictionaries(
    {
        "task": st.sampled_from(["t1", "t2", "t3", None]),
        "passed": st.booleans(),
        "findings": st.lists(_finding, max_size=3),
    }
)


def _report(runs: list[dict[str, Any]], labelled: bool = True, prefix: str = "r") -> Any:
    reports = []
    for index, run in enumerate(runs):
        report = {
            "trace_id": f"{prefix}{index}",
            "passed": run["passed"],
            "score": 100.0 if run["passed"] else 50.0,
            "findings": run["findings"],
        }
        if labelled and run["task"] is not None:
            report["task_id"] = run["task"]
        reports.append(report)
    return parse_report({"reports": reports})


def _texts(comparison: Any) -> tuple[str, ...]:
    options = RenderOptions()
    return tuple(
        get_renderer("compare", f).render(comparison, options) for f in ("json", "console", "md")
    )


@settings(max_examples=150, deadline=None)
@given(st.lists(_run, max_size=6), st.lists(_run, max_size=6))
def test_one_run_per_task_is_the_v1_compare(
    before: list[dict[str, Any]], after: list[dict[str, Any]]
) -> None:
    def once(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        # Each run gets a task of its own: no task has two runs.
        return [{**run, "task": f"own-{i}"} for i, run in enumerate(runs)]

    labelled = compare(_report(once(before)), _report(once(after)))
    plain = compare(_report(before, labelled=False), _report(after, labelled=False))
    assert labelled.repeated is None
    assert _texts(labelled) == _texts(plain)


@settings(max_examples=100, deadline=None)
@given(st.lists(_run, min_size=2, max_size=14), st.lists(_run, min_size=2, max_size=14))
def test_verdicts_follow_the_exact_test_and_only_regressions_fail(
    before: list[dict[str, Any]], after: list[dict[str, Any]]
) -> None:
    base, cand = _report(before), _report(after, prefix="c")
    result = compare(base, cand, GateOptions(repeated=True))
    assert result.repeated is not None
    b_tasks = {t.task_id: t for t in task_stats_of(base)}
    c_tasks = {t.task_id: t for t in task_stats_of(cand)}
    assert [c.task_id for c in result.repeated.task_changes] == sorted(
        b_tasks.keys() & c_tasks.keys()
    )
    for change in result.repeated.task_changes:
        b, c = b_tasks[change.task_id], c_tasks[change.task_id]
        assert change.p_value == fisher_drop(b.passed, b.runs, c.passed, c.runs)
        drop = Fraction(c.passed, c.runs) < Fraction(b.passed, b.runs)
        if drop:
            expected = (
                Verdict.REGRESSED if change.p_value < Fraction(1, 20) else Verdict.INCONCLUSIVE
            )
        else:
            rise = Fraction(c.passed, c.runs) > Fraction(b.passed, b.runs)
            expected = Verdict.IMPROVED if rise else Verdict.UNCHANGED
        assert change.verdict is expected
    statistical = {ReasonKind.TASK_REGRESSED, ReasonKind.RULE_REGRESSED}
    regressed = [
        c
        for c in (*result.repeated.task_changes, *result.repeated.rule_changes)
        if c.verdict is Verdict.REGRESSED
    ]
    assert len([r for r in result.gate.reasons if r.kind in statistical]) == len(regressed)
    # No run of a compared task gives a trace-level reason.
    judged = result.repeated.tasks
    for reason in result.gate.reasons:
        if reason.kind not in statistical:
            owner = next(r for r in (*base.reports, *cand.reports) if r.trace_id == reason.trace_id)
            assert owner.task_id not in judged


@settings(max_examples=100, deadline=None)
@given(st.lists(_run, max_size=12), st.randoms(use_true_random=False))
def test_task_tallies_do_not_depend_on_run_order(runs: list[dict[str, Any]], rng: Any) -> None:
    shuffled = list(runs)
    rng.shuffle(shuffled)
    assert task_stats_of(_report(runs)) == task_stats_of(_report(shuffled))
