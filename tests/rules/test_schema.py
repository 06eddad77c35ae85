"""Schema rule edges that need code rather than a data case."""

from __future__ import annotations

from typing import Any

from agent_reliability_harness import validate_trace
from agent_reliability_harness.rules.schema import json_equal, type_matches
from helpers import make_trace, tool_call


def _rules(trace: dict[str, Any], policy: dict[str, Any]) -> list[tuple[str | None, str | None]]:
    return [(f.rule_id, f.step_id) for f in validate_trace(trace, policy).findings]


def test_nan_fails_every_bound() -> None:
    policy = {
        "policy_id": "p",
        "allowed_tools": {
            "t": {"required_arguments": {"x": {"type": "float", "min": 0, "max": 1}}}
        },
    }
    trace = make_trace(tool_call("s1", "t", {"x": float("nan")}))
    assert _rules(trace, policy) == [("ARH-SCH-009", "s1"), ("ARH-SCH-009", "s1")]


def test_type_names() -> None:
    assert type_matches("float", 1) and not type_matches("int", 1.0)
    assert not type_matches("int", True) and not type_matches("float", False)
    assert type_matches("any", None) and type_matches("uuid", 1) is None


def test_json_equality() -> None:
    assert json_equal(2, 2.0) and json_equal([1, {"a": 2}], [1.0, {"a": 2.0}])
    assert not json_equal(True, 1) and not json_equal(0, False) and not json_equal(None, 0)
    assert not json_equal({"a": 1}, {"b": 1}) and not json_equal([1], [1, 1])
    assert not json_equal(float("nan"), float("nan"))


def test_messages_name_tool_and_argument() -> None:
    policy = {"policy_id": "p", "allowed_tools": {"pay": {"required_arguments": {"amt": "int"}}}}
    report = validate_trace(make_trace(tool_call("s1", "pay", {"amt": "5", "memo": "x"})), policy)
    messages = [f.message for f in report.findings]
    assert "argument 'amt' of tool 'pay' must be int (got string)" in messages
    assert "argument 'memo' of tool 'pay' is not declared in the policy" in messages
    assert all(f.remediation for f in report.findings)


def test_only_named_calls_count_for_sequence_and_flow() -> None:
    policy = {
        "policy_id": "p",
        "allow_unlisted_tools": True,
        "sequence": {"required_tools": ["x"]},
        "error_handling": {"require_retry_on_error": True, "max_attempts": 1},
    }
    trace = make_trace(tool_call("s1", None, status="error"), tool_call("s2", "", status="error"))
    rules = _rules(trace, policy)
    assert rules.count(("ARH-SCH-002", "s1")) == 1 and rules.count(("ARH-SCH-002", "s2")) == 1
    assert ("ARH-SEQ-001", None) in rules
    assert not any(r and r.startswith("ARH-FLW") for r, _ in rules)
