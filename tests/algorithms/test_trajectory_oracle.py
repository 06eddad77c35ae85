"""Trajectory matching equals the brute-force optimum on every small input, in every mode,
and keeps the acceptance properties of issue 15 (renaming, ignored calls, superset)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from traj_oracle import brute_match

from agent_reliability_harness.trajectory import (
    ArgumentsMatch,
    ExpectedCall,
    MatchMode,
    TrajectoryResult,
    TrajectorySpec,
    match_trajectory,
)

TOOLS = ["a", "b", "c", "get_x"]
VALUES = st.sampled_from([1, 1.0, 2, True, False, "1", "x", None, [1], {"k": 1}, {"k": 1.0}])
ARGS = st.dictionaries(st.sampled_from(["x", "y", "rid"]), VALUES, max_size=3)
MODES = st.sampled_from(list(MatchMode))
ARG_MODES = st.sampled_from(list(ArgumentsMatch))

ENTRIES = st.lists(
    st.builds(
        ExpectedCall,
        tool=st.sampled_from(TOOLS[:3]),
        arguments=st.none() | ARGS,
        arguments_match=st.none() | ARG_MODES,
        optional=st.booleans(),
    ),
    max_size=4,
)
CALL_LISTS = st.lists(st.tuples(st.sampled_from(TOOLS), st.none() | ARGS), max_size=6)


@st.composite
def specs(draw: st.DrawFn, mode: st.SearchStrategy[MatchMode] = MODES) -> TrajectorySpec:
    return TrajectorySpec(
        expected=tuple(draw(ENTRIES)),
        match=draw(mode),
        arguments_match=draw(ARG_MODES),
        ignore_tools=tuple(draw(st.lists(st.sampled_from(["get_*", "c"]), max_size=2))),
        ignore_arguments=frozenset(draw(st.lists(st.just("rid"), max_size=1))),
    )


def positioned(calls: list[tuple[str, Any]], start: int = 10) -> list[tuple[str, Any, int]]:
    # Positions are labels (step indices, say); spacing them shows they are not indices.
    return [(tool, args, start + 3 * n) for n, (tool, args) in enumerate(calls)]


def flat(result: TrajectoryResult) -> dict[str, Any]:
    return {
        "matched": list(result.matched),
        "missing": [
            (m.entry, *((m.nearest.position, m.nearest.equal_keys) if m.nearest else (None, None)))
            for m in result.missing
        ],
        "unexpected": list(result.unexpected),
        "checks": result.checks,
        "failed": result.failed,
    }


@settings(max_examples=300)
@given(specs(), CALL_LISTS)
def test_equals_brute_force(spec: TrajectorySpec, calls: list[tuple[str, Any]]) -> None:
    placed = positioned(calls)
    assert flat(match_trajectory(spec, placed)) == brute_match(spec, placed)


@settings(max_examples=300)
@given(
    specs(st.sampled_from([MatchMode.UNORDERED, MatchMode.SUPERSET, MatchMode.SUBSET])),
    st.lists(st.tuples(st.sampled_from(TOOLS[:2]), st.none() | ARGS), max_size=7),
)
def test_unordered_on_one_crowded_tool(spec: TrajectorySpec, calls: list[tuple[str, Any]]) -> None:
    spec = TrajectorySpec(
        tuple(ExpectedCall("a", e.arguments, e.arguments_match, e.optional) for e in spec.expected),
        spec.match,
        spec.arguments_match,
        spec.ignore_tools,
        spec.ignore_arguments,
    )
    placed = positioned(calls)
    assert flat(match_trajectory(spec, placed)) == brute_match(spec, placed)


def _renamed(spec: TrajectorySpec, names: dict[str, str]) -> TrajectorySpec:
    return TrajectorySpec(
        tuple(
            ExpectedCall(names[e.tool], e.arguments, e.arguments_match, e.optional)
            for e in spec.expected
        ),
        spec.match,
        spec.arguments_match,
        tuple(names.get(g, g) for g in spec.ignore_tools),
        spec.ignore_arguments,
    )


@given(specs(), CALL_LISTS, st.permutations(["p", "q", "r"]))
def test_renaming_tools_consistently_changes_nothing(
    spec: TrajectorySpec, calls: list[tuple[str, Any]], perm: list[str]
) -> None:
    names = {"a": perm[0], "b": perm[1], "c": perm[2], "get_x": "get_y"}
    renamed_calls = [(names[t], args, p) for t, args, p in positioned(calls)]
    assert flat(match_trajectory(_renamed(spec, names), renamed_calls)) == flat(
        match_trajectory(spec, positioned(calls))
    )


@given(specs(), CALL_LISTS, st.integers(0, 6), st.none() | ARGS)
def test_an_ignored_call_changes_nothing(
    spec: TrajectorySpec, calls: list[tuple[str, Any]], where: int, args: Any
) -> None:
    spec = TrajectorySpec(
        spec.expected, spec.match, spec.arguments_match, ("get_*",), spec.ignore_arguments
    )
    before = positioned(calls)
    after = list(before)
    after.insert(min(where, len(after)), ("get_other", args, 11))
    assert flat(match_trajectory(spec, after)) == flat(match_trajectory(spec, before))


@given(
    specs(st.just(MatchMode.SUPERSET)),
    CALL_LISTS,
    st.integers(0, 6),
    st.sampled_from(TOOLS),
    st.none() | ARGS,
)
def test_superset_never_gains_a_finding(
    spec: TrajectorySpec, calls: list[tuple[str, Any]], where: int, tool: str, args: Any
) -> None:
    before = [(t, a, 2 * n) for n, (t, a) in enumerate(calls)]
    after = list(before)
    after.insert(min(where, len(after)), (tool, args, 2 * min(where, len(before)) - 1))
    old, new = match_trajectory(spec, before), match_trajectory(spec, after)
    assert new.failed <= old.failed
    assert {m.entry for m in new.missing} <= {m.entry for m in old.missing}
