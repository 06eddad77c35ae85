"""The one trace decoder against the explainer that words its refusals.

Whatever the decoder refuses, the explainer finds a reason for (the fallback wording,
which quotes msgspec, never shows); whatever it accepts, the explainer finds nothing
wrong with, and the Trace holds the values as TRACE-SPEC.md reads them.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness.errors import TraceError
from agent_reliability_harness.models.common import Status
from agent_reliability_harness.models.trace import Step, Trace, parse_trace
from agent_reliability_harness.models.trace_explain import _check_trace, explain
from helpers import make_trace

_ANY = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-5, max_value=2**64),
    st.sampled_from([2**53 + 1, 2**63 - 1, 2**63, 2**1024, 10**400, 3.0, -1.0, 2.5]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
_STEP_FIELDS = {
    "step_id": st.one_of(st.text(max_size=4), _ANY),
    "type": st.one_of(st.sampled_from(["tool_call", "model_response", "other"]), _ANY),
    "tool_name": _ANY,
    "arguments": _ANY,
    "text": _ANY,
    "citations": _ANY,
    "latency_ms": _ANY,
    "cost_usd": _ANY,
    "requires_grounding": _ANY,
    "output": _ANY,
    "status": st.one_of(st.sampled_from(["ok", "error", "bad"]), _ANY),
    "error": _ANY,
    "input_tokens": _ANY,
    "output_tokens": _ANY,
    "metadata": _ANY,
    "unknown": _ANY,
}
_ROLES = st.sampled_from(["user", "system", "developer", "tool", 3, None])
_TRACE_FIELDS = {
    "schema_version": st.one_of(st.sampled_from(["1", "1.1", "2", "01"]), _ANY),
    "source": _ANY,
    "metadata": _ANY,
    "inputs": st.one_of(
        _ANY,
        st.lists(st.fixed_dictionaries({"role": _ROLES, "text": _ANY}, optional={"x": _ANY})),
    ),
    "task_id": _ANY,
    "outcome": st.one_of(
        _ANY, st.fixed_dictionaries({}, optional={"success": _ANY, "reward": _ANY, "x": _ANY})
    ),
    "extra": _ANY,
}


@st.composite
def _traces(draw: st.DrawFn) -> Any:
    steps = draw(st.lists(st.fixed_dictionaries({}, optional=_STEP_FIELDS), max_size=3))
    data: dict[str, Any] = make_trace(*steps)
    data.update(draw(st.fixed_dictionaries({}, optional=_TRACE_FIELDS)))
    for key in ("trace_id", "agent_name", "workflow", "steps"):
        if draw(st.integers(0, 20)) == 0:
            data[key] = draw(_ANY)
    return data


def _decision(data: Any) -> tuple[Trace | None, TraceError | None]:
    try:
        return parse_trace(data), None
    except TraceError as exc:
        return None, exc


@settings(max_examples=300)
@given(_traces())
def test_the_explainer_refuses_exactly_what_the_decoder_refuses(data: Any) -> None:
    trace, error = _decision(data)
    try:
        _check_trace(data)
    except TraceError as explained:
        assert trace is None and str(error) == str(explained)
    else:
        assert trace is not None, error
        _reads_as_the_spec_says(data, trace)


def _reads_as_the_spec_says(data: dict[str, Any], trace: Trace) -> None:
    assert trace.schema_version == (data.get("schema_version") or "1")
    assert trace.metadata == (data.get("metadata") or {})
    task_id = data.get("task_id")
    if isinstance(task_id, float):  # an integral float is an integer (3.0 -> "3")
        task_id = int(task_id)
    assert trace.task_id == (None if task_id is None else str(task_id))
    for raw, step in zip(data["steps"], trace.steps, strict=True):
        status = raw.get("status")
        want = Status(status) if status else Status.ERROR if raw.get("error") else Status.OK
        assert step.status is want
        assert step.citations == tuple(raw.get("citations") or ())
        assert step.requires_grounding is bool(raw.get("requires_grounding"))
        assert step.metadata == (raw.get("metadata") or {})
        for key in ("latency_ms", "cost_usd", "output", "arguments", "text", "tool_name"):
            assert repr(getattr(step, key)) == repr(raw.get(key)), key
        for key in ("input_tokens", "output_tokens"):
            value = raw.get(key)
            assert getattr(step, key) == (None if value is None else int(value))
            assert type(getattr(step, key)) in (int, type(None))


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ({"type": "tool_call"}, "step steps[0]: field 'step_id' is required"),
        ({"step_id": 4, "type": "tool_call"}, "field 'step_id' must be a string (got number)"),
        ({"step_id": "s", "type": "thought"}, "field 'type' must be 'tool_call' or"),
        ({"step_id": "s", "type": "tool_call", "status": "done"}, "field 'status' must be"),
        ({"step_id": "s", "type": "tool_call", "latency_ms": math.inf}, "'latency_ms' must be"),
        ({"step_id": "s", "type": "tool_call", "latency_ms": 2**1024}, "'latency_ms' must be"),
        ({"step_id": "s", "type": "tool_call", "input_tokens": 2.5}, "must be an integer >= 0"),
        ({"step_id": "s", "type": "tool_call", "input_tokens": 2**63}, "must be an integer >= 0"),
        ({"step_id": "s", "type": "tool_call", "citations": "x"}, "'citations' must be an array"),
    ],
)
def test_refusals_name_the_step_and_field(step: dict[str, Any], message: str) -> None:
    with pytest.raises(TraceError, match=r"^trace 't1': ") as caught:
        parse_trace(make_trace(step))
    assert message in str(caught.value)


def test_nulls_unknown_keys_and_integral_floats_read_as_the_spec_says() -> None:
    step = {"step_id": "s", "type": "tool_call", "status": None, "error": "boom"}
    step |= {"citations": None, "input_tokens": 12.0, "x-vendor": {"deep": [1]}}
    trace = parse_trace(make_trace(step, task_id=7, metadata=None, extra="ignored"))
    assert trace.task_id == "7" and trace.metadata == {}
    assert trace.steps[0].status is Status.ERROR and trace.steps[0].citations == ()
    assert trace.steps[0].input_tokens == 12 and type(trace.steps[0].input_tokens) is int


def test_big_integers_stay_exact_and_a_step_parses_alone() -> None:
    step = Step.from_dict({"step_id": "s", "type": "tool_call", "latency_ms": 2**60 + 1}, 3)
    assert step.latency_ms == 2**60 + 1
    with pytest.raises(TraceError, match=r"step 's' \(steps\[3\]\): field 'cost_usd'"):
        Step.from_dict({"step_id": "s", "type": "tool_call", "cost_usd": -1}, 3)


def test_the_fallback_wording_is_the_decoders_own() -> None:
    refusal = msgspec.ValidationError("Expected `str`, got `int`")
    assert str(explain(make_trace(), refusal)) == "invalid trace: Expected `str`, got `int`"
