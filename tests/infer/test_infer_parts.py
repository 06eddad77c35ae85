"""The pieces of `arh infer`, each against hand-made cases: id shapes and their patterns,
call-order chains, trajectories, the numbers written, and the --good-if language."""

from __future__ import annotations

from decimal import Decimal
from itertools import permutations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_reliability_harness.infer.good import Selection, parse_good_if
from agent_reliability_harness.infer.numbers import budget, call_limit, round_up, widened
from agent_reliability_harness.infer.order import acyclic, chains, holding_pairs
from agent_reliability_harness.infer.shapes import ShapeSummary
from agent_reliability_harness.infer.trajectory import common_subsequence, expected_calls
from agent_reliability_harness.patterns import FullMatcher


@pytest.mark.parametrize(
    ("values", "pattern"),
    [
        (["ORD-1234", "ORD-99999"], "ORD-[0-9]+"),
        (["mia_li_3668", "raj_sanchez_7340"], "[a-z]+_[a-z]+_[0-9]+"),  # unpadded: a counter
        (["4WQ150", "ZFA04Y", "8JX2WO"], "[A-Z0-9]{6}"),  # random ids: one coarse segment
        (["2024-05-15", "2024-06-01"], "[0-9]+-[0-9]{2}-[0-9]{2}"),  # never literal; 05: padded
        (["JFK", "SEA"], "[A-Z]{3}"),
        (["credit_card_7815826", "gift_card_1234567"], "[a-z]+_card_[0-9]+"),
        (["0042", "1234"], "[0-9]{4}"),
        (["HAT170", "HAT045"], "HAT[0-9]{3}"),
        (["item-1", "item-7"], "item-[0-9]+"),  # one digit: a counter
        (
            ["550e8400-e29b-41d4-a716-446655440000", "6ba7b810-9dad-11d1-80b4-00c04fd430c8"],
            "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        ),
        (["a.b+c", "d.e+f9"], "[a-z]+\\.[a-z]+\\+[a-z0-9]+"),
        (["economy", "business"], None),  # words: an enum says it better
        (["same-1", "other id"], None),  # a space: not an id
        (["ORD-1", "ORD_2"], None),  # different separators
        (["x" * 65, "y" * 65], None),  # too long
    ],
)
def test_shapes(values: list[str], pattern: str | None) -> None:
    summary = ShapeSummary()
    for value in values:
        summary.add(value)
    assert summary.pattern() == pattern
    if pattern is not None:
        assert all(FullMatcher(pattern).fullmatch(v) for v in values)


ID_VALUES = st.lists(
    st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.:/@+-]{0,20}", fullmatch=True), min_size=1, max_size=8
)


@given(ID_VALUES, st.integers(0, 8))
def test_every_value_fits_and_merging_in_any_split_gives_the_same(
    values: list[str], cut: int
) -> None:
    whole = ShapeSummary()
    for value in values:
        whole.add(value)
    left, right = ShapeSummary(), ShapeSummary()
    for value in values[:cut]:
        left.add(value)
    for value in values[cut:]:
        right.add(value)
    left.merge(right)
    assert (left.values, left.fine, left.coarse) == (whole.values, whole.fine, whole.coarse)
    pattern = whole.pattern()
    if pattern is not None:
        assert all(FullMatcher(pattern).fullmatch(v) for v in values)


def test_pairs_hold_in_every_run_and_chains_cover_exactly_them() -> None:
    before = {
        ("a", "b"): 3,
        ("b", "c"): 3,
        ("a", "c"): 3,
        ("c", "d"): 1,
        ("d", "e"): 2,
        ("e", "d"): 1,
    }
    pairs = holding_pairs(before, 2)
    assert pairs == {("a", "b"): 3, ("b", "c"): 3, ("a", "c"): 3}
    assert chains(pairs) == [["a", "b", "c"]]
    # A cycle across runs that never met: the weakest pair is dropped.
    cyclic = acyclic({("x", "y"): 5, ("y", "z"): 4, ("z", "x"): 2})
    assert cyclic == {("x", "y"): 5, ("y", "z"): 4}
    # Pairs that are not transitive become separate chains: no pair is invented.
    found = chains({("a", "b"): 2, ("b", "c"): 2})
    checked = {(x, y) for chain in found for i, x in enumerate(chain) for y in chain[i + 1 :]}
    assert checked == {("a", "b"), ("b", "c")}


