"""Schema rules (ARH-SCH-*): edges that need code rather than a data case."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness.engine import evaluate
from agent_reliability_harness.models.policy import parse_policy
from agent_reliability_harness.models.trace import Trace
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
    assert type_matches("float", 1) and not type_matches("int", 1.5)
    assert type_matches("int", 1.0)  # issue 31: JSON has one number type
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


PASSENGERS = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["first_name", "dob"],
        "properties": {
            "first_name": {"type": "string", "min_length": 1},
            "dob": {"type": "string", "pattern": r"\d{4}-\d{2}-\d{2}"},
        },
    },
}
BOOK = {"allowed_tools": {"book": {"required_arguments": {"passengers": PASSENGERS}}}}


def test_nested_findings_carry_the_full_argument_path() -> None:
    passengers = [{"first_name": "Mia", "dob": "1990/04/05"}, {"first_name": ""}, "Noah"]
    got = report([tool_call("s1", "book", {"passengers": passengers})], BOOK)
    assert [(f.rule_id, f.message, f.expected, f.observed) for f in got.findings] == [
        (
            "ARH-SCH-003",
            "tool 'book' is missing required arguments.passengers[1].dob",
            "dob",
            {"path": "arguments.passengers[1].dob"},
        ),
        (
            "ARH-SCH-004",
            "arguments.passengers[2] of tool 'book' must be dict (got string)",
            "dict",
            {"path": "arguments.passengers[2]", "type": "string"},
        ),
        (
            "ARH-SCH-008",
            "arguments.passengers[0].dob of tool 'book' does not fully match pattern "
            r"'\d{4}-\d{2}-\d{2}'",
            r"\d{4}-\d{2}-\d{2}",
            {"path": "arguments.passengers[0].dob", "value": "1990/04/05"},
        ),
        (
            "ARH-SCH-012",
            "arguments.passengers[1].first_name of tool 'book' is shorter than min_length 1 "
            "(length 0)",
            {"min_length": 1},
            {"path": "arguments.passengers[1].first_name", "length": 0},
        ),
    ]
    assert got.category_scores == {"schema": 0.0}  # one call, failing once


def test_top_level_v11_findings_read_like_v1_ones() -> None:
    policy = {
        "allowed_tools": {
            "send": {
                "required_arguments": {
                    "body": {"type": "string", "not_pattern": "password", "max_length": 8}
                }
            }
        }
    }
    got = report([tool_call("s1", "send", {"body": "a password"})], policy)
    assert [(f.rule_id, f.message, f.expected, f.observed) for f in got.findings] == [
        (
            "ARH-SCH-011",
            "argument 'body' of tool 'send' contains a match of not_pattern 'password'",
            {"not_pattern": "password"},
            "a password",
        ),
        (
            "ARH-SCH-012",
            "argument 'body' of tool 'send' is longer than max_length 8 (length 10)",
            {"max_length": 8},
            10,
        ),
    ]


def test_odd_property_names_are_quoted_in_paths() -> None:
    policy = {
        "allowed_tools": {
            "t": {"required_arguments": {"m": {"properties": {"first name": "int", "é": "int"}}}}
        }
    }
    got = report([tool_call("s1", "t", {"m": {"first name": "x", "é": "y"}})], policy)
    assert [f.observed["path"] for f in got.findings] == [
        'arguments.m["first name"]',
        'arguments.m["é"]',
    ]


def test_required_without_properties_and_unknown_nested_types() -> None:
    policy = {
        "allowed_tools": {
            "t": {"required_arguments": {"m": {"type": "object", "required": ["a", "b"]}}},
            "u": {"required_arguments": {"xs": {"items": "uuid"}}},
        }
    }
    steps = [tool_call("s1", "t", {"m": {"a": None}}), tool_call("s2", "u", {"xs": [1, 2]})]
    got = report(steps, policy)
    assert [(f.rule_id, f.step_id, f.observed) for f in got.findings] == [
        ("ARH-SCH-003", "s1", {"path": "arguments.m.b"}),
        ("ARH-SCH-006", "s2", {"path": "arguments.xs[0]", "type": "uuid"}),
        ("ARH-SCH-006", "s2", {"path": "arguments.xs[1]", "type": "uuid"}),
    ]


def _nest(spec: dict[str, object], depth: int) -> dict[str, object]:
    for _ in range(depth):
        spec = {"type": "array", "items": spec}
    return spec


def test_the_deepest_nesting_the_policy_allows_meets_a_deeper_value() -> None:
    """Recursion follows the policy (at most 32 levels), never the value: a value nested
    500 deep is checked to the policy's depth and no further."""
    value: object = "x"
    for _ in range(500):
        value = [value]
    policy = {"allowed_tools": {"t": {"required_arguments": {"v": _nest({"type": "int"}, 31)}}}}
    got = report([tool_call("s1", "t", {"v": value})], policy)
    assert [f.rule_id for f in got.findings] == ["ARH-SCH-004"]
    assert got.findings[0].observed == {"path": "arguments.v" + "[0]" * 31, "type": "array"}


