"""TraceStream against the whole-document decode (`decode_trace_json`).

Whatever the stream finishes without declining equals the whole decode (compared with
== and by repr, so 1 and 1.0 differ), start line included; whatever the whole decode
refuses, the stream declines. Ordinary files, in every usual layout, never decline.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import corpus
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_reliability_harness.io import start_line
from agent_reliability_harness.models import trace_stream
from agent_reliability_harness.models.trace import Trace, decode_trace_json
from agent_reliability_harness.models.trace_stream import MAX_FAILED, StreamDeclined, TraceStream
from agent_reliability_harness.nesting import MAX_DEPTH
from strategies import traces

pytestmark = pytest.mark.slow  # an equivalence oracle (see pyproject.toml)

CHUNK_STEPS = st.sampled_from([1, 2, 3, 7, 4096])
READ_SIZES = st.sampled_from([1, 5, 16, 64, 4096, 1 << 20])


class Trickle(io.RawIOBase):
    """A handle that returns at most `most` bytes per read, like a pipe."""

    def __init__(self, data: bytes, most: int) -> None:
        self._data, self._at, self._most = data, 0, most

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        take = self._most if size < 0 else min(size, self._most)
        piece = self._data[self._at : self._at + take]
        self._at += len(piece)
        return piece


def stream(
    data: bytes,
    chunk_steps: int = 3,
    read_size: int = 64,
    max_pending: int = 64 << 20,
    trickle: int = 0,
) -> tuple[Trace, int, TraceStream] | None:
    """(the streamed trace, its start line, the stream), or None if it declined."""
    with io.BytesIO(data) as handle:
        source: Any = Trickle(data, trickle) if trickle else handle
        reader = TraceStream(source, chunk_steps, read_size, max_pending)
        steps: list[Any] = []
        try:
            for chunk in reader.chunks():
                assert isinstance(chunk, tuple) and 0 < len(chunk) <= chunk_steps
                steps.extend(chunk)
        except StreamDeclined:
            return None
    # Every chunk but the last is full.
    return msgspec.structs.replace(reader.head, steps=tuple(steps)), reader.start_line, reader


def agrees(data: bytes, **options: Any) -> bool:
    """Asserts the stream agrees with the whole decode; True if it did not decline."""
    got = stream(data, **options)
    if got is None:
        return False
    trace, line, _ = got
    whole = decode_trace_json(data)
    assert whole is not None, data[:300]
    assert trace == whole
    assert repr(trace) == repr(whole)
    assert line == start_line(data)
    return True


# -- ordinary files, in every usual layout, stream -----------------------------------

STYLES: dict[str, dict[str, Any]] = {
    "compact": {"separators": (",", ":")},
    "spaced": {},
    "indent": {"indent": 2},
}
TRICKY = st.sampled_from(
    [
        "},{",
        "}, {",
        "]",
        "],",
        '"steps"',
        '"steps":[',
        '{"steps": []}',
        '},{"step_id":"x","type":"tool_call"},{',
        '"',
        "\\",
        '\\"',
        "\\\\",
        "]}\n",
        "ünïcödé ✓ \u2028",
    ]
)
NESTED = st.recursive(
    TRICKY | st.integers(0, 9) | st.floats(0, 9, allow_nan=False),
    lambda inner: (
        st.lists(st.dictionaries(TRICKY, inner, max_size=2), max_size=3)
        | st.dictionaries(TRICKY, inner, max_size=2)
    ),
    max_leaves=10,
)
HEAD_EXTRAS = st.fixed_dictionaries(
    {},
    optional={
        "schema_version": st.sampled_from(["1", "1.0", "1.7"]),
        "source": st.sampled_from([None, "otel", "},{"]),
        "metadata": st.dictionaries(TRICKY, NESTED, max_size=3),
    },
)


@st.composite
def tricky_traces(draw: st.DrawFn) -> dict[str, Any]:
    """Generated traces with strings full of JSON punctuation and nested arrays of
    objects inside steps, plus the optional top-level fields."""
    trace = draw(traces())
    for step in trace["steps"]:
        if draw(st.booleans()):
            step[draw(st.sampled_from(["arguments", "metadata"]))] = draw(
                st.dictionaries(TRICKY, NESTED, max_size=3)
            )
        if draw(st.booleans()):
            step["output"] = draw(NESTED)
        if draw(st.booleans()):
            step["text"] = draw(TRICKY)
    trace.update(draw(HEAD_EXTRAS))
    return trace


def serialize(
    members: list[tuple[str, Any]], style: str, ascii_only: bool = True, lead: str = ""
) -> bytes:
    """A JSON object with these members in this order (duplicates kept), in a style."""
    options = {**STYLES[style], "ensure_ascii": ascii_only}
    colon = ":" if style == "compact" else ": "
    parts = [
        json.dumps(k, ensure_ascii=ascii_only) + colon + json.dumps(v, **options)
        for k, v in members
    ]
    if style == "indent":
        text = "{\n  " + ",\n  ".join(parts) + "\n}\n" if parts else "{}"
    else:
        text = "{" + ("," if style == "compact" else ", ").join(parts) + "}"
    return (lead + text).encode()


@st.composite
def layouts(draw: st.DrawFn) -> bytes:
    """A generated trace written in one of the usual layouts: compact, spaced or
    indented, ASCII or not, the steps key anywhere among the top-level keys, leading
    and trailing whitespace."""
    trace = draw(tricky_traces())
    steps = trace.pop("steps")
    head = draw(st.permutations(list(trace.items())))
    at = draw(st.integers(0, len(head)))
    members = [*head[:at], ("steps", steps), *head[at:]]
    lead = draw(st.sampled_from(["", "\n", "  \n\t\r\n "]))
    data = serialize(members, draw(st.sampled_from(list(STYLES))), draw(st.booleans()), lead)
    return data + draw(st.sampled_from([b"", b"\n", b" \r\n\t "]))


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(layouts(), CHUNK_STEPS, READ_SIZES)
def test_usual_layouts_stream_and_equal_the_whole_decode(
    data: bytes, chunk_steps: int, read_size: int
) -> None:
    assert agrees(data, chunk_steps=chunk_steps, read_size=read_size)


@given(layouts(), st.integers(1, 9))
def test_short_reads_stream_too(data: bytes, most: int) -> None:
    assert agrees(data, chunk_steps=2, read_size=64, trickle=most)


@given(tricky_traces(), st.sampled_from(list(STYLES)), st.data())
def test_head_fields_split_around_the_steps_with_the_last_duplicate_winning(
    trace: dict[str, Any], style: str, data: st.DataObject
) -> None:
    steps = trace.pop("steps")
    head = list(trace.items())
    before = [m for m in head if data.draw(st.booleans())]
    after = [m for m in head if m not in before or data.draw(st.booleans())]
    # A field given again after the steps, with another value: the later one wins.
    if before and data.draw(st.booleans()):
        changed = {"metadata": {"x": [1]}, "schema_version": "1.5"}
        after.append((before[0][0], changed.get(before[0][0], "changed")))
    encoded = serialize([*before, ("steps", steps), *after], style)
    assert decode_trace_json(encoded) is not None
    assert agrees(encoded, chunk_steps=data.draw(CHUNK_STEPS), read_size=data.draw(READ_SIZES))


def test_the_benchmark_long_trace_streams(tmp_path: Path) -> None:
    path = tmp_path / "long.json"
    path.write_text("".join(corpus.long_trace(5000)), encoding="utf-8")
    data = path.read_bytes()
    whole = decode_trace_json(data)
    assert whole is not None and len(whole.steps) == 5000
    for chunk_steps, read_size in [(4096, 1 << 20), (100, 4096), (7, 1000)]:
        with path.open("rb") as handle:
            reader = TraceStream(handle, chunk_steps=chunk_steps, read_size=read_size)
            chunks = list(reader.chunks())
        assert [len(c) for c in chunks[:-1]] == [chunk_steps] * (len(chunks) - 1)
        streamed = msgspec.structs.replace(reader.head, steps=tuple(s for c in chunks for s in c))
        assert streamed == whole and repr(streamed) == repr(whole)
        assert reader.start_line == 1
        # Every candidate cut was real: the only refused decode is the one that
        # finds the end of the steps array.
        assert reader.failed == 1


HEAD = b'{"trace_id":"t","agent_name":"a","workflow":"w",'
STEP = b'{"step_id":"s1","type":"tool_call","tool_name":"x"'
STEPS = STEP + b"}," + STEP + b',"output":[{"a":1},{"b":[2]}]}'

ACCEPTED = [
    HEAD + b'"steps":[]}',
    HEAD + b'"steps":[ \n ]}',
    b'{"steps":[],"trace_id":"t","agent_name":"a","workflow":"w"}',
    b'{"steps":[' + STEPS + b'],"trace_id":"t","agent_name":"a","workflow":"w"}',
    HEAD + b'"steps":[' + STEPS + b"]}",
    HEAD + b'"steps" :\n[\n' + STEPS + b"\n]\n}\n\n",
    b"\n\n  \r\n" + HEAD + b'"steps":[' + STEPS + b"]}",  # starts on line 4
    HEAD + b'"metadata":{"steps":[1],"a\\"steps":[2]},"steps":[' + STEPS + b"]}",
    HEAD + b'"source":"\\"steps\\":[","steps":[' + STEPS + b"]}",
    HEAD + b'"steps":[' + STEP + b',"text":"},{\\"step_id\\":\\"x\\"},{"}]}',
    HEAD + b'"steps":[' + STEP + b',"text":"}  ,  {"},' + STEP + b',"text":"\\\\"}]}',
    HEAD + b'"steps":[' + STEP + b',"text":"caf\xc3\xa9 \\u00e9"}],"source":"]}"}',
    HEAD + b'"steps":[' + STEPS + b'],"metadata":{"x":[{"a":[]},{"b":"]"}]},"source":null}',
    b'{"trace_id":"old","agent_name":"a","steps":[' + STEPS + b'],"trace_id":"new","workflow":"w"}',
    HEAD + b'"steps":[' + STEP + b',"arguments":{"a":1,"a":"two"}}]}',
    HEAD + b'"steps":[],"schema_version":"1.7"}',
]


@pytest.mark.parametrize("data", ACCEPTED)
@pytest.mark.parametrize("read_size", [1, 7, 64, 4096])
def test_edge_cases_stream(data: bytes, read_size: int) -> None:
    assert agrees(data, chunk_steps=1, read_size=read_size)
    assert agrees(data, chunk_steps=4096, read_size=read_size)


def test_the_later_of_duplicate_head_fields_wins() -> None:
    got = stream(ACCEPTED[13])
    assert got is not None and got[0].trace_id == "new"


DECLINED = [
    b"\xef\xbb\xbf" + HEAD + b'"steps":[]}',  # BOM: the whole decode refuses it too
    b'[{"trace_id":"t","agent_name":"a","workflow":"w","steps":[]}]',
    HEAD + b'"steps":[' + STEPS + b"]",  # not closed
    HEAD + b'"steps":[' + STEPS + b"]}}",
    HEAD + b'"steps":[' + STEPS + b"]} x",
    HEAD + b'"steps":[' + STEPS + b",]}",  # trailing comma
    HEAD + b'"steps":[' + STEPS + b"],}",
    HEAD + b'"steps":[' + STEPS + b'],"steps":[]}',  # a second steps key
    HEAD + b'"steps":[],"steps":[' + STEPS + b"]}",
    b'{"steps":[' + STEPS + b'],"trace_id":"t","agent_name":"a","workflow":"w","steps":[]}',
    HEAD + b'"steps":[' + STEPS + b'],"extra":1}',
    b'{"extra":1,"trace_id":"t","agent_name":"a","workflow":"w","steps":[]}',
    HEAD + b'"steps":[' + STEP + b',"extra":1}]}',
    HEAD + b'"steps":[' + STEP + b',"text":"\xff"}]}',
    HEAD + b'"steps":[' + STEP + b',"text":"\\ud800"}]}',
    HEAD + b'"steps":[' + STEP + b',"latency_ms":1e400}]}',
    HEAD + b'"steps":[' + STEP + b"}," + STEP + b',"type":"thought"}]}',
    HEAD + b'"steps":[],"schema_version":"2"}',
    HEAD + b'"steps":[],"schema_version":null}',
    b'{"trace_id":"t","agent_name":"a","steps":[]}',  # workflow missing
    b'{"trace_id":"t","agent_name":"a","steps":[],"workflow":1}',
    HEAD + b'"steps":[1,' + STEP + b"}]}",
    HEAD + b'"steps":{}}',
    HEAD + b'"metadata":{"steps":[' + STEPS + b"]}}",  # no top-level steps
    b"",
    b"   ",
]


@pytest.mark.parametrize("data", DECLINED)
@pytest.mark.parametrize("read_size", [1, 64, 4096])
def test_invalid_or_ambiguous_inputs_decline(data: bytes, read_size: int) -> None:
    assert stream(data, chunk_steps=1, read_size=read_size) is None


def test_a_second_steps_key_is_what_the_whole_decode_keeps() -> None:
    # Why the stream declines it: the last duplicate wins in the whole decode.
    for data in DECLINED[7:10]:
        whole = decode_trace_json(data)
        assert whole is not None and len(whole.steps) == (2 if data is DECLINED[8] else 0)


# -- anything else: the stream declines or agrees ------------------------------------

MUTATIONS = st.sampled_from(
    [
        "delete",
        "insert",
        "replace",
        "truncate",
        "append",
        "duplicate-head",
        "duplicate-tail",
        "unknown-step",
        "unknown-head",
        "steps-before",
        "steps-after",
    ]
)
BYTES = st.sampled_from([*b'{}[],:"\\ \n0a-.e\xff\x80', 0xC3])


def mutate(data: bytes, how: str, at: int, byte: int) -> bytes:
    at %= len(data) + 1
    close = data.rstrip().rfind(b"}")
    match how:
        case "delete":
            return data[:at] + data[at + 1 :]
        case "insert":
            return data[:at] + bytes([byte]) + data[at:]
        case "replace":
            return data[:at] + bytes([byte]) + data[at + 1 :]
        case "truncate":
            return data[:at]
        case "append":
            return data + bytes([byte])
        case "duplicate-head":
            return data.replace(b"{", b'{"trace_id":"dup",', 1)
        case "duplicate-tail":
            return data[:close] + b',"workflow":"dup"' + data[close:]
        case "unknown-step":
            return data.replace(b'{"step_id"', b'{"zz":1,"step_id"', 1)
        case "unknown-head":
            return data[:close] + b',"zz":1' + data[close:]
        case "steps-before":
            return data.replace(b"{", b'{"steps":[],', 1)
        case _:  # steps-after
            return data[:close] + b',"steps":[]' + data[close:]


@settings(max_examples=75, suppress_health_check=[HealthCheck.too_slow])
@given(
    layouts(),
    st.lists(st.tuples(MUTATIONS, st.integers(0, 10**6), BYTES), min_size=1, max_size=3),
    CHUNK_STEPS,
    READ_SIZES,
)
def test_mutated_inputs_decline_or_agree(
    data: bytes, edits: list[tuple[str, int, int]], chunk_steps: int, read_size: int
) -> None:
    for how, at, byte in edits:
        data = mutate(data, how, at, byte)
    agrees(data, chunk_steps=chunk_steps, read_size=read_size)


# -- nesting depth, memory and work bounds ---------------------------------------------


def _nested(call: Any, frames: int) -> Any:
    return call() if frames <= 0 else _nested(call, frames - 1)


def _deep(where: str, depth: int) -> bytes:
    nested = b'{"a":[' * depth + b"1" + b"]}" * depth
    if where == "head":
        return HEAD + b'"metadata":' + nested + b',"steps":[' + STEPS + b"]}"
    if where == "tail":
        return HEAD + b'"steps":[' + STEPS + b'],"metadata":' + nested + b"}"
    if where == "middle":
        return HEAD + b'"steps":[' + STEP + b',"output":' + nested + b"}," + STEPS + b"]}"
    return HEAD + b'"steps":[' + STEPS + b"," + STEP + b',"arguments":{"x":' + nested + b"}}]}"


@pytest.mark.parametrize(
    ("where", "outside"), [("head", 1), ("middle", 3), ("last", 4), ("tail", 1)]
)
def test_stream_and_whole_decode_refuse_exactly_past_the_depth_limit(
    where: str, outside: int
) -> None:
    """`outside` levels enclose the nested value (the trace object, steps, ...), and each
    step of `depth` adds two; the document may nest MAX_DEPTH deep."""
    for depth in range(245, 260):
        data = _deep(where, depth)
        got = stream(data, chunk_steps=1, read_size=4096)
        whole = decode_trace_json(data)
        if outside + 2 * depth <= MAX_DEPTH:
            assert got is not None and whole is not None, depth
            assert repr(got[0]) == repr(whole)
        else:
            assert got is None and whole is None, depth


def test_a_step_longer_than_max_pending_declines() -> None:
    big = STEP + b',"text":"' + b"x" * 5000 + b'"}'
    data = HEAD + b'"steps":[' + STEPS + b"," + big + b"," + STEPS + b"]}"
    assert stream(data, read_size=256, max_pending=4000) is None
    assert agrees(data, read_size=256, max_pending=6000)


def test_a_long_head_declines() -> None:
    before = HEAD + b'"metadata":{"x":"' + b"y" * 5000 + b'"},"steps":[' + STEPS + b"]}"
    assert stream(before, read_size=256, max_pending=4000) is None
    assert agrees(before, read_size=256, max_pending=6000)
    after = HEAD + b'"steps":[' + STEPS + b'],"metadata":{"x":"' + b"y" * 5000 + b'"}}'
    assert stream(after, read_size=256, max_pending=4000) is None
    assert agrees(after, read_size=256, max_pending=6000)


def _hostile(fake_cuts: int) -> bytes:
    """A step whose text holds `fake_cuts` cut points that are not real, among normal steps."""
    fake = b'},{\\"step_id\\":\\"x\\",\\"type\\":\\"tool_call\\"},{' * fake_cuts
    normal = b",".join([STEP + b"}"] * 50)
    return (
        HEAD + b'"steps":[' + normal + b"," + STEP + b',"text":"' + fake + b'"},' + normal + b"]}"
    )


@pytest.mark.parametrize("fake_cuts", [1000, 100_000])
def test_hostile_fake_cut_points_cost_linear_work(fake_cuts: int) -> None:
    data = _hostile(fake_cuts)
    got = stream(data, chunk_steps=7, read_size=4096)
    assert got is not None and got[0] == decode_trace_json(data)
    reader = got[2]
    # A failed search tries at most MAX_FAILED cut points and the next one waits for
    # twice the data: the refused decodes grow with the logarithm of the size.
    assert reader.failed <= MAX_FAILED * (math.log2(len(data) / 4096) + 3)
    assert reader.decoded_bytes <= 3 * MAX_FAILED * len(data)


def test_many_fake_steps_keys_in_the_head_are_bounded() -> None:
    fake = b'\\"steps\\":[' * 10_000
    data = HEAD + b'"source":"' + fake + b'","steps":[' + STEPS + b"]}"
    assert agrees(data, read_size=4096)
    nested = b'{"metadata":' + b'{"steps":[],"a":' * 100 + b"1" + b"}" * 100 + b"}"
    data = nested[:-1] + b',"trace_id":"t","agent_name":"a","workflow":"w","steps":[]}'
    assert decode_trace_json(data) is not None
    got = stream(data, read_size=4096)  # more than MAX_FAILED fake keys: declined
    assert got is None


# -- the interface ---------------------------------------------------------------------


def test_head_and_start_line_need_the_whole_stream() -> None:
    reader = TraceStream(io.BytesIO(HEAD + b'"steps":[' + STEPS + b"]}"), chunk_steps=1)
    chunks: Iterator[tuple[Any, ...]] = reader.chunks()
    next(chunks)
    with pytest.raises(StreamDeclined):
        _ = reader.head
    with pytest.raises(StreamDeclined):
        _ = reader.start_line
    assert len(list(chunks)) == 1
    assert reader.head.steps == () and reader.start_line == 1
    with pytest.raises(StreamDeclined):
        next(reader.chunks())


def test_the_head_holds_every_field_of_trace() -> None:
    assert trace_stream._Head.__struct_fields__ == Trace.__struct_fields__
    with pytest.raises(ValueError):
        TraceStream(io.BytesIO(b""), chunk_steps=0)


def test_a_file_of_another_shape_is_given_up_after_max_prefix_bytes() -> None:
    """A span export (no top-level steps array) is not read to its end before declining,
    and a trace whose steps start late still streams when max_prefix allows it."""
    export = json.dumps({"resourceSpans": [{"spans": [{"name": "x" * 50}] * 40_000}]}).encode()
    assert len(export) > 2_000_000
    handle = io.BytesIO(export)
    reader = TraceStream(handle, read_size=1 << 16, max_prefix=1 << 20)
    with pytest.raises(StreamDeclined):
        list(reader.chunks())
    assert handle.tell() < (1 << 20) + (1 << 17)
    late = {"metadata": {"pad": "y" * 300_000}, **_simple_trace()}
    data = json.dumps(late).encode()
    with pytest.raises(StreamDeclined):
        list(TraceStream(io.BytesIO(data), read_size=1 << 12, max_prefix=1 << 16).chunks())
    assert agrees(data, read_size=1 << 12)


def _simple_trace() -> dict[str, Any]:
    return {
        "trace_id": "t",
        "agent_name": "a",
        "workflow": "w",
        "steps": [{"step_id": f"s{i}", "type": "model_response", "text": "ok"} for i in range(50)],
    }
