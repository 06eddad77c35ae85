"""`arh compare` over runs judged by several policies: a trace is (trace_id, policy_id) when
either report holds traces of more than one policy; single-policy reports match by
trace_id alone, exactly as in v1 (issue 14)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from cmp_helpers import REPO, cli, finding, report, run_of, trace

from agent_reliability_harness import ReportError
from agent_reliability_harness.compare import TraceStatus, compare
from agent_reliability_harness.compare.engine import per_policy
from agent_reliability_harness.models.baseline import parse_report

ERROR = [finding("ARH-SCH-003")]


def test_single_policy_reports_match_by_trace_id_even_across_a_renamed_policy() -> None:
    baseline = run_of(report(trace("t1", ERROR), trace("t2")))
    renamed = run_of(
        report(trace("t1", ERROR, policy_id="p2"), trace("t2", policy_id="p2"), policy_id="p2")
    )
    assert not per_policy(baseline, renamed)
    comparison = compare(baseline, renamed)
    assert [(t.trace_id, t.policy_id, t.status) for t in comparison.traces] == [
        ("t1", None, TraceStatus.COMMON),
        ("t2", None, TraceStatus.COMMON),
    ]
    assert comparison.gate.passed
    assert "policy_id" not in comparison.to_dict()["traces"][0]


def test_a_trace_judged_by_another_policy_is_a_different_trace() -> None:
    baseline = run_of(report(trace("t1"), trace("t2"), trace("t3", policy_id="p9")))
    candidate = run_of(report(trace("t1"), trace("t2", ERROR, policy_id="p2"), trace("t3")))
    comparison = compare(baseline, candidate)
    assert [(t.trace_id, t.policy_id, t.status.value) for t in comparison.traces] == [
        ("t1", "p1", "common"),
        ("t2", "p1", "removed"),
        ("t2", "p2", "added"),
        ("t3", "p1", "added"),
        ("t3", "p9", "removed"),
    ]
    assert [r.message for r in comparison.gate.reasons] == [
        "new error ARH-SCH-003 in trace 't2' (policy 'p2') at step 's1': something is wrong",
        "added trace 't2' (policy 'p2') fails (score 90.00)",
    ]
    assert comparison.to_dict()["traces"][1]["policy_id"] == "p1"
    assert [t.shown_id for t in comparison.traces][:2] == ["t1 [p1]", "t2 [p1]"]


def test_one_trace_id_under_two_policies_is_two_traces_and_not_a_duplicate() -> None:
    both = report(trace("t1"), trace("t1", ERROR, policy_id="p2"))
    run = run_of(both)
    comparison = compare(run, run)
    assert [(t.policy_id, t.status.value) for t in comparison.traces] == [
        ("p1", "common"),
        ("p2", "common"),
    ]
    assert comparison.gate.passed
    with pytest.raises(ReportError, match=r"duplicate trace_id 't1' \(first at reports\[0\]\)"):
        parse_report(report(trace("t1"), trace("t1")))


def test_candidates_validated_now_are_matched_per_policy(tmp_path: Path) -> None:
    """Two policies route by workflow; the baseline ran everything under one of them."""
    traces = tmp_path / "traces"
    traces.mkdir()
    for trace_id, workflow in (("a", "refund"), ("b", "status")):
        (traces / f"{trace_id}.json").write_text(
            json.dumps(
                {
                    "trace_id": trace_id,
                    "agent_name": "agent",
                    "workflow": workflow,
                    "steps": [{"step_id": "s1", "type": "model_response", "text": "done"}],
                }
            ),
            encoding="utf-8",
        )
    open_policy = {"policy_id": "all", "allow_unlisted_tools": True}
    (tmp_path / "all.json").write_text(json.dumps(open_policy), encoding="utf-8")
    refunds = {**open_policy, "policy_id": "refunds", "applies_to": {"workflow": ["refund"]}}
    (tmp_path / "refunds.json").write_text(json.dumps(refunds), encoding="utf-8")
    baseline = tmp_path / "baseline.json"
    policy_all, policy_refunds = str(tmp_path / "all.json"), str(tmp_path / "refunds.json")
    code, _, _ = cli("validate", "--policy", policy_all, "--json-out", str(baseline), str(traces))
    assert code == 0
    out = tmp_path / "compare.json"
    code, _, err = cli(
        "compare", "--baseline", str(baseline), "--policy", policy_refunds,
        "--policy", policy_all, "--json-out", str(out), "--quiet", str(traces),
    )  # fmt: skip
    assert code == 0, err
    document = json.loads(out.read_text(encoding="utf-8"))
    schema = json.loads((REPO / "schemas" / "compare.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(document)
    traces_out = document["traces"]
    assert [(t["trace_id"], t["policy_id"], t["status"]) for t in traces_out] == [
        ("a", "all", "removed"),
        ("a", "refunds", "added"),
        ("b", "all", "common"),
    ]
