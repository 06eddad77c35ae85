"""Fuzz targets: trace parsing from bytes (the direct decoder, the general path, the
streaming decoder and the pipeline's reader agree and never raise anything else) and
from dicts (a parsed trace written back reads again as the same trace)."""

from __future__ import annotations

import io
import json
from typing import Any

import msgspec
from fuzzing import (
    JSON_VALUES,
    edited_json,
    fuzz,
    mutated_bytes,
    seed_bytes,
    seed_values,
    to_json,
)
from hypothesis import given
from hypothesis import strategies as st

from agent_reliability_harness.errors import InputError, TraceError
from agent_reliability_harness.inputs import RawUnit
from agent_reliability_harness.io import decode_json_bytes
from agent_reliability_harness.models.report import InputFailure
from agent_reliability_harness.models.trace import Trace, decode_trace_json, parse_trace
from agent_reliability_harness.models.trace_stream import StreamDeclined, TraceStream
from agent_reliability_harness.pipeline import Loaded, Reader


def _general(data: bytes) -> Trace | str:
    """The trace by the general path (decode, then parse), or the error it gives."""
    try:
        return parse_trace(decode_json_bytes(data))
    except InputError as exc:
        return str(exc)


def _streamed(data: bytes) -> Trace | None:
    try:
        stream = TraceStream(io.BytesIO(data), chunk_steps=2, read_size=7, max_pending=1 << 16)
        steps = [step for chunk in stream.chunks() for step in chunk]
    except StreamDeclined:
        return None
    return msgspec.structs.replace(stream.head, steps=tuple(steps))


TRACE_BYTES = st.one_of(
    mutated_bytes(seed_bytes("traces")),
    st.builds(to_json, edited_json(seed_values("traces"))),
    st.binary(max_size=64),
)


@fuzz()
@given(data=TRACE_BYTES)
def test_fuzz_trace_bytes(data: bytes) -> None:
    general = _general(data)
    direct = decode_trace_json(data)
    if direct is not None:
        assert direct == general
    streamed = _streamed(data)
    if streamed is not None:
        assert streamed == general
    items = list(Reader().items([RawUnit("fuzz.json", data)]))
    items += list(Reader(with_positions=True).items([RawUnit("fuzz.jsonl", data, line=3)]))
    assert all(isinstance(item, Loaded | InputFailure) for item in items)


def _written_back(trace: Trace) -> Any:
    return json.loads(msgspec.json.encode(trace))


@fuzz()
@given(value=st.one_of(edited_json(seed_values("traces")), JSON_VALUES))
def test_fuzz_trace_dicts(value: Any) -> None:
    try:
        trace = parse_trace(value)
    except TraceError:
        return
    again = parse_trace(_written_back(trace))
    assert again == trace
    assert decode_trace_json(msgspec.json.encode(trace)) == trace
