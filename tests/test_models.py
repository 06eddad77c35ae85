"""Trace and policy parsing: defaults, versions and field-precise rejections."""

from __future__ import annotations

from typing import Any

import pytest

from agent_reliability_harness.errors import PolicyError, TraceError
from agent_reliability_harness.models import Policy, Status, Step, StepType, Trace
from helpers import make_trace, response, tool_call


def test_minimal_trace_defaults() -> None:
    trace = Trace.from_dict(make_trace(tool_call("s1", "x")))
    step = trace.steps[0]
    assert trace.schema_version == "1" and trace.source is None and trace.metadata == {}
    assert step.type is StepType.TOOL_CALL and step.status is Status.OK
    assert step.arguments is None and step.citations == () and step.requires_grounding is False
    assert step.latency_ms is None and step.input_tokens is None


@pytest.mark.parametrize(
    ("error", "status", "expected"),
    [
        ("boom", None, Status.ERROR),
        ("", None, Status.OK),
        (None, None, Status.OK),
        ("boom", "ok", Status.OK),
        (None, "error", Status.ERROR),
    ],
)
def test_status_defaults_from_error(error: Any, status: Any, expected: Status) -> None:
    data: dict[str, Any] = {"step_id": "s", "type": "model_response"}
    if error is not None:
        data["error"] = error
    if status is not None:
        data["status"] = status
    assert Step.from_dict(data).status is expected


@pytest.mark.parametrize("version", [None, "1", "1.0", "1.7.3"])
def test_supported_schema_versions(version: str | None) -> None:
    extra = {} if version is None else {"schema_version": version}
    assert Trace.from_dict(make_trace(**extra)).trace_id == "t1"


@pytest.mark.parametrize("version", ["2", "2.0", "0.1", "v1", ""])
def test_unsupported_schema_version_message(version: str) -> None:
    with pytest.raises(TraceError) as info:
        Trace.from_dict(make_trace(schema_version=version))
    assert str(info.value) == (
        f"trace declares unsupported schema_version '{version}' "
        "(this build supports major version '1')"
    )


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (
            {"step_id": "s3", "type": "tool_call", "latency_ms": -1},
            "step 's3' (steps[0]): field 'latency_ms' must be a finite number >= 0",
        ),
        (
            {"step_id": "s3", "type": "tool_call", "latency_ms": "5"},
            "step 's3' (steps[0]): field 'latency_ms' must be a finite number >= 0",
        ),
        (
            {"step_id": "s3", "type": "tool_call", "latency_ms": True},
            "step 's3' (steps[0]): field 'latency_ms' must be a finite number >= 0",
        ),
        (
            {"step_id": "s3", "type": "tool_call", "cost_usd": 10**400},
            "step 's3' (steps[0]): field 'cost_usd' must be a finite number >= 0",
        ),
        (
            {"step_id": "s3", "type": "tool_call", "input_tokens": -3},
            "step 's3' (steps[0]): field 'input_tokens' must be an integer >= 0",
        ),
        (
            {"step_id": "s3", "type": "tool_call", "output_tokens": 1.5},
            "step 's3' (steps[0]): field 'output_tokens' must be an integer >= 0",
        ),
        (
            {"step_id": "s3", "type": "tool_call", "output_tokens": "7"},
            "step 's3' (steps[0]): field 'output_tokens' must be an integer >= 0",
        ),
        (
            {"step_id": "s3", "type": "thought"},
            "step 's3' (steps[0]): field 'type' must be 'tool_call' or 'model_response' (got 'thought')",
        ),
        ({"step_id": "s3"}, "step 's3' (steps[0]): field 'type' is required"),
        ({"type": "tool_call"}, "step steps[0]: field 'step_id' is required"),
        ({"step_id": 3, "type": "tool_call"}, "step steps[0]: field 'step_id' must be a string"),
        (
            {"step_id": "s3", "type": "tool_call", "status": "failed"},
            "step 's3' (steps[0]): field 'status' must be 'ok' or 'error' (got 'failed')",
        ),
        (
            {"step_id": "s3", "type": "tool_call", "arguments": [1]},
            "step 's3' (steps[0]): field 'arguments' must be an object or null",
        ),
        (
            {"step_id": "s3", "type": "tool_call", "citations": {"url": "x"}},
            "step 's3' (steps[0]): field 'citations' must be an array",
        ),
        (
            {"step_id": "s3", "type": "tool_call", "requires_grounding": "yes"},
            "step 's3' (steps[0]): field 'requires_grounding' must be a boolean",
        ),
        (
            {"step_id": "s3", "type": "tool_call", "tool_name": 5},
            "step 's3' (steps[0]): field 'tool_name' must be a string or null",
        ),
        ("s3", "step steps[0]: must be an object"),
    ],
)
def test_step_errors_are_precise(step: Any, message: str) -> None:
    with pytest.raises(TraceError) as info:
        Trace.from_dict(make_trace(step))
    assert message in str(info.value)
    assert str(info.value).startswith("trace 't1': ")


@pytest.mark.parametrize(
    ("trace", "message"),
    [
        ({"agent_name": "a", "workflow": "w", "steps": []}, "field 'trace_id' is required"),
        (
            {"trace_id": 1, "agent_name": "a", "workflow": "w", "steps": []},
            "field 'trace_id' must be a string",
        ),
        ({"trace_id": "t", "workflow": "w", "steps": []}, "field 'agent_name' is required"),
        ({"trace_id": "t", "agent_name": "a", "steps": []}, "field 'workflow' is required"),
        ({"trace_id": "t", "agent_name": "a", "workflow": "w"}, "field 'steps' is required"),
        (
            {"trace_id": "t", "agent_name": "a", "workflow": "w", "steps": {}},
            "field 'steps' must be an array",
        ),
        (
            {"trace_id": "t", "agent_name": "a", "workflow": "w", "steps": [], "metadata": []},
            "field 'metadata' must be an object",
        ),
        ([], "a trace must be a JSON object"),
    ],
)
def test_trace_errors(trace: Any, message: str) -> None:
    with pytest.raises(TraceError, match=message):
        Trace.from_dict(trace)


