"""The compare engine and gate: one scenario per rule of the contract's `arh compare` section."""

from __future__ import annotations

import pytest
from cmp_helpers import finding, report, run_of, trace

from agent_reliability_harness import ReportError
from agent_reliability_harness.compare import (
    GateMode,
    GateOptions,
    ReasonKind,
    TraceStatus,
    Transition,
    compare,
    match_findings,
)
from agent_reliability_harness.models.baseline import parse_finding
from agent_reliability_harness.models.report import RunReport

BASE = report(
    trace("ok-1"),
    trace("ok-2", [finding("ARH-SCH-005", "warning", step_id="s2")]),
    trace("bad-1", [finding("ARH-BUD-001", category="budget", step_id="s1")]),
)


def gate(
    baseline: dict[str, object],
    candidate: dict[str, object],
    mode: GateMode = GateMode.REGRESSIONS,
    max_drop: float | None = None,
) -> list[ReasonKind]:
    result = compare(run_of(baseline), run_of(candidate), GateOptions(mode, max_drop))
    assert result.gate.passed == (not result.gate.reasons)
    return [r.kind for r in result.gate.reasons]


def test_identical_run_passes_and_is_empty() -> None:
    result = compare(run_of(BASE), run_of(BASE))
    assert result.gate.passed
    assert not result.new_findings() and not result.resolved_findings()
    assert all(t.status is TraceStatus.COMMON and t.transition is None for t in result.traces)
    assert all(t.score_delta == 0 for t in result.traces)


def test_new_error_finding_fails() -> None:
    candidate = report(
        trace("ok-1"),
        trace("ok-2", [finding("ARH-SCH-005", "warning", step_id="s2")]),
        trace(
            "bad-1",
            [
                finding("ARH-BUD-001", category="budget", step_id="s1"),
                finding("ARH-BUD-002", category="budget", step_id=None),
            ],
        ),
    )
    assert gate(BASE, candidate) == [ReasonKind.NEW_ERROR_FINDING]


def test_pass_to_fail_fails_even_without_a_new_error() -> None:
    # Score fell below fail_under: no error finding, but the verdict flipped.
    candidate = report(
        trace("ok-1", passed=False, score=60.0),
        trace("ok-2", [finding("ARH-SCH-005", "warning", step_id="s2")]),
        trace("bad-1", [finding("ARH-BUD-001", category="budget", step_id="s1")]),
    )
    assert gate(BASE, candidate) == [ReasonKind.PASS_TO_FAIL]


def test_added_failing_trace_fails_and_added_passing_trace_does_not() -> None:
    base = report(trace("a"))
    failing = report(trace("a"), trace("new", passed=False, score=50.0))
    assert gate(base, failing) == [ReasonKind.ADDED_FAILING_TRACE]
    passing = report(trace("a"), trace("new", [finding("X", "warning")]))
    assert gate(base, passing) == []


def test_added_trace_with_errors_reports_every_reason() -> None:
    base = report(trace("a"))
    candidate = report(trace("a"), trace("new", [finding()]))
    assert gate(base, candidate) == [ReasonKind.NEW_ERROR_FINDING, ReasonKind.ADDED_FAILING_TRACE]


def test_score_drop_beyond_threshold_fails_only_when_asked() -> None:
    base = report(trace("a", score=95.0))
    candidate = report(trace("a", score=84.99))
    assert gate(base, candidate) == []
    assert gate(base, candidate, max_drop=10) == [ReasonKind.SCORE_DROP]
    assert gate(base, report(trace("a", score=85.0)), max_drop=10) == []  # exactly N is allowed
    assert gate(base, candidate, max_drop=0) == [ReasonKind.SCORE_DROP]
    assert gate(base, report(trace("a", score=96.0)), max_drop=0) == []


def test_score_drop_is_exact_in_decimal() -> None:
    # 100 - 95.16 is 4.840000000000003 in binary floating point.
    result = compare(
        run_of(report(trace("a", score=100.0))), run_of(report(trace("a", score=95.16)))
    )
    assert result.traces[0].score_delta == -4.84
    assert (
        gate(report(trace("a", score=100.0)), report(trace("a", score=95.16)), max_drop=4.84) == []
    )


