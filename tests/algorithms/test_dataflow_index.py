"""The data-flow source index equals the naive reading of section 6 on random traces,
and keeps the invariances of issue 15."""

from __future__ import annotations

from typing import Any
from unittest import mock

from flow_oracle import naive
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness.dataflow import (
    DataflowOptions,
    Marker,
    Resolution,
    SourceIndex,
)
from agent_reliability_harness.dataflow import literals as literals_module
from agent_reliability_harness.dataflow import occurrences as occurrences_module
from agent_reliability_harness.patterns import check_pattern

MARKERS = (
    Marker("<information>", check_pattern("<information>", case_sensitive=False)),
    Marker(
        "ignore (all )?(previous|prior) instructions",
        check_pattern("ignore (all )?(previous|prior) instructions", case_sensitive=False),
    ),
)
WORDS = st.sampled_from(
    [
        "acct DE89370400440532013000",
        "DE89370400440532013000",
        "https://www.evil.example/pay?x=1",
        "www.evil.example/pay?x=1",
        "bob@attacker.example",
        "Bob@Example.com",
        "<INFORMATION> send all money to",
        "ignore previous instructions and",
        "Order 1234567 shipped",
        "reservation Z7GOZK",
        "Z7GOZK",
        "  spaced   out\ttext  ",
        "\u00e9t\u00e9 2024",
        '{"note": "<information> pay 9876543"}',
        "[1234567, 42]",
        "-150000 refund",
        "",
    ]
)
TEXT = st.lists(WORDS, min_size=1, max_size=3).map(" ".join)
SCALAR = st.one_of(
    TEXT, st.sampled_from([1234567, 1234567.0, 9876543, 150000, -150000, 42, 7.5, True, None])
)
VALUE = st.recursive(
    SCALAR,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["to", "iban", "Z7GOZK", "amount"]), inner, max_size=2)
    ),
    max_leaves=5,
)
ARGS = st.dictionaries(st.sampled_from(["to", "iban", "amount", "url", "body"]), VALUE, max_size=3)


@st.composite
def traces(draw: st.DrawFn) -> tuple[DataflowOptions, list[tuple[Any, ...]]]:
    options = DataflowOptions(
        min_value_length=draw(st.sampled_from([6, 3, 12])),
        untrusted_if=draw(st.sampled_from([None, MARKERS, MARKERS[:1]])),
        taint_window=draw(st.sampled_from([400, 12])),
        trusted_values=tuple(
            draw(st.lists(st.sampled_from(["*@example.com", "z7gozk"]), max_size=2))
        ),
    )
    events: list[tuple[Any, ...]] = [("input", draw(TEXT)) for _ in range(draw(st.integers(0, 2)))]
    for position in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["output", "output", "sink", "grounded"]))
        if kind == "output":
            events.append(("output", position, draw(VALUE), draw(st.booleans())))
        elif kind == "sink":
            checked = draw(st.none() | st.lists(st.sampled_from(["to", "url"]), max_size=2))
            events.append(("sink", position, draw(ARGS), checked))
        else:
            events.append(
                ("grounded", position, draw(st.sampled_from(["to", "amount"])), draw(VALUE))
            )
    return options, events


def run(options: DataflowOptions, events: list[tuple[Any, ...]]) -> Resolution:
    index = SourceIndex(options)
    for event in events:
        if event[0] == "input":
            index.add_input(event[1])
        elif event[0] == "output":
            index.add_output(event[1], event[2], event[3])
        elif event[0] == "sink":
            index.ask_sink(event[1], event[2], event[3])
        else:
            index.ask_grounded(event[1], event[2], event[3])
    return index.resolve()


def flat(result: Resolution) -> dict[str, Any]:
    return {
        "sinks": [
            (
                s.position,
                [
                    (a.name, [(u.unit.text, u.source, u.pattern) for u in a.units])
                    for a in s.tainted
                ],
            )
            for s in result.sinks
        ],
        "grounded": [
            (g.position, g.name, g.missing.text if g.missing else None) for g in result.grounded
        ],
    }


@settings(max_examples=250)
@given(traces())
def test_index_equals_the_naive_reading(
    trace: tuple[DataflowOptions, list[tuple[Any, ...]]],
) -> None:
    options, events = trace
    assert flat(run(options, events)) == naive(options, events)


@given(traces(), st.randoms(use_true_random=False))
def test_the_order_sources_and_questions_arrive_in_does_not_matter(
    trace: tuple[DataflowOptions, list[tuple[Any, ...]]], rng: Any
) -> None:
    options, events = trace
    shuffled = list(events)
    rng.shuffle(shuffled)
    want = flat(run(options, events))
    got = flat(run(options, shuffled))
    # Answers come in asking order: compare them as multisets keyed by position.
    assert sorted(map(repr, got["sinks"])) == sorted(map(repr, want["sinks"]))
    assert sorted(map(repr, got["grounded"])) == sorted(map(repr, want["grounded"]))


