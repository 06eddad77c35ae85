"""Schema rules (ARH-SCH-*): edges that need code rather than a data case."""

from __future__ import annotations

from agent_reliability_harness.models.types import ARG_TYPES, KNOWN_TYPES
from agent_reliability_harness.rules.schema import json_equal, type_matches
from helpers import findings, report, response, tool_call

LISTED = {"allow_unlisted_tools": False}


def test_nan_fails_every_bound() -> None:
    policy = {
        "allowed_tools": {"t": {"required_arguments": {"x": {"type": "float", "min": 0, "max": 1}}}}
    }
    got = findings([tool_call("s1", "t", {"x": float("nan")})], policy | LISTED)
    assert got == [("ARH-SCH-009", "error", "s1")] * 2


def test_type_names_come_from_one_table() -> None:
    assert set(ARG_TYPES) == KNOWN_TYPES == {"str", "int", "float", "bool", "list", "dict", "any"}
    assert type_matches("float", 1) and not type_matches("int", 1.0)
    assert not type_matches("int", True) and not type_matches("float", False)
    assert type_matches("any", None) and type_matches("uuid", 1) is None


def test_json_equality() -> None:
    assert json_equal(2, 2.0) and json_equal([1, {"a": 2}], [1.0, {"a": 2.0}])
    assert not json_equal(True, 1) and not json_equal(0, False) and not json_equal(None, 0)
    assert not json_equal({"a": 1}, {"b": 1}) and not json_equal([1], [1, 1])
    assert not json_equal(float("nan"), float("nan"))


def test_messages_name_tool_and_argument() -> None:
    policy = {"allowed_tools": {"pay": {"required_arguments": {"amt": "int"}}}}
    got = report([tool_call("s1", "pay", {"amt": "5", "memo": "x"})], policy)
    messages = [f.message for f in got.findings]
    assert "argument 'amt' of tool 'pay' must be int (got string)" in messages
    assert "argument 'memo' of tool 'pay' is not declared in the policy" in messages
    assert all(f.remediation for f in got.findings)


def test_a_call_fails_its_check_once_however_many_rules_it_breaks() -> None:
    policy = {"allowed_tools": {"pay": {"required_arguments": {"amt": "int", "to": "str"}}}}
    steps = [tool_call("s1", "pay", {"amt": "5"}), tool_call("s2", "pay", {"amt": 5, "to": "x"})]
    got = report(steps, policy | LISTED)
    assert [f.rule_id for f in got.findings] == ["ARH-SCH-003", "ARH-SCH-004"]
    assert got.category_scores == {"schema": 50.0}  # 2 calls, 1 failing


def test_warnings_and_infos_fail_no_call() -> None:
    policy = {"allowed_tools": {"pay": {"required_arguments": {"amt": "money"}}}}
    got = report([tool_call("s1", "pay", {"amt": 5, "memo": "x"})], policy)
    assert [(f.rule_id, f.severity.value) for f in got.findings] == [
        ("ARH-SCH-005", "warning"),
        ("ARH-SCH-006", "info"),
    ]
    assert got.category_scores == {"schema": 100.0} and got.passed


def test_duplicate_step_ids_sit_at_the_first_occurrence() -> None:
    steps = [response("a"), response("b"), response("a"), response("c"), response("b")]
    got = report(steps)
    assert [(f.rule_id, f.step_id, f.message) for f in got.findings] == [
        ("ARH-SCH-010", "a", "step_id 'a' occurs 2 times"),
        ("ARH-SCH-010", "b", "step_id 'b' occurs 2 times"),
    ]
    assert got.category_scores == {}  # lint: never scored


def test_adapter_notes_become_warnings_at_their_step() -> None:
    notes = [
        {
            "at": "messages[1]",
            "issue": "unknown part type 'audio'",
            "value": "x" * 300,
            "step": "s1",
        },
        {"at": "messages[4]", "issue": "dropped", "step": "gone"},
        "not an object",
        {"issue": "no location"},
    ]
    trace = {"metadata": {"adapter": {"notes": notes}}, "steps": [response("s1")]}
    got = report(trace)
    assert [(f.rule_id, f.severity.value, f.step_id, f.message) for f in got.findings] == [
        ("ARH-SCH-013", "warning", None, "adapter note is not an object"),
        ("ARH-SCH-013", "warning", None, "dropped at messages[4]"),
        ("ARH-SCH-013", "warning", None, "no location"),
        ("ARH-SCH-013", "warning", "s1", "unknown part type 'audio' at messages[1]"),
    ]
    assert got.findings[-1].observed == "x" * 200 + "..."
    assert got.passed and got.score == 100.0


def test_adapter_metadata_without_notes_is_quiet() -> None:
    for metadata in ({}, {"adapter": "x"}, {"adapter": {"notes": "x"}}, {"adapter": {}}):
        assert findings({"metadata": metadata, "steps": [response("s1")]}) == []


def test_only_named_calls_count_for_sequence_and_flow() -> None:
    policy = {
        "sequence": {"required_tools": ["x"]},
        "error_handling": {"require_retry_on_error": True, "max_attempts": 1},
    }
    steps = [tool_call("s1", None, status="error"), tool_call("s2", "", status="error")]
    got = findings(steps, policy)
    assert got.count(("ARH-SCH-002", "error", "s1")) == 1
    assert ("ARH-SEQ-001", "error", None) in got
    assert not any(rule.startswith("ARH-FLW") for rule, _, _ in got)