def test_a_fix_passes() -> None:
    candidate = report(
        trace("ok-1"),
        trace("ok-2", [finding("ARH-SCH-005", "warning", step_id="s2")]),
        trace("bad-1"),
    )
    result = compare(run_of(BASE), run_of(candidate))
    assert result.gate.passed
    bad = next(t for t in result.traces if t.trace_id == "bad-1")
    assert bad.transition is Transition.FAIL_TO_PASS
    assert [f.rule_id for f in bad.resolved_findings] == ["ARH-BUD-001"]


def test_failures_already_in_the_baseline_do_not_re_alarm() -> None:
    # Same fingerprint, a different measured value in the message.
    base = report(
        trace("b", [finding("ARH-BUD-001", message="latency 7200 ms", category="budget")])
    )
    cand = report(
        trace("b", [finding("ARH-BUD-001", message="latency 7350 ms", category="budget")])
    )
    result = compare(run_of(base), run_of(cand))
    assert result.gate.passed
    assert result.traces[0].unchanged_findings == 1
    assert gate(base, cand, GateMode.FAILURES) == [ReasonKind.FAILING_TRACE]


def test_removed_traces_are_reported_but_pass() -> None:
    candidate = report(
        trace("ok-1"), trace("ok-2", [finding("ARH-SCH-005", "warning", step_id="s2")])
    )
    result = compare(run_of(BASE), run_of(candidate))
    assert result.gate.passed
    removed = [t.trace_id for t in result.traces if t.status is TraceStatus.REMOVED]
    assert removed == ["bad-1"]


def test_new_warnings_and_infos_pass() -> None:
    candidate = report(
        trace("ok-1", [finding("ARH-SCH-006", "info")]),
        trace(
            "ok-2",
            [
                finding("ARH-SCH-005", "warning", step_id="s2"),
                finding("ARH-SCH-005", "warning", step_id="s3"),
            ],
        ),
        trace("bad-1", [finding("ARH-BUD-001", category="budget", step_id="s1")]),
    )
    result = compare(run_of(BASE), run_of(candidate))
    assert result.gate.passed
    assert len(result.new_findings()) == 2


def test_multiset_two_identical_findings_against_one_is_one_new() -> None:
    base = report(trace("t", [finding()]))
    cand = report(trace("t", [finding(), finding()]))
    result = compare(run_of(base), run_of(cand))
    assert len(result.new_findings()) == 1
    assert result.traces[0].unchanged_findings == 1
    assert gate(base, cand) == [ReasonKind.NEW_ERROR_FINDING]


def test_fingerprint_includes_step_and_category() -> None:
    base = report(trace("t", [finding(step_id="s1")]))
    assert gate(base, report(trace("t", [finding(step_id="s2")]))) == [ReasonKind.NEW_ERROR_FINDING]
    moved = report(trace("t", [finding(category="flow")]))
    assert gate(base, moved) == [ReasonKind.NEW_ERROR_FINDING]


def test_severity_change_alone_is_not_a_new_finding() -> None:
    base = report(trace("t", [finding("ARH-GRD-001", "warning", "grounding")]))
    cand = report(trace("t", [finding("ARH-GRD-001", "error", "grounding")], passed=True))
    assert compare(run_of(base), run_of(cand)).new_findings() == []


def test_v01_baseline_matches_on_category_and_step() -> None:
    base = report(trace("t", [finding(None, category="schema", step_id="s2")], passed=False))
    cand = report(trace("t", [finding("ARH-SCH-007", category="schema", step_id="s2")]))
    result = compare(run_of(base), run_of(cand))
    assert result.gate.passed
    assert result.traces[0].unchanged_findings == 1
    # Only one v0.1 finding: the second candidate finding at the same place is new.
    two = report(
        trace("t", [finding("ARH-SCH-007", step_id="s2"), finding("ARH-SCH-009", step_id="s2")])
    )
    assert gate(base, two) == [ReasonKind.NEW_ERROR_FINDING]


