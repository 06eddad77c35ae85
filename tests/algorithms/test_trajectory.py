"""Expected-trajectory matching, case by case: every mode and option of section 5."""

from __future__ import annotations

from typing import Any

import pytest

from agent_reliability_harness.trajectory import (
    ArgumentsMatch,
    ExpectedCall,
    MatchMode,
    ToolFilter,
    TrajectoryMatcher,
    TrajectorySpec,
    json_equal,
    match_trajectory,
    strip_arguments,
)

E = ExpectedCall
EXACT, SUBSET, IGNORE = ArgumentsMatch.EXACT, ArgumentsMatch.SUBSET, ArgumentsMatch.IGNORE


def run(
    expected: list[ExpectedCall],
    calls: list[tuple[str, dict[str, Any] | None]],
    match: MatchMode = MatchMode.IN_ORDER,
    **options: Any,
) -> tuple[list[tuple[int, int]], list[tuple[int, int | None]], list[int], int, int]:
    spec = TrajectorySpec(tuple(expected), match, **options)
    result = match_trajectory(spec, [(t, a, n) for n, (t, a) in enumerate(calls)])
    missing = [(m.entry, m.nearest.position if m.nearest else None) for m in result.missing]
    return list(result.matched), missing, list(result.unexpected), result.checks, result.failed


SPEC_EXAMPLE = [
    E("get_user_details", {"user_id": "mia_li_3668"}),
    E("book_reservation", {"origin": "JFK", "destination": "SEA"}, SUBSET),
    E("send_certificate", optional=True),
]


def test_spec_example_passes_and_an_expected_tool_is_never_ignored() -> None:
    calls = [
        ("list_all_airports", {}),
        ("get_user_details", {"user_id": "mia_li_3668", "request_id": "r1"}),
        ("search_direct_flight", {"origin": "JFK"}),
        ("book_reservation", {"origin": "JFK", "destination": "SEA", "cabin": "economy"}),
    ]
    options = {"ignore_tools": ("get_*", "list_*"), "ignore_arguments": frozenset({"request_id"})}
    assert run(SPEC_EXAMPLE, calls, **options) == ([(0, 1), (1, 3)], [], [], 2, 0)
    # strict: the search call is an extra; the ignored list_* call is not.
    assert run(SPEC_EXAMPLE, calls, MatchMode.STRICT, **options) == (
        [(0, 1), (1, 3)],
        [],
        [2],
        5,
        1,
    )


def test_missing_booking_names_the_nearest_call_of_the_tool() -> None:
    calls = [
        ("get_user_details", {"user_id": "mia_li_3668"}),
        ("book_reservation", {"origin": "EWR", "destination": "LAX"}),
        ("book_reservation", {"origin": "JFK", "destination": "LAX"}),
    ]
    spec = TrajectorySpec(tuple(SPEC_EXAMPLE))
    result = match_trajectory(spec, [(t, a, 100 + n) for n, (t, a) in enumerate(calls)])
    (missing,) = result.missing
    assert missing.entry == 1
    assert missing.nearest is not None
    assert (missing.nearest.position, missing.nearest.equal_keys) == (102, 1)
    assert missing.nearest.arguments == {"origin": "JFK", "destination": "LAX"}
    assert (result.checks, result.failed) == (2, 1)


def test_nearest_ties_go_to_the_earliest_and_matched_calls_are_skipped() -> None:
    expected = [E("refund", {"order": "A", "amount": 5}), E("refund", {"order": "B", "amount": 7})]
    calls = [
        ("refund", {"order": "A", "amount": 5}),
        ("refund", {"order": "C", "amount": 1}),
        ("refund", {"order": "D", "amount": 2}),
    ]
    assert run(expected, calls) == ([(0, 0)], [(1, 1)], [], 2, 1)


def test_missing_without_any_call_of_the_tool_has_no_nearest() -> None:
    assert run([E("cancel", {"id": "Z7GOZK"})], [("book", {"id": "Z7GOZK"})]) == (
        [],
        [(0, None)],
        [],
        1,
        1,
    )


