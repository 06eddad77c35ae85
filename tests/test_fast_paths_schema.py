"""SCH-003..009 found in one compiled pass give exactly what each rule alone gave."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness.engine import rule_result
from agent_reliability_harness.models.common import type_name
from agent_reliability_harness.models.policy import Policy
from agent_reliability_harness.models.trace import Trace
from agent_reliability_harness.rules import REGISTRY, RuleContext, TraceFacts
from agent_reliability_harness.rules.base import Hit, brief
from agent_reliability_harness.rules.schema import compile_tools, json_equal, type_matches
from strategies import TOOLS, traces

pytestmark = pytest.mark.slow  # an equivalence oracle (see pyproject.toml)

_NAMES = ["order_id", "amount", "currency", "query", "top_k", "to", "body", "note"]
_TYPES = ["str", "int", "float", "bool", "list", "dict", "any", "uuid"]
_ENUM_VALUES = st.one_of(
    st.sampled_from(["ok", "", "ORD-1042", "refund issued", "ünïcödé ✓"]),
    st.integers(-5, 1000),
    st.booleans(),
    st.none(),
    st.lists(st.integers(0, 2), max_size=2),
)
_SPEC = st.one_of(
    st.sampled_from(_TYPES),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["any", "str", "int", "float", "uuid"])},
        optional={
            "enum": st.lists(_ENUM_VALUES, max_size=4),
            "pattern": st.sampled_from(["ORD-[0-9]{4}", "o.*", "", "(?i)OK"]),
            "min": st.integers(-2, 300),
            "max": st.integers(300, 600),
        },
    ),
)
_ARGS = st.dictionaries(st.sampled_from(_NAMES), _SPEC, min_size=1, max_size=5)
_TOOL = st.fixed_dictionaries({"required_arguments": _ARGS, "optional_arguments": _ARGS})
_POLICY = st.fixed_dictionaries(
    {
        "policy_id": st.just("p"),
        "allowed_tools": st.dictionaries(st.sampled_from(TOOLS), _TOOL, min_size=3, max_size=6),
    }
)


def _got(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def _arg(step: Any, name: str) -> str:
    return f"argument '{name}' of tool '{step.tool_name}'"


def _reference(trace: Trace, policy: Policy) -> dict[str, list[Hit]]:
    """SCH-003..009 as each rule computed them from the shared argument table."""
    out: dict[str, list[Hit]] = {f"ARH-SCH-00{i}": [] for i in range(3, 10)}
    facts = TraceFacts(trace)
    listed = []
    for index, step in facts.calls:
        tool = policy.allowed_tools.get(step.tool_name or "")
        if tool is not None:
            listed.append((index, step, tool))
    table = []
    for index, step, tool in listed:
        arguments = step.arguments or {}
        for name in tool.required_arguments:
            if name not in arguments:
                message = f"tool '{step.tool_name}' is missing required argument '{name}'"
                out["ARH-SCH-003"].append(Hit(index, message, expected=name, step_id=step.step_id))
        for name, value in (step.arguments or {}).items():
            spec = tool.spec_for(name)
            matches = None if spec is None else type_matches(spec.type, value)
            table.append((index, step, name, value, spec, matches))
    for index, step, name, value, spec, matches in table:
        if spec is not None and matches is False:
            out["ARH-SCH-004"].append(
                Hit(
                    index,
                    f"{_arg(step, name)} must be {spec.type} (got {type_name(value)})",
                    expected=spec.type,
                    observed=type_name(value),
                    step_id=step.step_id,
                )
            )
    for index, step, name, _value, spec, _matches in table:
        if spec is None:
            out["ARH-SCH-005"].append(
                Hit(
                    index,
                    f"{_arg(step, name)} is not declared in the policy",
                    observed=name,
                    step_id=step.step_id,
                )
            )
    for index, step, name, _value, spec, _matches in table:
        if spec is not None and not spec.known_type:
            out["ARH-SCH-006"].append(
                Hit(
                    index,
                    f"{_arg(step, name)} declares unknown type '{spec.type}'; type check skipped",
                    observed=spec.type,
                    step_id=step.step_id,
                )
            )
    checked = [
        (index, step, name, spec, value)
        for index, step, name, value, spec, matches in table
        if spec is not None and matches is not False
    ]
    for index, step, name, spec, value in checked:
        if spec.enum is not None and not any(json_equal(value, v) for v in spec.enum):
            out["ARH-SCH-007"].append(
                Hit(
                    index,
                    f"{_arg(step, name)} is not one of the allowed values (got {_got(value)})",
                    expected=list(spec.enum),
                    observed=brief(value),
                    step_id=step.step_id,
                )
            )
    for index, step, name, spec, value in checked:
        pattern = spec.pattern
        if pattern is not None and isinstance(value, str) and not pattern.fullmatch(value):
            out["ARH-SCH-008"].append(
                Hit(
                    index,
                    f"{_arg(step, name)} does not fully match pattern '{pattern.pattern}'",
                    expected=pattern.pattern,
                    observed=brief(value),
                    step_id=step.step_id,
                )
            )
    for index, step, name, spec, value in checked:
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        nan = isinstance(value, float) and math.isnan(value)
        if spec.min is not None and (nan or value < spec.min):
            out["ARH-SCH-009"].append(
                Hit(
                    index,
                    f"{_arg(step, name)} is below min {spec.min} (got {value})",
                    expected={"min": spec.min},
                    observed=value,
                    step_id=step.step_id,
                )
            )
        if spec.max is not None and (nan or value > spec.max):
            out["ARH-SCH-009"].append(
                Hit(
                    index,
                    f"{_arg(step, name)} is above max {spec.max} (got {value})",
                    expected={"max": spec.max},
                    observed=value,
                    step_id=step.step_id,
                )
            )
    return out


# Calls aimed at the policy's vocabulary, so that arguments meet every kind of spec.
_VALUES = st.one_of(
    _ENUM_VALUES,
    st.floats(-10, 600),
    st.just(float("nan")),
    st.sampled_from(["o", "ORD-12345", "OK", "ok"]),
    st.dictionaries(st.sampled_from(["a"]), st.integers(), max_size=1),
)
_CALL = st.fixed_dictionaries(
    {
        "type": st.just("tool_call"),
        "tool_name": st.sampled_from([*TOOLS, ""]),
        "arguments": st.none()
        | st.dictionaries(st.sampled_from(_NAMES), _VALUES, min_size=1, max_size=6),
    }
)
_TRACE = st.lists(_CALL, min_size=1, max_size=6).map(
    lambda calls: {
        "trace_id": "t",
        "agent_name": "a",
        "workflow": "w",
        "steps": [{**call, "step_id": f"s{i}"} for i, call in enumerate(calls)],
    }
)


@settings(max_examples=100, deadline=None)
@given(_POLICY, _TRACE | traces(), st.integers(0, 6))
def test_one_pass_gives_each_rule_its_own_hits(
    raw_policy: dict[str, Any], raw_trace: dict[str, Any], first: int
) -> None:
    policy = Policy.from_dict(raw_policy)
    trace = Trace.from_dict(raw_trace)
    want = _reference(trace, policy)
    ctx = RuleContext(trace, policy, TraceFacts(trace))
    tools = compile_tools(policy)
    # Any rule may run first (it builds the shared pass); every one gets its own hits.
    order = list(want)
    order = order[first:] + order[:first]
    for rule_id in order:
        rule = REGISTRY[rule_id]
        assert rule.state is not None
        state = rule.state(tools)
        state.scan(ctx)
        result = state.finish(ctx)
        assert result.hits == want[rule_id], rule_id
        assert result.failed == 0


def test_a_new_policy_is_compiled_afresh() -> None:
    data = {"trace_id": "t", "agent_name": "a", "workflow": "w"}
    call = {"step_id": "c", "type": "tool_call", "tool_name": "t", "arguments": {"a": 1}}
    trace = Trace.from_dict({**data, "steps": [call]})
    for kind, hits in (("int", 0), ("str", 1), ("int", 0)):
        policy = Policy.from_dict(
            {"policy_id": "p", "allowed_tools": {"t": {"required_arguments": {"a": kind}}}}
        )
        result = rule_result(REGISTRY["ARH-SCH-004"], trace, policy)
        assert len(result.hits) == hits


def test_duplicate_step_ids_are_still_reported() -> None:
    data = {"trace_id": "t", "agent_name": "a", "workflow": "w"}
    steps = [{"step_id": i, "type": "model_response", "text": "x"} for i in "aba"]
    trace = Trace.from_dict({**data, "steps": steps})
    policy = Policy.from_dict({"policy_id": "p"})
    result = rule_result(REGISTRY["ARH-SCH-010"], trace, policy)
    assert [(h.step_index, h.message) for h in result.hits] == [(0, "step_id 'a' occurs 2 times")]
