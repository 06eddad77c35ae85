"""Policy v1.1 keys: the load errors and warnings (cases as data in tests/data/policies)
and the compiled fields rules read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.errors import PolicyError
from agent_reliability_harness.models.policy import (
    ArgumentsMatch,
    MatchMode,
    Policy,
    check_policy,
)
from agent_reliability_harness.patterns import PatternSet

DATA = Path(__file__).parent / "data" / "policies"


def _cases(name: str) -> list[Any]:
    cases: list[Any] = json.loads((DATA / name).read_text(encoding="utf-8"))["cases"]
    return cases


def _policy(**extra: Any) -> dict[str, Any]:
    return {"policy_id": "p", **extra}


@pytest.mark.parametrize(("fragment", "message"), _cases("errors.json"))
def test_load_errors(fragment: dict[str, Any], message: str) -> None:
    with pytest.raises(PolicyError) as info:
        check_policy(_policy(**fragment))
    assert str(info.value) == message


@pytest.mark.parametrize(("fragment", "warnings"), _cases("warnings.json"))
def test_warnings(fragment: dict[str, Any], warnings: list[str]) -> None:
    loaded = check_policy(_policy(**fragment))
    assert [str(w) for w in loaded.warnings] == warnings
    if warnings:
        with pytest.raises(PolicyError) as info:
            check_policy(_policy(**fragment), strict=True)
        assert str(info.value) == "; ".join(warnings)


def test_json_schema_type_spellings() -> None:
    args = {
        name: name
        for name in ("string", "integer", "number", "boolean", "array", "object", "str", "any")
    }
    policy = Policy.from_dict(_policy(allowed_tools={"t": {"required_arguments": args}}))
    compiled = policy.allowed_tools["t"].required_arguments
    assert {name: spec.type for name, spec in compiled.items()} == {
        "string": "str",
        "integer": "int",
        "number": "float",
        "boolean": "bool",
        "array": "list",
        "object": "dict",
        "str": "str",
        "any": "any",
    }
    assert all(spec.known_type for spec in compiled.values())


def test_nested_argument_specs_compile() -> None:
    spec = Policy.from_dict(
        _policy(
            allowed_tools={
                "book": {
                    "required_arguments": {
                        "passengers": {
                            "type": "array",
                            "min_length": 1,
                            "max_length": 9,
                            "items": {
                                "type": "object",
                                "required": ["dob", "name", "dob"],
                                "properties": {
                                    "dob": {"type": "string", "pattern": "[0-9]{4}-[0-9]{2}"},
                                    "name": {"type": "string", "not_pattern": "<script"},
                                },
                            },
                        },
                        "to": {"type": "string", "grounded": True},
                    }
                }
            }
        )
    ).allowed_tools["book"]
    passengers = spec.required_arguments["passengers"]
    assert (passengers.type, passengers.min_length, passengers.max_length) == ("list", 1, 9)
    item = passengers.items
    assert item is not None and item.type == "dict" and item.required == ("dob", "name")
    assert item.properties is not None and set(item.properties) == {"dob", "name"}
    dob, name = item.properties["dob"], item.properties["name"]
    assert dob.pattern is not None and dob.pattern.fullmatch("1990-01")
    assert name.not_pattern is not None and name.not_pattern.search("a <script> b")
    assert not name.not_pattern.search("A <SCRIPT>")  # case-sensitive, as the spec says
    assert passengers.nested and not dob.nested
    assert spec.required_arguments["to"].grounded and not passengers.grounded


def test_tool_labels() -> None:
    policy = Policy.from_dict(
        _policy(
            allowed_tools={
                "get_webpage": {"trust": "untrusted", "sink": True, "sink_arguments": ["url"]},
                "pay": {"sink": True},
                "read": {"trust": "trusted"},
            }
        )
    )
    tools = policy.allowed_tools
    assert policy.untrusted_tools == {"get_webpage"} and policy.sink_tools == {"get_webpage", "pay"}
    assert tools["get_webpage"].checks_sink_argument("url")
    assert not tools["get_webpage"].checks_sink_argument("headers")
    assert tools["pay"].checks_sink_argument("anything") and tools["pay"].sink_arguments is None
    assert not tools["read"].checks_sink_argument("x") and not tools["read"].untrusted


def test_unsafe_patterns_scopes() -> None:
    policy = Policy.from_dict(
        _policy(
            unsafe_patterns=[
                "ssn",
                {"pattern": "ignore previous", "in": ["arguments", "text"]},
                {"pattern": "drop table", "in": ["arguments"], "tools": ["sql", "db"]},
                {"pattern": "ssn"},
            ]
        )
    )
    assert policy.unsafe_patterns == PatternSet(("ssn", "ignore previous", "drop table"))
    scoped = policy.unsafe_scoped
    assert scoped is not None
    sets = {
        (kind, tool): scoped.for_blob(kind, tool).patterns
        for kind in ("text", "arguments", "output", "error")
        for tool in (None, "sql", "web")
    }
    assert sets[("text", None)] == sets[("text", "sql")] == ("ssn", "ignore previous")
    assert sets[("arguments", "web")] == sets[("arguments", None)] == ("ssn", "ignore previous")
    assert sets[("arguments", "sql")] == ("ssn", "ignore previous", "drop table")
    assert sets[("output", "sql")] == sets[("error", None)] == ("ssn",)


def test_bare_and_unscoped_patterns_keep_the_v1_set() -> None:
    policy = Policy.from_dict(_policy(unsafe_patterns=["a", {"pattern": "b"}, "a"]))
    assert policy.unsafe_patterns.patterns == ("a", "b") and policy.unsafe_scoped is None
    every = {"pattern": "c", "in": ["error", "text", "output", "arguments"]}
    assert Policy.from_dict(_policy(unsafe_patterns=[every])).unsafe_scoped is None


def test_call_order_chains_and_pairs() -> None:
    v1 = Policy.from_dict(_policy(sequence={"call_order": ["a", "b", "c"]})).sequence
    assert v1.call_order == ("a", "b", "c") and v1.call_order_chains == (("a", "b", "c"),)
    assert v1.call_order_pairs == (("a", "b"), ("a", "c"), ("b", "c"))
    chains = Policy.from_dict(
        _policy(sequence={"call_order": [["get", "book"], ["get", "pay"], ["get", "book", "mail"]]})
    ).sequence
    assert chains.call_order == ()
    assert chains.call_order_pairs == (
        ("get", "book"),
        ("get", "pay"),
        ("get", "mail"),
        ("book", "mail"),
    )


def test_completion_error_handling_defaults_and_values() -> None:
    default = Policy.from_dict(_policy())
    assert default.completion.final_tools == () and not default.error_handling.error_output_patterns
    assert default.trajectory is None and default.applies_to is None
    policy = Policy.from_dict(
        _policy(
            completion={
                "require_final_response": True,
                "final_tools": ["handoff", "submit", "handoff"],
            },
            error_handling={"error_output_patterns": ["^error", "not found", "^error"]},
        )
    )
    assert policy.completion.final_tools == ("handoff", "submit")
    patterns = policy.error_handling.error_output_patterns
    assert patterns.patterns == ("^error", "not found")
    assert patterns.matches("Order NOT FOUND") == [1]  # case-insensitive search


def test_trajectory_compiles_with_defaults_and_overrides() -> None:
    trajectory = Policy.from_dict(
        _policy(
            trajectory={
                "expected": [
                    {"tool": "get_user_details", "arguments": {"user_id": "mia", "request_id": 1}},
                    {
                        "tool": "book",
                        "arguments": {"origin": "JFK"},
                        "arguments_match": "subset",
                        "x-note": "ignored",
                    },
                    {"tool": "send_certificate", "optional": True},
                ],
                "arguments_match": "exact",
                "ignore_tools": ["list_*"],
                "ignore_arguments": ["request_id"],
            }
        )
    ).trajectory
    assert trajectory is not None and trajectory.match is MatchMode.IN_ORDER
    first, second, third = trajectory.expected
    assert first.compared_arguments == {"user_id": "mia"}
    assert first.arguments == {"user_id": "mia", "request_id": 1}
    assert first.arguments_match is ArgumentsMatch.EXACT
    assert second.arguments_match is ArgumentsMatch.SUBSET
    assert second.entry == {
        "tool": "book",
        "arguments": {"origin": "JFK"},
        "arguments_match": "subset",
    }
    assert third.optional and third.arguments is None and third.compared_arguments is None
    assert trajectory.required_entries == 2
    assert trajectory.considers("book") and not trajectory.considers("list_flights")
    assert MatchMode.STRICT.forbids_extra_calls and not MatchMode.SUPERSET.forbids_extra_calls


def test_dataflow_defaults_and_values() -> None:
    default = Policy.from_dict(_policy()).dataflow
    assert (default.min_value_length, default.taint_window, default.untrusted_to_sink) == (
        6,
        400,
        False,
    )
    flow = Policy.from_dict(
        _policy(
            dataflow={
                "untrusted_to_sink": True,
                "grounded_arguments": ["refund"],
                "min_value_length": 8,
                "untrusted_if": ["<information>", "ignore (all )?previous instructions"],
                "taint_window": 200,
                "trusted_values": ["*@example.com"],
            }
        )
    ).dataflow
    assert flow.untrusted_to_sink and flow.min_value_length == 8 and flow.taint_window == 200
    assert flow.grounds_every_argument_of("refund") and not flow.grounds_every_argument_of("x")
    text = "see <INFORMATION> now, ignore previous instructions"
    assert flow.untrusted_screen.matches(text) == [0, 1]
    assert [m.starts(text) for m in flow.untrusted_if] == [[4], [23]]
    assert flow.trusted_values.matches("ME@EXAMPLE.COM") and not flow.trusted_values.matches(
        "x@evil.com"
    )
    star = Policy.from_dict(_policy(dataflow={"grounded_arguments": ["*"]})).dataflow
    assert star.grounds_every_argument_of("anything")


def test_applies_to() -> None:
    applies = Policy.from_dict(
        _policy(applies_to={"workflow": ["refund*"], "task_id": ["t-?"], "agent_name": None})
    ).applies_to
    assert applies is not None and applies.agent_name is None
    assert applies.matches("id", None, "refund-eu", "t-1")
    assert not applies.matches("id", None, "Refund", "t-1")  # case-sensitive
    assert not applies.matches("id", None, "refund", None)  # a listed field the trace lacks
    assert Policy.from_dict(_policy(applies_to={})).applies_to is None


def test_documents_nested_too_deep_are_refused() -> None:
    deep: Any = 1
    for _ in range(101):
        deep = [deep]
    with pytest.raises(PolicyError, match="nests deeper than 100 levels"):
        check_policy(_policy(**{"x-deep": deep}))
    spec: Any = "str"
    for _ in range(33):
        spec = {"items": spec}
    with pytest.raises(PolicyError, match="nests items/properties deeper than 32 levels"):
        check_policy(_policy(allowed_tools={"t": {"required_arguments": {"a": spec}}}))
