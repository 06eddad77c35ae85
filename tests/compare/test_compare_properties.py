"""Property tests: self-compare is empty and passes; swapping the reports mirrors the result."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness.compare import GateMode, GateOptions, TraceStatus, compare
from agent_reliability_harness.compare.model import Comparison
from agent_reliability_harness.models.baseline import parse_report
from agent_reliability_harness.render.base import RenderOptions
from agent_reliability_harness.render.compare_json import render_compare

_findings = st.fixed_dictionaries(
    {
        "rule_id": st.sampled_from([None, "ARH-SCH-003", "ARH-SCH-005", "ARH-BUD-001"]),
        "severity": st.sampled_from(["error", "warning", "info"]),
        "category": st.sampled_from(["schema", "budget"]),
        "step_id": st.sampled_from([None, "s1", "s2"]),
        "message": st.sampled_from(["m1", "m2", "m3"]),
    }
)
_trace = st.fixed_dictionaries(
    {
        "passed": st.booleans(),
        "score": st.decimals(min_value=0, max_value=100, places=2).map(float),
        "total_latency_ms": st.one_of(st.none(), st.integers(0, 10_000)),
        "total_cost_usd": st.one_of(st.none(), st.decimals(0, 1, places=4).map(float)),
        "findings": st.lists(_findings, max_size=5),
    }
)
_reports = st.dictionaries(st.sampled_from(["a", "b", "c", "d", "e"]), _trace, max_size=5).map(
    lambda by_id: {"reports": [{"trace_id": k, **v} for k, v in by_id.items()]}
)


def _bag(result: Comparison, resolved: bool) -> Counter[tuple[Any, ...]]:
    items = result.resolved_findings() if resolved else result.new_findings()
    return Counter(
        (tid, f.rule_id, f.severity, f.category, f.step_id, f.message) for tid, f in items
    )


@settings(max_examples=200, deadline=None)
@given(_reports)
def test_self_compare_is_empty_and_passes(data: dict[str, Any]) -> None:
    run = parse_report(data)
    result = compare(run, run)
    assert result.gate.passed
    assert not result.new_findings() and not result.resolved_findings()
    assert all(t.status is TraceStatus.COMMON and t.transition is None for t in result.traces)
    assert all(t.score_delta == 0 for t in result.traces)
    assert compare(run, run, GateOptions(GateMode.REGRESSIONS, 0)).gate.passed


@settings(max_examples=150, deadline=None)
@given(_reports, _reports)
def test_swapping_swaps_new_resolved_and_transitions(a: dict[str, Any], b: dict[str, Any]) -> None:
    run_a, run_b = parse_report(a), parse_report(b)
    forward, backward = compare(run_a, run_b), compare(run_b, run_a)
    assert _bag(forward, resolved=False) == _bag(backward, resolved=True)
    assert _bag(forward, resolved=True) == _bag(backward, resolved=False)
    mirror = {"pass_to_fail": "fail_to_pass", "fail_to_pass": "pass_to_fail", None: None}
    status = {"common": "common", "added": "removed", "removed": "added"}
    for f, r in zip(forward.traces, backward.traces, strict=True):
        assert f.trace_id == r.trace_id
        assert status[f.status.value] == r.status.value
        assert mirror[f.transition and f.transition.value] == (r.transition and r.transition.value)
        assert f.unchanged_findings == r.unchanged_findings
        if f.score_delta is not None:
            assert f.score_delta == -(r.score_delta or 0.0)


@settings(max_examples=100, deadline=None)
@given(_reports, _reports)
def test_counts_add_up_and_output_is_deterministic(a: dict[str, Any], b: dict[str, Any]) -> None:
    run_a, run_b = parse_report(a), parse_report(b)
    result = compare(run_a, run_b)
    total_a = sum(len(r.findings) for r in run_a.reports)
    total_b = sum(len(r.findings) for r in run_b.reports)
    unchanged = sum(t.unchanged_findings for t in result.traces)
    assert total_a == unchanged + len(result.resolved_findings())
    assert total_b == unchanged + len(result.new_findings())
    text = render_compare(result, RenderOptions())
    assert text == render_compare(compare(parse_report(a), parse_report(b)), RenderOptions())
    # Gate decision: regressions never fail without a new error, a pass->fail or an added failure.
    if result.gate.reasons:
        assert any(
            t.transition is not None or t.new_findings or t.status is TraceStatus.ADDED
            for t in result.traces
        )


@settings(max_examples=100, deadline=None)
@given(_reports)
def test_report_order_does_not_matter(data: dict[str, Any]) -> None:
    reversed_data = {"reports": list(reversed(data["reports"]))}
    one = compare(parse_report(data), parse_report(data))
    two = compare(parse_report(reversed_data), parse_report(data))
    assert render_compare(one, RenderOptions()) == render_compare(two, RenderOptions())


_soft = st.lists(
    st.fixed_dictionaries(
        {
            "rule_id": st.sampled_from([None, "ARH-SCH-005", "ARH-BUD-005"]),
            "severity": st.sampled_from(["warning", "info"]),
            "category": st.sampled_from(["schema", "budget"]),
            "step_id": st.sampled_from([None, "s1", "s9"]),
            "message": st.just("new note"),
        }
    ),
    max_size=4,
)


@settings(max_examples=150, deadline=None)
@given(_reports, st.data())
def test_new_warnings_removed_traces_and_fixes_never_fail_regressions(
    data: dict[str, Any], draw: st.DataObject
) -> None:
    candidate: list[dict[str, Any]] = []
    for entry in data["reports"]:
        if draw.draw(st.booleans(), label="drop trace"):
            continue  # a removed trace
        changed = dict(entry)
        if draw.draw(st.booleans(), label="fix errors"):
            changed["findings"] = [f for f in entry["findings"] if f["severity"] != "error"]
            changed["passed"] = True
        else:
            changed["findings"] = entry["findings"] + draw.draw(_soft, label="new notes")
        candidate.append(changed)
    result = compare(parse_report(data), parse_report({"reports": candidate}))
    assert result.gate.passed, [r.message for r in result.gate.reasons]


@settings(max_examples=200, deadline=None)
@given(_reports, _reports, st.one_of(st.none(), st.integers(0, 100)))
def test_gate_reasons_are_exactly_the_regressions(
    a: dict[str, Any], b: dict[str, Any], max_drop: int | None
) -> None:
    result = compare(parse_report(a), parse_report(b), GateOptions(max_score_drop=max_drop))
    expected = 0
    for t in result.traces:
        expected += t.transition is not None and t.transition.value == "pass_to_fail"
        expected += sum(1 for f in t.new_findings if f.severity.value == "error")
        expected += t.status is TraceStatus.ADDED and not (t.candidate and t.candidate.passed)
        drop = -(t.score_delta or 0.0)
        expected += max_drop is not None and t.score_delta is not None and drop > max_drop
    assert len(result.gate.reasons) == expected
    failures = compare(parse_report(a), parse_report(b), GateOptions(GateMode.FAILURES))
    assert len(failures.gate.reasons) == sum(1 for r in parse_report(b).reports if not r.passed)
    assert compare(parse_report(a), parse_report(b), GateOptions(GateMode.NEVER)).gate.passed