@given(
    st.dictionaries(
        st.tuples(st.sampled_from("abcde"), st.sampled_from("abcde")), st.integers(1, 5)
    )
)
def test_chains_never_check_a_pair_that_was_not_accepted(
    before: dict[tuple[str, str], int],
) -> None:
    before = {pair: n for pair, n in before.items() if pair[0] != pair[1]}
    pairs = acyclic(holding_pairs(before, 1))
    found = chains(pairs)
    checked = {(x, y) for chain in found for i, x in enumerate(chain) for y in chain[i + 1 :]}
    assert checked == set(pairs)
    assert all(len(set(chain)) == len(chain) for chain in found)


def test_trajectory_keeps_common_calls_and_shared_arguments() -> None:
    runs = [
        [("get", '{"id":1}'), ("list", "{}"), ("book", '{"id":1,"seat":"2A"}')],
        [("get", '{"id":1}'), ("book", '{"id":1,"seat":"3C"}'), ("pay", "{}")],
        [("think", "{}"), ("get", '{"id":1}'), ("book", '{"id":1,"seat":"2A"}')],
    ]
    assert expected_calls(runs) == [
        {"tool": "get", "arguments": {"id": 1}},
        {"tool": "book", "arguments": {"id": 1}},
    ]
    assert expected_calls([[("a", "{}")], [("b", "{}")]]) == []
    assert common_subsequence(list("abcab"), list("bacb")) in (
        list("acb"),
        list("bab"),
        list("bcb"),
        list("aab"),
    )


@given(st.lists(st.lists(st.sampled_from("abc"), max_size=6), min_size=1, max_size=4))
def test_the_common_calls_are_in_every_run(runs: list[list[str]]) -> None:
    calls = [[(tool, "{}") for tool in run] for run in runs]
    tools = [entry["tool"] for entry in expected_calls(calls)]
    for run in runs:
        it = iter(run)
        assert all(tool in it for tool in tools)  # a subsequence of the run


def test_numbers() -> None:
    assert round_up(Decimal("0.4567")) == Decimal("0.46")
    assert round_up(Decimal("12340")) == Decimal("13000")
    assert budget([10.0] * 19 + [100.0], Decimal(100)) == Decimal(100)  # never below the top
    assert budget([float(n) for n in range(1, 101)], Decimal(100)) == Decimal(120)
    assert widened(Decimal("5.12"), Decimal("400"), False) == (Decimal(0), Decimal(499))
    assert widened(Decimal(-10), Decimal(10), True) == (Decimal(-15), Decimal(15))
    assert widened(Decimal(5), Decimal(5), True) == (Decimal(3), Decimal(7))
    assert [call_limit(n) for n in (1, 3, 4, 10)] == [1, 3, 5, 13]


def test_good_if() -> None:
    expression = parse_good_if("reward >= 1 or success == true and note == 'x'")
    assert expression.holds({"reward": 1.0})
    assert expression.holds({"success": True, "note": "x"})
    assert not expression.holds({"success": True, "note": "y", "reward": 0.5})
    assert not expression.holds({"reward": "1"}) and not expression.holds(None)
    assert parse_good_if("success").holds({"success": True})
    assert not parse_good_if("success == 1").holds({"success": True})  # a bool is no number
    for bad in ("", "reward >", "and", "reward >= 1 or", "reward ~ 1", "true"):
        with pytest.raises(ValueError):
            parse_good_if(bad)
    default = Selection()
    assert [default.bucket(o) for o in ({"success": True}, {"reward": 1}, None)] == [
        "good",
        None,
        "maybe",
    ]
    assert default.good(None, any_outcome=False) and not default.good(None, any_outcome=True)


def test_permutations_of_runs_give_the_same_pairs() -> None:
    runs = [["a", "b", "c"], ["a", "c"], ["b", "c"]]
    results = set()
    for order in permutations(runs):
        before: dict[tuple[str, str], int] = {}
        for run in order:
            for i, x in enumerate(run):
                for y in run[i + 1 :]:
                    before[(x, y)] = before.get((x, y), 0) + 1
        results.add(tuple(map(tuple, chains(acyclic(holding_pairs(before, 2))))))
    assert results == {(("a", "c"), ("b", "c"))}  # (a, b) has one run only