def test_in_order_is_optimal_not_greedy_on_repeated_tools() -> None:
    # Greedy would give the first search to entry 0 and lose entry 2.
    expected = [E("search"), E("book", {"id": 1}), E("search", {"q": "late"})]
    calls = [("search", {"q": "early"}), ("book", {"id": 1}), ("search", {"q": "late"})]
    assert run(expected, calls)[:2] == ([(0, 0), (1, 1), (2, 2)], [])
    expected = [E("search", {"q": "late"}), E("search")]
    calls = [("search", {"q": "x"}), ("search", {"q": "late"}), ("search", {"q": "y"})]
    assert run(expected, calls)[:2] == ([(0, 1), (1, 2)], [])


def test_earliest_calls_win_among_optimal_alignments() -> None:
    assert run([E("a"), E("a")], [("a", {})] * 4) == ([(0, 0), (1, 1)], [], [], 2, 0)
    # One call, two entries: the earlier entry takes it.
    assert run([E("a"), E("a")], [("a", {})])[:2] == ([(0, 0)], [(1, None)])


def test_order_matters_in_ordered_modes_only() -> None:
    expected = [E("a"), E("b")]
    calls = [("b", {}), ("a", {})]
    assert run(expected, calls) == ([(0, 1)], [(1, 0)], [], 2, 1)
    assert run(expected, calls, MatchMode.STRICT) == ([(0, 1)], [(1, 0)], [0], 4, 2)
    for mode in (MatchMode.UNORDERED, MatchMode.SUPERSET, MatchMode.SUBSET):
        assert run(expected, calls, mode)[:3] == ([(0, 1), (1, 0)], [], [])


def test_duplicate_calls_count_in_modes_that_forbid_extras() -> None:
    expected = [E("pay", {"amount": 10})]
    calls = [("pay", {"amount": 10}), ("pay", {"amount": 10})]
    assert run(expected, calls, MatchMode.STRICT) == ([(0, 0)], [], [1], 3, 1)
    assert run(expected, calls, MatchMode.UNORDERED) == ([(0, 0)], [], [1], 3, 1)
    assert run(expected, calls, MatchMode.SUBSET) == ([(0, 0)], [], [1], 3, 1)
    assert run(expected, calls, MatchMode.SUPERSET) == ([(0, 0)], [], [], 1, 0)
    assert run(expected, calls) == ([(0, 0)], [], [], 1, 0)


def test_subset_never_reports_missing_entries() -> None:
    expected = [E("a"), E("b")]
    assert run(expected, [("a", {})], MatchMode.SUBSET) == ([(0, 0)], [], [], 3, 0)
    assert run(expected, [], MatchMode.SUBSET) == ([], [], [], 2, 0)
    assert run(expected, [("c", {})], MatchMode.SUBSET) == ([], [], [0], 3, 1)


def test_optional_entries_may_be_absent_in_every_mode_and_absorb_calls() -> None:
    expected = [E("a"), E("note", optional=True), E("b")]
    for mode in MatchMode:
        assert run(expected, [("a", {}), ("b", {})], mode)[1:3] == ([], [])
        assert run(expected, [("a", {}), ("note", {}), ("b", {})], mode)[1:3] == ([], [])
    # An optional entry never outweighs a required one.
    expected = [E("x", optional=True), E("x", optional=True), E("y")]
    calls = [("y", {}), ("x", {}), ("x", {})]
    assert run(expected, calls, MatchMode.STRICT) == ([(2, 0)], [], [1, 2], 4, 2)


def test_strict_equals_expected_in_order() -> None:
    expected = [E("a", {"n": 1}), E("b")]
    assert run(expected, [("a", {"n": 1}), ("b", {})], MatchMode.STRICT) == (
        [(0, 0), (1, 1)],
        [],
        [],
        4,
        0,
    )
    assert run(expected, [("a", {"n": 2}), ("b", {})], MatchMode.STRICT) == (
        [(1, 1)],
        [(0, 0)],
        [0],
        4,
        2,
    )


