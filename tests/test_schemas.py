"""The JSON Schemas in schemas/ agree with the parsers, on the samples and on generated input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from agent_reliability_harness.api import validate_paths
from agent_reliability_harness.errors import PolicyError, TraceError
from agent_reliability_harness.models import Policy, Trace
from helpers import ROOT, SAMPLES
from strategies import JSON_VALUES, traces

SCHEMAS = ROOT / "schemas"
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _validator(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


TRACE = _validator("trace.schema.json")
POLICY = _validator("policy.schema.json")
REPORT = _validator("report.schema.json")


def _sample_traces() -> list[Any]:
    found: list[Any] = []
    for path in sorted((SAMPLES / "traces").iterdir()):
        if path.suffix == ".jsonl":
            found += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        else:
            value = json.loads(path.read_text())
            found += value if isinstance(value, list) else [value]
    return found


def _parses_trace(value: Any) -> bool:
    try:
        Trace.from_dict(value)
    except TraceError:
        return False
    return True


def test_samples_follow_the_schemas(tmp_path: Path) -> None:
    for trace in _sample_traces():
        TRACE.validate(trace)
    POLICY.validate(json.loads((SAMPLES / "policy.json").read_text()))
    run = validate_paths(
        [str(SAMPLES / "traces")],
        Policy.from_dict(json.loads((SAMPLES / "policy.json").read_text())),
    )
    REPORT.validate(run.to_dict())


# Field values, valid and not, mixed into otherwise valid traces.
FIELD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(-2, 2, allow_nan=False),
    st.sampled_from(
        ["", "x", "tool_call", "model_response", "ok", "error", "1", "1.2", "2", "0.9"]
    ),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.sampled_from(["a", "b"]), st.integers(), max_size=2),
    # v1.1 shapes: inputs entries and outcome objects, valid and not.
    st.lists(
        st.fixed_dictionaries(
            {},
            optional={
                "role": st.sampled_from(["user", "system", "developer", "assistant", 1]),
                "text": st.sampled_from(["hi", "", 3, None]),
            },
        ),
        max_size=2,
    ),
    st.fixed_dictionaries(
        {},
        optional={
            "success": st.sampled_from([True, False, None, 1, "yes"]),
            "reward": st.sampled_from([0, 1.5, -2, None, "1", True]),
            "grader": st.just("x"),
        },
    ),
)
STEP_FIELDS = [
    "step_id",
    "type",
    "tool_name",
    "arguments",
    "text",
    "citations",
    "latency_ms",
    "cost_usd",
    "requires_grounding",
    "status",
    "error",
    "input_tokens",
    "output_tokens",
    "metadata",
]
TRACE_FIELDS = [
    "schema_version",
    "trace_id",
    "agent_name",
    "workflow",
    "steps",
    "source",
    "metadata",
    "inputs",
    "task_id",
    "outcome",
]


@st.composite
def mutated_traces(draw: st.DrawFn) -> Any:
    trace: Any = draw(traces())
    for _ in range(draw(st.integers(0, 3))):
        step_list = trace.get("steps")
        steps = [s for s in step_list if isinstance(s, dict)] if isinstance(step_list, list) else []
        if steps and draw(st.booleans()):
            step = draw(st.sampled_from(steps))
            field = draw(st.sampled_from(STEP_FIELDS))
        else:
            step, field = trace, draw(st.sampled_from(TRACE_FIELDS))
        if draw(st.booleans()):
            step.pop(field, None)
        else:
            step[field] = draw(FIELD_VALUES)
    if draw(st.integers(0, 20)) == 0:
        return draw(JSON_VALUES)
    return trace


@SETTINGS
@given(mutated_traces())
def test_trace_schema_agrees_with_parser(value: Any) -> None:
    assert TRACE.is_valid(value) == _parses_trace(value)


# Policy parts, valid and not.
ARG_SPECS = st.one_of(
    st.sampled_from(["str", "int", "uuid", 3, None]),
    st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["str", "float", "any", None, 1]),
            "enum": st.sampled_from([["a"], [], "a", None]),
            "pattern": st.sampled_from(["a+", "[0-9]{3}", None, 5]),
            "min": st.sampled_from([0, 1.5, -2, None, "1"]),
        },
    ),
)
TOOLS = st.fixed_dictionaries(
    {},
    optional={
        "required_arguments": st.one_of(
            st.dictionaries(st.sampled_from(["a", "b"]), ARG_SPECS, max_size=2),
            st.sampled_from([None, []]),
        ),
        "side_effect": st.sampled_from([True, False, None, "yes"]),
        "max_calls": st.sampled_from([0, 2, None, -1, 1.5, True]),
    },
)
POLICIES = st.fixed_dictionaries(
    {"policy_id": st.sampled_from(["p", "", 7])},
    optional={
        "schema_version": st.sampled_from(["1", "1.1", "2", 1]),
        "allow_unlisted_tools": st.sampled_from([True, False, None, "no"]),
        "allowed_tools": st.one_of(
            st.dictionaries(st.sampled_from(["x", "y"]), TOOLS, max_size=2),
            st.sampled_from([None, [], "x"]),
        ),
        "budgets": st.fixed_dictionaries(
            {},
            optional={
                "max_total_cost_usd": st.sampled_from([0, 0.5, -1, None, "1"]),
                "max_total_tokens": st.sampled_from([0, 100, 1.5, -1, None]),
            },
        ),
        "unsafe_patterns": st.sampled_from([[], ["a+"], ["("], [1], "a", None]),
        "grounding": st.fixed_dictionaries(
            {},
            optional={
                "min_citation_coverage": st.sampled_from([0, 0.5, 1, 1.5, -0.1, None]),
                "require_citations": st.sampled_from([True, None, 1]),
            },
        ),
        "sequence": st.fixed_dictionaries(
            {},
            optional={
                "required_tools": st.sampled_from([["a"], [], None, "a", [1]]),
                "call_order": st.sampled_from([["a", "b"], ["a", "a"], None, [2]]),
            },
        ),
        "error_handling": st.fixed_dictionaries(
            {},
            optional={
                "max_attempts": st.sampled_from([1, 3, 0, None, 2.5]),
            },
        ),
        "completion": st.fixed_dictionaries(
            {},
            optional={
                "max_steps": st.sampled_from([1, 0, None, "5"]),
                "require_final_response": st.sampled_from([True, False, "yes"]),
            },
        ),
    },
)


@SETTINGS
@given(POLICIES)
def test_policy_schema_agrees_with_parser(value: dict[str, Any]) -> None:
    """Where the schema rejects, the parser rejects; the parser's extra checks are documented."""
    try:
        Policy.from_dict(value)
        parsed, message = True, ""
    except PolicyError as exc:
        parsed, message = False, str(exc)
    if POLICY.is_valid(value):
        # Only the checks JSON Schema cannot express may reject a schema-valid policy.
        assert parsed or "not a valid regular expression" in message, message
    else:
        assert not parsed


@pytest.mark.parametrize("name", ["trace.schema.json", "policy.schema.json", "report.schema.json"])
def test_schemas_are_valid_draft_2020_12(name: str) -> None:
    _validator(name)