def test_different_rule_ids_never_match() -> None:
    base = report(trace("t", [finding("ARH-SCH-007", step_id="s2")]))
    cand = report(trace("t", [finding("ARH-SCH-009", step_id="s2")]))
    result = compare(run_of(base), run_of(cand))
    assert [f.rule_id for _, f in result.new_findings()] == ["ARH-SCH-009"]
    assert [f.rule_id for _, f in result.resolved_findings()] == ["ARH-SCH-007"]


def test_exact_fingerprints_are_matched_before_loose_ones() -> None:
    # A v0.1 finding must not take the candidate finding that has an exact match.
    baseline = [
        parse_finding(finding(None, step_id="s1", message="old wording"), "b0"),
        parse_finding(finding("ARH-SCH-003", step_id="s1"), "b1"),
    ]
    candidate = [parse_finding(finding("ARH-SCH-003", step_id="s1"), "c0")]
    result = match_findings(baseline, candidate)
    assert result.unchanged == 1
    assert [f.rule_id for f in result.resolved] == [None]


def test_equal_messages_are_preferred_within_a_fingerprint() -> None:
    base = [parse_finding(finding("ARH-SAF-001", message="pattern A"), "b")]
    cand = [
        parse_finding(finding("ARH-SAF-001", message="pattern B"), "c0"),
        parse_finding(finding("ARH-SAF-001", message="pattern A"), "c1"),
    ]
    assert [f.message for f in match_findings(base, cand).new] == ["pattern B"]


def test_v01_candidate_is_symmetric() -> None:
    base = report(trace("t", [finding("ARH-SCH-007", step_id="s2")]))
    cand = report(trace("t", [finding(None, step_id="s2")]))
    assert compare(run_of(base), run_of(cand)).traces[0].unchanged_findings == 1


def test_fail_on_failures_and_never() -> None:
    assert gate(BASE, BASE, GateMode.FAILURES) == [ReasonKind.FAILING_TRACE]
    worse = report(trace("ok-1", [finding()]))
    assert gate(BASE, worse, GateMode.NEVER) == []
    assert gate(report(trace("a")), report(trace("a")), GateMode.FAILURES) == []


def test_every_reason_is_listed_in_kind_order() -> None:
    base = report(trace("a"), trace("b", score=99.0))
    cand = report(
        trace("a", [finding(), finding("ARH-SCH-004")]),
        trace("b", score=70.0),
        trace("c", [finding()]),
    )
    assert gate(base, cand, max_drop=5) == [
        ReasonKind.PASS_TO_FAIL,
        ReasonKind.NEW_ERROR_FINDING,
        ReasonKind.NEW_ERROR_FINDING,
        ReasonKind.NEW_ERROR_FINDING,
        ReasonKind.ADDED_FAILING_TRACE,
        ReasonKind.SCORE_DROP,
        ReasonKind.SCORE_DROP,
    ]


def test_deltas_are_exact_and_none_when_unknown() -> None:
    base = report(trace("a", total_cost_usd=0.1, total_latency_ms=1000), trace("b"))
    cand = report(
        trace("a", total_cost_usd=0.3, total_latency_ms=1250.5), trace("b", total_latency_ms=None)
    )
    a, b = compare(run_of(base), run_of(cand)).traces
    assert a.cost_delta_usd == 0.2
    assert a.latency_delta_ms == 250.5
    assert isinstance(b.latency_delta_ms, type(None))
    assert b.cost_delta_usd == 0


def test_traces_are_sorted_by_trace_id() -> None:
    base = report(trace("b"), trace("a"))
    cand = report(trace("c"), trace("a"))
    assert [t.trace_id for t in compare(run_of(base), run_of(cand)).traces] == ["a", "b", "c"]


def test_engine_refuses_duplicate_ids_given_directly() -> None:
    one = run_of(report(trace("a")))
    doubled = RunReport.build("p", (one.reports[0], one.reports[0]))
    with pytest.raises(ReportError, match="candidate report lists trace_id 'a' more than once"):
        compare(one, doubled)
    with pytest.raises(ReportError, match="baseline report lists trace_id 'a'"):
        compare(doubled, one)
