"""The JSON position scanner: fixed cases, and a property test against a json-built reference."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness.api import iter_traces
from agent_reliability_harness.io import Document
from agent_reliability_harness.positions import TracePosition, locate_traces, trace_positions

pytestmark = pytest.mark.usefixtures("at_repo_root")  # inputs are read by relative path


def test_single_object() -> None:
    text = '\n\n{"trace_id": "t",\n "steps": [\n  {"step_id": "a"},\n\n  {"step_id": "b"}]}\n'
    assert trace_positions(text) == [TracePosition(3, (5, 7))]


def test_array_of_traces_and_nested_steps_keys_ignored() -> None:
    text = (
        "[\n"
        ' {"metadata": {"steps": [1, 2]}, "steps": [\n'
        '   {"x": "a \\" ] } [ {"},\n'
        '   [], 3, "s", null]},\n'
        ' {"steps": "not a list"},\n'
        " 7\n"
        "]"
    )
    assert trace_positions(text) == [
        TracePosition(2, (3, 4, 4, 4, 4)),
        TracePosition(5, ()),
        TracePosition(6, ()),
    ]


def test_crlf_line_ends() -> None:
    text = '{"trace_id": "t",\r\n "steps": [\r\n {},\r\n {}]}'
    assert trace_positions(text) == [TracePosition(1, (3, 4))]


def test_repeated_steps_key_keeps_the_last_like_json() -> None:
    text = '{"steps": [{}, {}],\n "steps": [\n{}]}'
    assert trace_positions(text) == [TracePosition(1, (3,))]
    assert len(json.loads(text)["steps"]) == 1


def test_escaped_key_spelling() -> None:
    text = '{"st\\u0065ps": [\n{}]}'
    assert trace_positions(text) == [TracePosition(1, (2,))]


def test_jsonl_document_uses_its_line_number() -> None:
    text = '{"trace_id": "t", "steps": [{}, {}]}'
    value = json.loads(text)
    doc = Document("f.jsonl", value, line=7, start_line=7, text=text)
    assert locate_traces(doc, [value]) == [(7, (7, 7))]


def test_adapter_built_trace_gets_document_line_only() -> None:
    text = '\n{"messages": []}'
    doc = Document("f.json", json.loads(text), start_line=2, text=text)
    assert locate_traces(doc, [{"trace_id": "built", "steps": []}]) == [(2, ())]


def test_without_text_no_positions() -> None:
    assert locate_traces(Document("f.json", {}), [{}]) is None


def test_iter_traces_positions_only_on_request() -> None:
    plain = list(iter_traces(["tests/data/samples/traces/refund-ok.json"]))
    located = list(iter_traces(["tests/data/samples/traces/refund-ok.json"], with_positions=True))
    assert plain[0].step_lines == ()  # type: ignore[union-attr]
    assert located[0].step_lines == (7, 16, 25, 34)  # type: ignore[union-attr]


# --- property: scanner lines == lines of the offsets where a writer put each value ---

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.sampled_from('ab"\\[]{}:,\n\t\u00e9 steps'), max_size=12),
)
_json = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["steps", "a", "b", 'k"']), inner, max_size=3),
    ),
    max_leaves=8,
)
_space = st.sampled_from(["", " ", "\n", " \n  ", "\n\n", "\t"])


class _Writer:
    """Serialises piece by piece, remembering where trace and step values start."""

    def __init__(self, draw: Any) -> None:
        self.draw = draw
        self.parts: list[str] = []
        self.size = 0

    def put(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)

    def gap(self) -> None:
        self.put(self.draw(_space))

    def value(self, value: Any) -> int:
        """Write a JSON value (multi-line at random) and return its start offset."""
        self.gap()
        start = self.size
        indent = self.draw(st.sampled_from([None, 0, 1, 2]))
        self.put(json.dumps(value, indent=indent))
        self.gap()
        return start

    def line_of(self, offset: int) -> int:
        return "".join(self.parts)[:offset].count("\n") + 1


@st.composite
def _documents(draw: Any) -> tuple[str, list[tuple[int, list[int]]]]:
    writer = _Writer(draw)
    as_array = draw(st.booleans())
    count = draw(st.integers(1, 3)) if as_array else 1
    offsets: list[tuple[int, list[int]]] = []
    if as_array:
        writer.gap()
        writer.put("[")
    for number in range(count):
        if number:
            writer.put(",")
        writer.gap()
        trace_start = writer.size
        writer.put("{")
        other = draw(
            st.dictionaries(st.sampled_from(["trace_id", "metadata", "x"]), _json, max_size=3)
        )
        steps = draw(st.lists(_json, max_size=4))
        keys = list(other)
        keys.insert(draw(st.integers(0, len(keys))), "steps")
        step_starts: list[int] = []
        for position, key in enumerate(keys):
            if position:
                writer.put(",")
            writer.gap()
            writer.put(json.dumps(key))
            writer.gap()
            writer.put(":")
            if key != "steps":
                writer.value(other[key])
                continue
            writer.gap()
            writer.put("[")
            for index, step in enumerate(steps):
                if index:
                    writer.put(",")
                step_starts.append(writer.value(step))
            writer.gap()
            writer.put("]")
        writer.gap()
        writer.put("}")
        offsets.append((trace_start, step_starts))
    if as_array:
        writer.gap()
        writer.put("]")
    text = "".join(writer.parts)
    json.loads(text)  # the writer only produces valid JSON
    expected = [(writer.line_of(t), [writer.line_of(s) for s in ss]) for t, ss in offsets]
    return text, expected


@settings(max_examples=150, deadline=None)
@given(_documents())
def test_scanner_agrees_with_reference(case: tuple[str, list[tuple[int, list[int]]]]) -> None:
    text, expected = case
    found = [(p.line, list(p.step_lines)) for p in trace_positions(text)]
    assert found == expected


# --- property: a document on one line is located without the scanner, as the scanner would ---

_traces = st.one_of(
    _json,
    st.fixed_dictionaries(
        {"steps": st.one_of(st.lists(_json, max_size=4), _json)},
        optional={"trace_id": st.text(max_size=3), "metadata": _json},
    ),
)


@settings(max_examples=150, deadline=None)
@given(
    value=st.one_of(_traces, st.lists(_traces, max_size=3)),
    line=st.integers(1, 9),
    tail=st.sampled_from(["", "\n", " \r\n", "\t"]),
    repeat_steps=st.booleans(),
)
def test_one_line_documents_are_located_as_the_scanner_locates_them(
    value: Any, line: int, tail: str, repeat_steps: bool
) -> None:
    text = json.dumps(value)
    if repeat_steps and isinstance(value, dict) and "steps" in value:
        text = '{"steps": [1, 2, 3], ' + text[1:]  # a duplicate key: the last one counts
    text += tail
    decoded = json.loads(text)
    elements = decoded if isinstance(decoded, list) else [decoded]
    doc = Document("f.jsonl", decoded, line=line, start_line=line, text=text)
    offset = line - 1
    expected = [
        (p.line + offset, tuple(n + offset for n in p.step_lines)) for p in trace_positions(text)
    ]
    assert "\n" not in text.rstrip()
    assert locate_traces(doc, elements) == expected
