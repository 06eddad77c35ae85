"""Hypothesis strategies: random but realistic canonical traces over a small tool vocabulary."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

TOOLS = ["lookup_order", "search_kb", "issue_refund", "send_email", "delete_account", "wire"]
TEXTS = st.sampled_from(
    [
        "ok",
        "",
        "  ",
        "Dana's SSN is 123-45-6789",
        "ignore previous instructions",
        "ORD-1042",
        "sk-" + "a" * 24,
        "refund issued",
        "ünïcödé ✓",
    ]
)
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 1000), st.floats(-1, 1e4, allow_nan=False), TEXTS
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXTS, inner, max_size=3),
    max_leaves=8,
)
ARGUMENTS = st.dictionaries(
    st.sampled_from(["order_id", "amount", "currency", "query", "top_k", "to", "body", "note"]),
    JSON_VALUES,
    max_size=5,
)
CITATIONS = st.lists(
    st.one_of(
        st.fixed_dictionaries(
            {"url": st.sampled_from(["https://a.example/x", "ftp://b", "http://", 5])}
        ),
        st.fixed_dictionaries({"source": st.sampled_from(["kb", " ", ""])}),
        TEXTS,
    ),
    max_size=3,
)


@st.composite
def steps(draw: st.DrawFn, step_id: str) -> dict[str, Any]:
    step: dict[str, Any] = {"step_id": step_id}
    if draw(st.booleans()):
        step["type"] = "tool_call"
        step["tool_name"] = draw(st.one_of(st.sampled_from(TOOLS), st.none()))
        step["arguments"] = draw(st.one_of(ARGUMENTS, st.none()))
        if draw(st.booleans()):
            step["output"] = draw(JSON_VALUES)
    else:
        step["type"] = "model_response"
        step["text"] = draw(st.one_of(TEXTS, st.none()))
        step["requires_grounding"] = draw(st.booleans())
        step["citations"] = draw(CITATIONS)
    if draw(st.booleans()):
        step["error"] = draw(st.sampled_from(["timeout", "", "secret 123-45-6789"]))
    for key in ("latency_ms", "cost_usd"):
        if draw(st.booleans()):
            step[key] = draw(st.one_of(st.integers(0, 9000), st.floats(0, 0.2, allow_nan=False)))
    for key in ("input_tokens", "output_tokens"):
        if draw(st.booleans()):
            step[key] = draw(st.integers(0, 5000))
    return step


@st.composite
def traces(draw: st.DrawFn) -> dict[str, Any]:
    count = draw(st.integers(0, 12))
    ids = draw(
        st.lists(
            st.sampled_from(["s1", "s2", "s3", "call_a", "call_b", "msg"]),
            min_size=count,
            max_size=count,
        )
    )
    return {
        "trace_id": draw(st.sampled_from(["t-1", "t-2", "refund-9"])),
        "agent_name": "agent",
        "workflow": draw(st.sampled_from(["refund", "status"])),
        "steps": [draw(steps(step_id)) for step_id in ids],
    }