def test_unknown_keys_and_duplicate_ids_are_accepted() -> None:
    trace = Trace.from_dict(make_trace(response("a"), response("a", extra=1), color="blue"))
    assert [s.step_id for s in trace.steps] == ["a", "a"]


def test_integral_float_tokens_are_integers() -> None:
    step = Step.from_dict({"step_id": "s", "type": "model_response", "input_tokens": 12.0})
    assert step.input_tokens == 12 and isinstance(step.input_tokens, int)


# ---------------------------------------------------------------- policies


def _policy(**extra: Any) -> dict[str, Any]:
    return {"policy_id": "p", **extra}


def test_policy_defaults() -> None:
    policy = Policy.from_dict(_policy())
    assert policy.allow_unlisted_tools is False and policy.allowed_tools == {}
    assert not policy.budgets.any_set and not policy.unsafe_patterns


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        (
            {"allowed_tools": {"issue_refund": {"min_calls": 3, "max_calls": 1}}},
            "policy tool 'issue_refund': min_calls (3) exceeds max_calls (1)",
        ),
        (
            {"allowed_tools": {"t": {"max_calls": -1}}},
            "policy tool 't' max_calls: must be an integer >= 0",
        ),
        (
            {"allowed_tools": {"t": {"max_calls": True}}},
            "policy tool 't' max_calls: must be an integer >= 0",
        ),
        (
            {"allowed_tools": {"t": {"required_arguments": {"a": {"pattern": "("}}}}},
            "policy tool 't' argument 'a'.pattern: '(' is not a valid regular expression",
        ),
        (
            {"allowed_tools": {"t": {"required_arguments": {"a": {"enum": "x"}}}}},
            "policy tool 't' argument 'a'.enum: must be a list",
        ),
        (
            {"allowed_tools": {"t": {"required_arguments": {"a": {"min": 5, "max": 1}}}}},
            "policy tool 't' argument 'a': min (5) exceeds max (1)",
        ),
        (
            {"allowed_tools": {"t": {"required_arguments": {"a": {"min": "1"}}}}},
            "policy tool 't' argument 'a'.min: must be a finite number",
        ),
        (
            {"allowed_tools": {"t": {"required_arguments": {"a": 5}}}},
            "policy tool 't' argument 'a': must be a type name or an object",
        ),
        (
            {"allowed_tools": {"t": {"side_effect": "yes"}}},
            "policy tool 't' side_effect: must be a boolean",
        ),
        ({"allowed_tools": []}, "policy allowed_tools: must be an object"),
        (
            {"budgets": {"max_total_cost_usd": -0.5}},
            "policy budgets.max_total_cost_usd: must be a finite number >= 0",
        ),
        (
            {"budgets": {"max_total_tokens": 1.5}},
            "policy budgets.max_total_tokens: must be an integer >= 0",
        ),
        ({"budgets": 3}, "policy budgets: must be an object"),
        (
            {"unsafe_patterns": ["ok", "(?=lookahead)"]},
            "policy unsafe_patterns[1]: '(?=lookahead)' is not a valid regular expression",
        ),
        ({"unsafe_patterns": "secret"}, "policy unsafe_patterns: must be a list"),
        ({"unsafe_patterns": [3]}, "policy unsafe_patterns[0]: must be a string"),
        (
            {"grounding": {"min_citation_coverage": 1.5}},
            "policy grounding.min_citation_coverage: must be between 0 and 1",
        ),
        (
            {"grounding": {"require_citations": 1}},
            "policy grounding.require_citations: must be a boolean",
        ),
        (
            {"sequence": {"required_tools": ["a"], "forbidden_tools": ["a"]}},
            "policy sequence: tool 'a' is both required and forbidden",
        ),
        (
            {"sequence": {"call_order": ["a", "b", "a"]}},
            "policy sequence.call_order: tool 'a' is listed more than once",
        ),
        ({"sequence": {"required_tools": "a"}}, "policy sequence.required_tools: must be an array"),
        (
            {"error_handling": {"max_attempts": 0}},
            "policy error_handling.max_attempts: must be an integer >= 1",
        ),
        ({"completion": {"max_steps": 0}}, "policy completion.max_steps: must be an integer >= 1"),
        ({"allow_unlisted_tools": "true"}, "policy allow_unlisted_tools: must be a boolean"),
        (
            {"schema_version": "2"},
            "policy declares unsupported schema_version '2' (this build supports major version '1')",
        ),
    ],
)
def test_policy_errors_name_the_field(policy: dict[str, Any], message: str) -> None:
    with pytest.raises(PolicyError) as info:
        Policy.from_dict(_policy(**policy))
    assert message in str(info.value)


@pytest.mark.parametrize("policy", [{}, {"policy_id": ""}, {"policy_id": 7}, []])
def test_policy_id_is_required(policy: Any) -> None:
    with pytest.raises(PolicyError, match="policy"):
        Policy.from_dict(policy)


def test_policy_accepts_unknown_keys_nulls_and_python_end_anchor() -> None:
    policy = Policy.from_dict(
        _policy(
            future_section={"x": 1},
            budgets=None,
            allowed_tools={
                "t": {"max_calls": None, "required_arguments": {"a": {"pattern": r"x\Z"}}}
            },
        )
    )
    spec = policy.allowed_tools["t"].required_arguments["a"]
    assert spec.pattern is not None and spec.pattern.fullmatch("x")
