"""The plugin's own tests: run them with pytest once the plugin is installed
(`pip install -e .`), so that ARH finds its entry point as a policy run would."""

from __future__ import annotations

from typing import Any

from agent_reliability_harness.testing import check_trace

POLICY = {
    "schema_version": "1.2",
    "policy_id": "refunds",
    "allow_unlisted_tools": True,
    "plugins": ["refund-limits"],
}


def _trace(refund: Any, total: Any = 40, lookup_status: str = "ok") -> dict[str, Any]:
    return {
        "schema_version": "1",
        "trace_id": "t-1",
        "agent_name": "support",
        "workflow": "refund",
        "steps": [
            {
                "step_id": "s1",
                "type": "tool_call",
                "tool_name": "lookup_order",
                "arguments": {"order_id": "A-1"},
                "output": {"order_id": "A-1", "total": total},
                "status": lookup_status,
            },
            {
                "step_id": "s2",
                "type": "tool_call",
                "tool_name": "issue_refund",
                "arguments": {"order_id": "A-1", "amount": refund},
            },
            {"step_id": "s3", "type": "model_response", "text": "Refunded."},
        ],
    }


def _hits(trace: dict[str, Any]) -> list[Any]:
    report = check_trace(trace, POLICY)
    return [f for f in report.findings if f.rule_id == "SHOP-SAF-001"]


def test_a_refund_above_the_total_is_a_finding() -> None:
    [finding] = _hits(_trace(55))
    assert finding.step_id == "s2"
    assert finding.category == "safety"
    assert finding.severity.value == "error"
    assert finding.expected == {"max": 40.0}
    assert finding.observed == 55.0


def test_the_finding_is_scored_in_its_category() -> None:
    report = check_trace(_trace(55), POLICY)
    assert report.category_scores["safety"] == 0.0
    assert not report.passed


def test_a_refund_within_the_total_is_not() -> None:
    assert _hits(_trace(40)) == []
    assert check_trace(_trace(12.5), POLICY).category_scores["safety"] == 100.0


def test_a_total_in_a_json_text_output_counts() -> None:
    trace = _trace(55)
    trace["steps"][0]["output"] = '{"total": 40}'
    assert len(_hits(trace)) == 1


def test_a_failed_lookup_or_unknown_total_is_not_checked() -> None:
    assert _hits(_trace(55, lookup_status="error")) == []
    assert _hits(_trace(55, total="forty")) == []
