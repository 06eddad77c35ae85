"""Junk into every adapter gives AdapterError or TraceError, never another exception."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_reliability_harness.adapters import ADAPTERS, to_canonical
from agent_reliability_harness.errors import AdapterError, TraceError
from agent_reliability_harness.models.trace import parse_trace

HERE = Path(__file__).resolve().parent
FIXTURES = sorted((HERE / "fixtures").rglob("*.json"))
NAMES = [a.name for a in ADAPTERS]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(
        [
            "assistant",
            "tool",
            "user",
            "model",
            "function_call",
            "tool_use",
            "text",
            "message",
            "trace.span",
            "execute_tool",
            "chat",
            "{",
            "{}",
            "[]",
            # the framework/SDK formats (make_sdk_fixtures.py)
            "request",
            "response",
            "tool-call",
            "tool-return",
            "GENERATION",
            "TOOL",
            "SPAN",
            "2.0",
            "tools/call",
            "tools/list",
            "human",
            "ai",
            "constructor",
            "LLM",
            "CHAIN",
            "ERROR",
        ]
    ),
)
keys = st.one_of(
    st.text(max_size=8),
    st.sampled_from(
        [
            "role",
            "content",
            "type",
            "tool_calls",
            "function",
            "arguments",
            "id",
            "call_id",
            "parts",
            "candidates",
            "usage",
            "output",
            "choices",
            "message",
            "span_data",
            "data",
            "object",
            "resourceSpans",
            "scopeSpans",
            "spans",
            "attributes",
            "tool_use_id",
            "input",
            "name",
            "is_error",
            "tool_plan",
            "kind",
            "part_kind",
            "tool_call_id",
            "tool_name",
            "args",
            "jsonrpc",
            "method",
            "params",
            "result",
            "isError",
            "observations",
            "startTime",
            "traceId",
            "parentObservationId",
            "level",
            "run_type",
            "child_runs",
            "parent_run_id",
            "inputs",
            "outputs",
            "lc",
            "kwargs",
            "eval",
            "samples",
            "messages",
            "scores",
            "events",
            "openinference.span.kind",
        ]
    ),
)
junk = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(keys, inner, max_size=6)),
    max_leaves=40,
)


def run(value: Any, fmt: str) -> None:
    try:
        traces = to_canonical(value, fmt, "junk")
    except AdapterError:
        return
    json.dumps(traces, allow_nan=False)  # whatever an adapter returns must be strict JSON
    for trace in traces:
        with contextlib.suppress(TraceError):
            parse_trace(trace)


@pytest.mark.parametrize("fmt", ["auto", *NAMES])
@settings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=junk)
def test_random_json(fmt: str, value: Any) -> None:
    run(value, fmt)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            found += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += _paths(v, (*prefix, i))
    return found


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: (_replace(v, rest, new) if k == head else v) for k, v in value.items()}
    return [_replace(v, rest, new) if i == head else v for i, v in enumerate(value)]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_fixtures(data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(FIXTURES), label="fixture")
    value = json.loads(path.read_text(encoding="utf-8"))
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        paths = _paths(value)
        target = paths[data.draw(st.integers(0, len(paths) - 1), label="where")]
        value = _replace(value, target, data.draw(junk, label="junk"))
    run(value, path.parent.name)
    run(value, "auto")
