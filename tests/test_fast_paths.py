"""Fast paths give exactly what the general code gives: step parsing, sums, pattern screening."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness.errors import TraceError
from agent_reliability_harness.models.trace import Trace, _fast_step, _parse_step_full
from agent_reliability_harness.patterns import PatternSet
from agent_reliability_harness.rules.facts import TraceFacts, _decimal_sum
from agent_reliability_harness.rules.safety import blob_texts, text_blobs

_ANY = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-5, max_value=2**64),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
_FIELDS = {
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
}


@settings(max_examples=600, deadline=None)
@given(st.fixed_dictionaries({}, optional=_FIELDS))
def test_fast_step_parser_agrees_with_full_parser(data: dict[str, Any]) -> None:
    fast = _fast_step(data)
    try:
        full = _parse_step_full(data, 0)
    except TraceError:
        assert fast is None
        return
    assert fast is None or fast == full


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(0, 10**30), st.floats(0, 1e30)), max_size=8))
def test_latency_total_is_the_decimal_sum(values: list[Any]) -> None:
    trace = Trace.from_dict(
        {
            "trace_id": "t",
            "agent_name": "a",
            "workflow": "w",
            "steps": [
                {"step_id": f"s{i}", "type": "model_response", "latency_ms": v}
                for i, v in enumerate(values)
            ],
        }
    )
    facts = TraceFacts(trace)
    if all(v is None for v in values):
        assert facts.latency_total is None
    else:
        expected = _decimal_sum(values)
        assert facts.latency_total == expected
        assert str(facts.latency_total) == str(expected)
    assert _decimal_sum([]) == Decimal(0)


_TEXT = st.text(alphabet="ab !\n\u00e9", max_size=12)
_PATTERNS = ["^a", "b$", "^ab$", r"\ba", r"\Bb", "a b", "(a+)+$", "^$", r"\s", "é$", "(?i)A$"]


@settings(max_examples=500, deadline=None)
@given(st.lists(_TEXT, max_size=5), st.lists(st.sampled_from(_PATTERNS), min_size=1, max_size=3))
def test_screening_never_hides_a_match(texts: list[str], patterns: list[str]) -> None:
    compiled = PatternSet(patterns)
    texts = [t for t in texts if t]
    if any(compiled.matches(t) for t in texts):
        assert compiled.may_match_any(texts)


@pytest.mark.parametrize("pattern", [r"\Aab", r"ab\z", r"ab\Z", "(?-m)^ab"])
def test_text_anchored_patterns_are_not_screened(pattern: str) -> None:
    assert PatternSet([pattern]).may_match_any(["zz", "never"])


def test_blob_texts_follow_text_blobs() -> None:
    trace = Trace.from_dict(
        {
            "trace_id": "t",
            "agent_name": "a",
            "workflow": "w",
            "steps": [
                {
                    "step_id": "s",
                    "type": "tool_call",
                    "tool_name": "x",
                    "text": "t",
                    "arguments": {"a": ["1", {"b": "2", "c": ""}, 3], "d": "4"},
                    "output": [["5"], {"e": {"f": "6"}}, "7", None],
                    "error": "8",
                }
            ],
        }
    )
    step = trace.steps[0]
    assert blob_texts(step) == [text for _, text in text_blobs(step)] == list("t1245678")
