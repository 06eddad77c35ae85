"""The guard's Python API: decisions, outcomes, parallel calls, per-agent entries, the
recorded session and its report."""

from __future__ import annotations

from typing import Any

import pytest

from agent_reliability_harness import Guard
from agent_reliability_harness.engine import Evaluator
from agent_reliability_harness.models.policy import parse_policy

POLICY: dict[str, Any] = {
    "schema_version": "1.2",
    "policy_id": "shop",
    "allow_unlisted_tools": False,
    "allowed_tools": {
        "lookup_order": {"required_arguments": {"order_id": "string"}},
        "refund": {
            "required_arguments": {"order_id": "string", "amount": {"type": "number", "max": 100}},
            "side_effect": True,
            "max_calls": 2,
        },
        "note": {"optional_arguments": {"text": "string"}},
    },
    "preconditions": [
        {"call": "refund", "requires": "lookup_order", "same": {"order_id": "order_id"}}
    ],
    "agents": {"helper-*": {"allowed_tools": {"note": {}}}, "agent": {}},
    "allow_unlisted_agents": False,
}


def test_a_precondition_denies_until_it_is_met() -> None:
    guard = Guard(POLICY)
    first = guard.before("refund", {"order_id": "A1", "amount": 5}, step_id="r1")
    assert not first.allowed
    assert first.denied_rules == ("ARH-SEQ-008",)
    assert "ARH-SEQ-008" in first.reason
    assert guard.before("lookup_order", {"order_id": "A1"}, step_id="l1").allowed
    guard.after("l1", output={"order_id": "A1", "total": 10})
    assert guard.before("refund", {"order_id": "A1", "amount": 5}, step_id="r2").allowed


def test_a_failed_lookup_does_not_meet_it() -> None:
    guard = Guard(POLICY)
    guard.before("lookup_order", {"order_id": "A1"}, step_id="l1")
    guard.after("l1", error="not found")
    assert not guard.before("refund", {"order_id": "A1", "amount": 5}).allowed


def test_parallel_calls_are_decided_cumulatively() -> None:
    guard = Guard(POLICY)
    guard.before("lookup_order", {"order_id": "A1"}, step_id="l1")
    guard.after("l1", output="A1 ok")
    # Three refunds in one model response, none finished yet: the third is the third call.
    first = guard.before("refund", {"order_id": "A1", "amount": 5}, step_id="r1")
    second = guard.before("refund", {"order_id": "A1", "amount": 6}, step_id="r2")
    third = guard.before("refund", {"order_id": "A1", "amount": 7}, step_id="r3")
    assert first.allowed and second.allowed
    assert third.denied_rules == ("ARH-SEQ-004",)
    guard.after("r2", output="refunded")
    guard.after("r1", output="refunded")
    trace = guard.trace()
    assert [s.step_id for s in trace.steps] == ["l1", "r1", "r2", "r3"]
    assert trace.steps[1].output == "refunded"
    assert trace.steps[3].status.value == "error"
    assert trace.steps[3].metadata["arh_guard"]["denied"] == ["ARH-SEQ-004"]
    assert guard.close() == Evaluator(parse_policy(POLICY)).evaluate(trace)


def test_warnings_never_deny() -> None:
    guard = Guard(POLICY)
    decision = guard.before("lookup_order", {"order_id": "A1", "extra": 1})
    assert decision.allowed
    assert [f.rule_id for f in decision.findings] == ["ARH-SCH-005"]
    assert "ARH-SCH-005" in decision.context


def test_per_agent_entries_and_unlisted_agents() -> None:
    guard = Guard(POLICY)
    assert guard.before("note", {"text": "hi"}, agent="helper-1").allowed
    denied = guard.before("lookup_order", {"order_id": "A1"}, agent="helper-1")
    assert denied.denied_rules == ("ARH-SCH-001",)
    stranger = guard.before("note", {}, agent="stranger")
    assert stranger.denied_rules == ("ARH-SEQ-009",)


def test_close_is_the_report_of_the_recorded_trace() -> None:
    guard = Guard(POLICY)
    guard.record({"step_id": "u", "type": "model_response", "text": "let me look"})
    guard.before("lookup_order", {"order_id": "A1"}, step_id="l1")
    guard.after("l1", output="ok", latency_ms=12)
    guard.before("refund", {"order_id": "B2", "amount": 500}, step_id="r1")
    report = guard.close()
    assert report == Evaluator(parse_policy(POLICY)).evaluate(guard.trace())
    assert {f.rule_id for f in report.findings} >= {"ARH-SEQ-008", "ARH-SCH-009"}
    with pytest.raises(RuntimeError):
        guard.before("note", {})


def test_a_policy_by_path_and_an_unknown_step_id(tmp_path: Any) -> None:
    path = tmp_path / "p.json"
    path.write_text('{"policy_id": "p", "allow_unlisted_tools": true}', encoding="utf-8")
    guard = Guard(str(path))
    decision = guard.before("anything", None)
    assert decision.allowed and decision.step_id == "call-1"
    with pytest.raises(KeyError):
        guard.after("nope", output=1)