@pytest.mark.parametrize(
    ("expected", "actual", "exact", "subset"),
    [
        ({"n": 2}, {"n": 2.0}, True, True),
        ({"n": 1}, {"n": True}, False, False),
        ({"n": 0}, {"n": False}, False, False),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True, True),
        ({"a": 1}, {"a": 1, "b": 2}, False, True),
        ({"a": 1, "b": 2}, {"a": 1}, False, False),
        ({"a": [1, {"k": 2.0}]}, {"a": [1.0, {"k": 2}]}, True, True),
        ({"a": {"k": 1}}, {"a": {"k": 1, "j": 2}}, False, False),  # nested values are exact
        ({"a": "1"}, {"a": 1}, False, False),
        ({"a": None}, {}, False, False),
        ({}, {}, True, True),
        ({}, {"x": 1}, False, True),
    ],
)
def test_arguments_match(
    expected: dict[str, Any], actual: dict[str, Any], exact: bool, subset: bool
) -> None:
    for mode, want in ((EXACT, exact), (SUBSET, subset), (IGNORE, True)):
        got = run([E("t", expected, mode)], [("t", actual)])[0]
        assert (got == [(0, 0)]) is want, mode


def test_section_default_and_entry_override() -> None:
    calls = [("t", {"a": 1, "b": 2})]
    assert run([E("t", {"a": 1})], calls, arguments_match=SUBSET)[0] == [(0, 0)]
    assert run([E("t", {"a": 1}, EXACT)], calls, arguments_match=SUBSET)[0] == []
    assert run([E("t", {"a": 9})], calls, arguments_match=IGNORE)[0] == [(0, 0)]
    assert run([E("t")], [("t", None)])[0] == [(0, 0)]


def test_ignore_arguments_leaves_keys_out_of_both_sides() -> None:
    drop = {"ignore_arguments": frozenset({"request_id"})}
    calls = [("t", {"a": 1, "request_id": "r-9"})]
    assert run([E("t", {"a": 1})], calls, **drop)[0] == [(0, 0)]
    assert run([E("t", {"a": 1, "request_id": "other"})], calls, **drop)[0] == [(0, 0)]
    assert run([E("t", {"a": 1})], calls)[0] == []
    assert strip_arguments(None, frozenset()) == {}
    assert strip_arguments({"a": 1, "b": 2}, frozenset({"b"})) == {"a": 1}


def test_ignore_tools_globs_are_case_sensitive_fnmatch() -> None:
    spec = TrajectorySpec((E("get_order"),), ignore_tools=("get_*", "think"))
    tools = ToolFilter(spec)
    assert [
        tools.ignores(t) for t in ("get_user", "GET_user", "think", "thinker", "get_order")
    ] == [
        True,
        False,
        True,
        False,
        False,
    ]
    matcher = TrajectoryMatcher(TrajectorySpec((E("a"),), MatchMode.STRICT, ignore_tools=("t*",)))
    assert matcher.add("think", {}, 0) is False
    assert matcher.add("a", {}, 1) is True
    assert matcher.finish().considered == 1


def test_no_expected_entries() -> None:
    assert run([], [("a", {})], MatchMode.STRICT) == ([], [], [0], 1, 1)
    assert run([], [("a", {})]) == ([], [], [], 0, 0)


def test_json_equal() -> None:
    assert json_equal(1, 1.0) and json_equal({"a": [1]}, {"a": [1.0]})
    assert not json_equal(True, 1) and not json_equal(1, True) and not json_equal(None, False)
    assert not json_equal([1, 2], [1]) and not json_equal({"a": 1}, {"b": 1})
    assert json_equal(2**60, 2**60) and not json_equal(2**60 + 1, float(2**60))


def test_long_trace_with_a_few_expected_calls() -> None:
    calls: list[tuple[str, dict[str, Any] | None, int]] = [
        ("search", {"q": f"item {n}"}, n) for n in range(60_000)
    ]
    calls[40_000] = ("cancel", {"id": "Z7GOZK"}, 40_000)
    calls[50_000] = ("search", {"q": "late"}, 50_000)
    expected = (E("cancel", {"id": "Z7GOZK"}), E("search", {"q": "late"}), E("refund"))
    for mode in MatchMode:
        result = match_trajectory(TrajectorySpec(expected, mode), calls)
        if mode is MatchMode.SUBSET:
            assert [m.entry for m in result.missing] == []
        else:
            assert [m.entry for m in result.missing] == [2]
        assert result.matched == ((0, 40_000), (1, 50_000))
        assert len(result.unexpected) == (59_998 if mode.forbids_extras else 0)