_SPEC = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["any", "string", "integer", "number", "array", "object", "uuid"]),
        "enum": st.lists(st.sampled_from(["a", 1, 2.0, True, None, "ORD-1"]), max_size=3),
        "pattern": st.sampled_from(["ORD-[0-9]", "a+", ".*"]),
        "min": st.sampled_from([0, 1.5]),
        "not_pattern": st.sampled_from(["secret", "^a"]),
        "min_length": st.sampled_from([0, 2]),
        "max_length": st.sampled_from([3]),
    },
)
_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(-2, 2, allow_nan=False),
    st.sampled_from(["", "a", "aaaa", "ORD-1", "a secret", "ORD-12"]),
    st.lists(st.sampled_from(["a", 1]), max_size=4),
    st.dictionaries(st.sampled_from(["k", "z"]), st.integers(0, 1), max_size=2),
)


def _label_and_rest(finding: Any) -> tuple[str, str]:
    """A finding's message split into the argument it names and what it says."""
    head, _, rest = finding.message.partition(" of tool 't' ")
    return head, rest


@settings(max_examples=300, deadline=None)
@given(_SPEC, _VALUE)
def test_a_nested_value_meets_the_rules_a_top_level_one_does(spec: Any, value: Any) -> None:
    """A spec checks a value the same wherever it sits: as an argument, as a list element
    (`items`) or as a property (`properties`); only the path in message and observed moves."""
    specs = {
        "x": spec,
        "xs": {"type": "array", "items": spec},
        "o": {"type": "object", "properties": {"k": spec}},
    }
    wrapped = {"x": value, "xs": [value], "o": {"k": value}}
    paths = {"x": None, "xs": "arguments.xs[0]", "o": "arguments.o.k"}
    seen = {}
    for name, arg_spec in specs.items():
        policy = {"allowed_tools": {"t": {"required_arguments": {name: arg_spec}}}}
        got = report([tool_call("s1", "t", {name: wrapped[name]})], policy | LISTED)
        seen[name] = [(f.rule_id, _label_and_rest(f)[1]) for f in got.findings]
        for finding in got.findings:
            label = _label_and_rest(finding)[0]
            if paths[name] is None:
                assert label == "argument 'x'"
            else:
                assert label == paths[name] and finding.observed["path"] == paths[name]
    assert seen["xs"] == seen["x"] == seen["o"]


def test_a_warning_only_trace_fails_under_a_higher_fail_under() -> None:
    """Issue 31 (decided): warnings lower the score like any failed check; --fail-under
    judges the score, so a trace with no error can fail (POLICY-SPEC.md)."""
    case = Path(__file__).parents[1] / "cases/ARH-FLW-007/fail_a_warning_lowers_the_score.json"
    data = json.loads(case.read_text())
    trace = Trace.from_dict({"trace_id": "t", "agent_name": "a", "workflow": "w",
                             "steps": data["steps"]})  # fmt: skip
    policy = parse_policy({"policy_id": "p", **data["policy"]})
    assert evaluate(trace, policy, 70).passed
    assert not evaluate(trace, policy, 90).passed
