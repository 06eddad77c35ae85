"""Policy v1.2 sections 2-4: preconditions (ARH-SEQ-008), output contracts (ARH-SCH-014),
failed_when, loops (ARH-FLW-006) and unrecorded outcomes (ARH-FLW-007).

The preconditions and loop rules are checked against quadratic oracles written from the
spec text, on random traces, whole and in chunks of every size; the parser's errors
and warnings are checked by their wording."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_reliability_harness.engine import Evaluator
from agent_reliability_harness.errors import PolicyError
from agent_reliability_harness.models.policy import Policy, check_policy
from agent_reliability_harness.models.trace import Trace
from agent_reliability_harness.rules.outputs import (
    MISSING,
    decoded,
    identity,
    json_equal,
    value_at,
)
from helpers import with_defaults

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Values that are equal or not as JSON values in every interesting way.
VALUES = st.sampled_from([1, 1.0, 2, True, False, "1", "a", None, [1], [1.0], {"x": 1}])
POLICY: dict[str, Any] = {
    "allowed_tools": {
        "get": {
            "optional_arguments": {"k": "any"},
            "failed_when": [{"path": "v", "equals": "bad"}],
        },
        "use": {"optional_arguments": {"k": "any", "j": "any"}},
    },
    "preconditions": [
        {"call": "use", "requires": "get", "same": {"k": "output.v"}},
        {"call": "use", "requires": "get", "same": {"j": "k"}},
        {"call": "use", "requires": "use"},
    ],
    "error_handling": {"max_identical_repeats": 1},
}


@st.composite
def _steps(draw: st.DrawFn) -> list[dict[str, Any]]:
    steps = []
    for i in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["get", "use", "use", "other", "response"]))
        if kind == "response":
            steps.append({"step_id": f"s{i}", "type": "model_response", "text": "x"})
            continue
        step: dict[str, Any] = {"step_id": f"s{i}", "type": "tool_call", "tool_name": kind}
        args = {key: draw(VALUES) for key in draw(st.sets(st.sampled_from(["k", "j"])))}
        step["arguments"] = args
        output = draw(st.one_of(st.none(), st.fixed_dictionaries({"v": VALUES | st.just("bad")})))
        if output is not None and draw(st.booleans()):
            output = json.dumps(output)  # a JSON text output
        step["output"] = output
        if draw(st.integers(0, 4)) == 0:
            step["status"] = "error"
        steps.append(step)
    return steps


def _ok(step: dict[str, Any]) -> bool:
    """Effective status ok, from the spec text (failed_when on `get`: output.v == "bad")."""
    if step.get("status") == "error":
        return False
    if step["tool_name"] == "get":
        return value_at(decoded(step.get("output")), "v") != "bad"
    return True


def _oracle_preconditions(steps: list[dict[str, Any]]) -> list[str]:
    """Step ids with an unmet precondition, one per (call, precondition): quadratic."""
    missing = []
    for at, step in enumerate(steps):
        if step.get("tool_name") != "use":
            continue
        args = step["arguments"]
        earlier = [s for s in steps[:at] if s["type"] == "tool_call" and _ok(s)]
        gets = [s for s in earlier if s["tool_name"] == "get"]
        if "k" not in args or not any(
            json_equal(value_at(decoded(s.get("output")), "v"), args["k"]) for s in gets
        ):
            missing.append(step["step_id"])
        if "j" not in args or not any(
            "k" in s["arguments"] and json_equal(s["arguments"]["k"], args["j"]) for s in gets
        ):
            missing.append(step["step_id"])
        if not any(s["tool_name"] == "use" for s in earlier):
            missing.append(step["step_id"])
    return sorted(missing)


def _report(steps: list[dict[str, Any]], size: int | None = None) -> Any:
    trace_data, policy_data = with_defaults(steps, POLICY)
    evaluator, trace = Evaluator(Policy.from_dict(policy_data)), Trace.from_dict(trace_data)
    if size is None:
        return evaluator.evaluate(trace, "t.json", 1)
    run = evaluator.start()
    for start in range(0, len(trace.steps), size):
        run.add(trace.steps[start : start + size])
    return run.finish(trace, "t.json", 1)


@SETTINGS
@given(_steps())
def test_preconditions_follow_the_oracle_whole_and_chunked(steps: list[dict[str, Any]]) -> None:
    whole = _report(steps)
    found = sorted(f.step_id or "" for f in whole.findings if f.rule_id == "ARH-SEQ-008")
    assert found == _oracle_preconditions(steps)
    text = json.dumps(whole.to_dict(), sort_keys=True)
    for size in range(1, len(steps) + 1):
        assert json.dumps(_report(steps, size).to_dict(), sort_keys=True) == text, size


def test_identity_is_json_equality() -> None:
    values = [1, 1.0, 2, True, False, "1", None, [1], [1.0], [True], {"a": 1}, {"a": 1.0}, 1.5]
    for a in values:
        for b in values:
            assert (identity(a) == identity(b)) is json_equal(a, b), (a, b)


def test_decoded_reads_json_object_and_array_texts_only() -> None:
    assert decoded(' {"a": 1}') == {"a": 1}
    assert decoded("[1, 2]") == [1, 2]
    assert decoded("42") == "42"
    assert decoded("{not json") == "{not json"
    assert value_at({"a": [{"b": 3}]}, "a.0.b") == 3
    assert value_at({"a": [1]}, "a.1") is MISSING


def test_flw_006_counts_one_check_per_run() -> None:
    steps = [
        {"step_id": f"p{i}", "type": "tool_call", "tool_name": "poll", "output": out}
        for i, out in enumerate(["a", "a", "a", "b", "c", "c"])
    ]
    got = _report(steps)
    loops = [f for f in got.findings if f.rule_id == "ARH-FLW-006"]
    assert [(f.step_id, f.observed) for f in loops] == [("p1", 3), ("p5", 2)]
    assert got.category_scores["flow"] == pytest.approx(100 * 1 / 3, abs=0.01)


def test_output_contract_names_the_output_path() -> None:
    policy = {
        "allowed_tools": {
            "t": {"output": {"type": "object", "properties": {"n": {"type": "int", "min": 0}}}}
        }
    }
    trace_data, policy_data = with_defaults(
        [{"step_id": "s", "type": "tool_call", "tool_name": "t", "output": '{"n": -1}'}], policy
    )
    report = Evaluator(Policy.from_dict(policy_data)).evaluate(Trace.from_dict(trace_data))
    (finding,) = report.findings
    assert finding.rule_id == "ARH-SCH-014"
    assert finding.message == "output.n of tool 't' is below min 0 (got -1)"
    assert finding.observed == {"path": "output.n", "value": -1}


def test_precondition_message_names_the_values() -> None:
    steps = [
        {"step_id": "a", "type": "tool_call", "tool_name": "get_balance", "output": {"m": 5}},
        {"step_id": "b", "type": "tool_call", "tool_name": "send", "arguments": {"amt": 7}},
    ]
    policy = {
        "preconditions": [{"call": "send", "requires": "get_balance", "same": {"amt": "output.m"}}]
    }
    trace_data, policy_data = with_defaults(steps, policy)
    report = Evaluator(Policy.from_dict(policy_data)).evaluate(Trace.from_dict(trace_data))
    (finding,) = report.findings
    assert finding.message == (
        "call of 'send' needs an earlier successful call of 'get_balance' with output.m = 7; "
        "1 earlier successful call had other values"
    )
    assert finding.expected == {"requires": "get_balance", "same": {"output.m": 7}}
    assert finding.observed == {"amt": 7}


@pytest.mark.parametrize(
    ("fragment", "message"),
    [
        ({"preconditions": {}}, "policy preconditions: must be a list of objects (got object)"),
        ({"preconditions": [{"requires": "b"}]}, "policy preconditions[0].call: is required"),
        (
            {"preconditions": [{"call": "a", "requires": 3}]},
            "policy preconditions[0].requires: must be a non-empty tool name (got 3)",
        ),
        (
            {"preconditions": [{"call": "a", "requires": "b", "same": {"x": "y..z"}}]},
            "policy preconditions[0].same.x: must be a dotted path of non-empty parts",
        ),
        (
            {"preconditions": [{"call": "a", "requires": "b", "same": ["x"]}]},
            "policy preconditions[0].same: must be an object (got array)",
        ),
        (
            {"allowed_tools": {"t": {"failed_when": [{"path": "a"}]}}},
            "policy tool 't' failed_when[0]: must hold exactly one of 'equals' and 'pattern'",
        ),
        (
            {"allowed_tools": {"t": {"failed_when": [{"path": "a", "pattern": "("}]}}},
            "policy tool 't' failed_when[0].pattern: '('",
        ),
        (
            {"allowed_tools": {"t": {"failed_when": {"path": "a"}}}},
            "policy tool 't' failed_when: must be a list of objects (got object)",
        ),
        (
            {"allowed_tools": {"t": {"output": 5}}},
            "policy tool 't' output: must be a type name or an object (got number)",
        ),
        (
            {"error_handling": {"max_identical_repeats": 0}},
            "policy error_handling.max_identical_repeats:",
        ),
        (
            {"error_handling": {"require_recorded_outcome": "yes"}},
            "policy error_handling.require_recorded_outcome: must be a boolean (got string)",
        ),
    ],
)
def test_policy_errors_name_the_field(fragment: dict[str, Any], message: str) -> None:
    _, policy = with_defaults(None, fragment)
    with pytest.raises(PolicyError) as info:
        Policy.from_dict(policy)
    assert str(info.value).startswith(message), str(info.value)


def test_typos_and_useless_keys_warn() -> None:
    _, policy = with_defaults(
        None,
        {
            "preconditions": [{"call": "a", "require": "b", "requires": "a"}],
            "allowed_tools": {"t": {"failed_wen": [], "output": {"typ": "str"}}},
            "error_handling": {"max_identical_repeat": 2, "require_recorded_outcome": True},
        },
    )
    warnings = [str(w) for w in check_policy(policy).warnings]
    assert warnings == [
        "policy preconditions[0].require: unknown key (did you mean 'requires'?)",
        "policy allowed_tools.t.failed_wen: unknown key (did you mean 'failed_when'?)",
        "policy allowed_tools.t.output.typ: unknown key (did you mean 'type'?)",
        "policy error_handling.max_identical_repeat: unknown key "
        "(did you mean 'max_identical_repeats'?)",
        "policy error_handling.require_recorded_outcome: has no effect: no listed tool has "
        "'side_effect: true'",
        "policy preconditions[0].requires: a call of 'a' needs an earlier one, so its first "
        "call never meets it",
    ]


SPECS = [
    {"type": "object", "required": ["a"], "properties": {"a": {"type": "int", "min": 0}}},
    {"type": "list", "items": {"type": "str", "pattern": "[a-z]+", "max_length": 3}},
    {"enum": [1, "x", [1]]},
    {"type": "number", "min": 0, "max": 1},
    {"type": "str", "not_pattern": "bad", "min_length": 1},
    {"properties": {"b": {"type": "bool"}, "c": {"items": {"enum": [True]}}}},
    "dict",
]
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(-2, 2)
    | st.sampled_from(["a", "ab", "abcd", "bad", "", "x"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3)
    ),
    max_leaves=6,
)


@SETTINGS
@given(st.sampled_from(SPECS), JSON)
def test_passes_agrees_with_contract_hits(raw: Any, value: Any) -> None:
    """The output contract's quick pass says True exactly when the full check finds nothing."""
    from agent_reliability_harness.models.policy.args import parse_arg_spec  # noqa: PLC0415
    from agent_reliability_harness.models.policy.notes import Notes  # noqa: PLC0415
    from agent_reliability_harness.models.trace import Step  # noqa: PLC0415
    from agent_reliability_harness.rules.arguments import ArgCheck, contract_hits  # noqa: PLC0415
    from agent_reliability_harness.rules.contracts import passes  # noqa: PLC0415

    check = ArgCheck(parse_arg_spec(raw, "x", "x", Notes()))
    step = Step.from_dict({"step_id": "s", "type": "tool_call", "tool_name": "t"})
    assert passes(check, value) == (not contract_hits(0, step, check, value, "output"))