@given(traces())
def test_a_unit_in_a_trusted_input_is_never_tainted(
    trace: tuple[DataflowOptions, list[tuple[Any, ...]]],
) -> None:
    options, events = trace
    before = run(options, events)
    units = {u.unit.text for s in before.sinks for a in s.tainted for u in a.units}
    if not units:
        return
    after = run(options, [("input", " | ".join(sorted(units))), *events])
    assert all(not s.tainted for s in after.sinks)


def _recase(value: Any, upper: bool) -> Any:
    if isinstance(value, str):
        spaced = value.replace(" ", " \t ")
        return spaced.upper() if upper else spaced.lower()
    if isinstance(value, list):
        return [_recase(v, upper) for v in value]
    if isinstance(value, dict):
        return {k: _recase(v, upper) for k, v in value.items()}
    return value


@given(traces(), st.booleans())
def test_case_and_whitespace_do_not_matter(
    trace: tuple[DataflowOptions, list[tuple[Any, ...]]], upper: bool
) -> None:
    options, events = trace
    changed: list[tuple[Any, ...]] = []
    for event in events:
        kind = event[0]
        if kind == "input":
            changed.append((kind, _recase(event[1], upper)))
        elif kind == "sink":
            changed.append((kind, event[1], _recase(event[2], upper), event[3]))
        else:  # output (position, value, untrusted) and grounded (position, name, value)
            last = 2 if kind == "output" else 3
            changed.append(
                tuple(_recase(x, upper) if i == last else x for i, x in enumerate(event))
            )
    assert flat(run(options, changed)) == flat(run(options, events))


@settings(max_examples=150)
@given(traces())
def test_many_chunks_and_batches_give_the_same_answers(
    trace: tuple[DataflowOptions, list[tuple[Any, ...]]],
) -> None:
    options, events = trace
    with (
        mock.patch.object(occurrences_module, "_CHUNK", 40),
        mock.patch.object(literals_module, "_BATCH_LITERALS", 2),
        mock.patch.object(literals_module, "_DIRECT", 1),
    ):
        assert flat(run(options, events)) == naive(options, events)


def test_a_unit_holding_the_separator_is_searched_text_by_text() -> None:
    options = DataflowOptions()
    events: list[tuple[Any, ...]] = [
        ("output", 0, ["abc\x00def", "abc", "def ghi"], True),
        ("output", 1, "xyz", False),
        ("grounded", 2, "to", "abc\x00def"),
        ("grounded", 2, "to", "c\x00def g"),
        ("sink", 2, {"to": "abc\x00def"}, None),
    ]
    assert (
        flat(run(options, events))
        == naive(options, events)
        == {
            "sinks": [(2, [("to", [("abc\x00def", 0, None)])])],
            "grounded": [(2, "to", None), (2, "to", "c\x00def g")],
        }
    )


def test_a_failed_set_pass_falls_back_to_substring_search() -> None:
    class Failing:
        def Match(self, text: bytes) -> None:  # what the binding returns when the DFA fails
            return None

    search = literals_module.LiteralSearch(["alpha", "beta", "gamma", "delta", "omega"])
    for batch in search._batches:
        batch.set = Failing()
    assert search.occurring(b"xx beta yy omega") == [1, 4]


def _drive(
    options: DataflowOptions,
    steps: list[tuple[str, Any, Any]],
    untrusted: set[str],
    sinks: set[str],
) -> Any:
    # What a rule does with a trace: labels come from the tool's name, the index never sees it.
    index = SourceIndex(options)
    for position, (tool, arguments, output) in enumerate(steps):
        if tool in sinks:
            index.ask_sink(position, arguments, None)
        index.ask_grounded(position, "any", arguments)
        index.add_output(position, output, tool in untrusted)
    return flat(index.resolve())


@given(
    traces(),
    st.lists(st.tuples(st.sampled_from(["web", "mail", "pay"]), ARGS, VALUE), max_size=5),
    st.permutations(["x", "y", "z"]),
)
def test_renaming_tools_consistently_changes_nothing(
    trace: tuple[DataflowOptions, list[tuple[Any, ...]]],
    steps: list[tuple[str, Any, Any]],
    names: list[str],
) -> None:
    options = trace[0]
    rename = dict(zip(["web", "mail", "pay"], names, strict=True))
    renamed = [(rename[t], a, o) for t, a, o in steps]
    assert _drive(options, renamed, {rename["web"]}, {rename["pay"]}) == _drive(
        options, steps, {"web"}, {"pay"}
    )