def test_precondition_findings_are_capped_alike_whole_and_chunked() -> None:
    steps = [
        {"step_id": f"s{i}", "type": "tool_call", "tool_name": "use", "arguments": {"k": i}}
        for i in range(1005)
    ]
    whole = _report(steps)
    found = [f for f in whole.findings if f.rule_id == "ARH-SEQ-008"]
    # Two unmet preconditions per call (no `get`, no argument `j`), and the first call
    # has no earlier `use`: 2,011 findings, the first 1,000 listed.
    assert len(found) == 1001 and found[-1].observed == 2011 - 1000
    assert json.dumps(_report(steps, 7).to_dict()) == json.dumps(whole.to_dict())


def test_schema_accepts_the_v12_keys_and_refuses_typos() -> None:
    from jsonschema import Draft202012Validator  # noqa: PLC0415

    from helpers import ROOT  # noqa: PLC0415

    schema = json.loads((ROOT / "schemas" / "policy.schema.json").read_text(encoding="utf-8"))
    validator = Draft202012Validator(schema)
    policies = [POLICY]
    for folder in ("ARH-SEQ-008", "ARH-SCH-014", "ARH-FLW-006", "ARH-FLW-007"):
        for path in sorted((ROOT / "tests" / "cases" / folder).glob("*.json")):
            policies.append(json.loads(path.read_text(encoding="utf-8"))["policy"])
    for fragment in policies:
        _, policy = with_defaults(None, fragment)
        validator.validate(policy)
        Policy.from_dict(policy)
    for typo in (
        {"preconditions": [{"call": "a", "require": "b"}]},
        {"preconditions": [{"call": "a", "requires": "b", "same": {"x": 1}}]},
        {"allowed_tools": {"t": {"failed_when": [{"path": "a", "equal": 1}]}}},
        {"allowed_tools": {"t": {"failed_when": [{"path": "a", "equals": 1, "pattern": "x"}]}}},
        {"error_handling": {"max_identical_repeat": 1}},
    ):
        _, policy = with_defaults(None, typo)
        assert not validator.is_valid(policy), typo
