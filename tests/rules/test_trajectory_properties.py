"""Properties of ARH-SEQ-006/007 at the rule level (issue 15): renaming tools
consistently, an ignored call, and a call added in superset mode."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import report, tool_call

TOOLS = ["a", "b", "c", "get_x"]
MODES = ["strict", "in_order", "unordered", "superset", "subset"]
ARGS = st.one_of(
    st.none(), st.fixed_dictionaries({"id": st.integers(0, 2)}, optional={"rid": st.integers(0, 1)})
)


@st.composite
def entries(draw: st.DrawFn) -> dict[str, Any]:
    entry: dict[str, Any] = {"tool": draw(st.sampled_from(TOOLS))}
    arguments = draw(ARGS)
    if arguments is not None:
        entry["arguments"] = arguments
    if draw(st.booleans()):
        entry["arguments_match"] = draw(st.sampled_from(["exact", "subset", "ignore"]))
    if draw(st.integers(0, 3)) == 0:
        entry["optional"] = True
    return entry


@st.composite
def trajectories(draw: st.DrawFn, mode: str | None = None) -> dict[str, Any]:
    section: dict[str, Any] = {
        "expected": draw(st.lists(entries(), max_size=4)),
        "match": mode or draw(st.sampled_from(MODES)),
        "ignore_tools": ["get_*"],
    }
    if draw(st.booleans()):
        section["ignore_arguments"] = ["rid"]
    return {"trajectory": section}


@st.composite
def calls(draw: st.DrawFn) -> list[dict[str, Any]]:
    out = []
    for i in range(draw(st.integers(0, 7))):
        extra = {"error": "boom"} if draw(st.integers(0, 4)) == 0 else {}
        out.append(tool_call(f"s{i}", draw(st.sampled_from(TOOLS)), draw(ARGS), **extra))
    return out


def _sequence(steps: list[dict[str, Any]], policy: dict[str, Any]) -> tuple[Any, ...]:
    got = report(steps, policy)
    found = sorted(
        (f.rule_id or "", f.step_id or "", f.message)
        for f in got.findings
        if f.category == "sequence"
    )
    return tuple(found), got.category_scores.get("sequence")


def _renamed(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {
            k: names.get(v, v) if k in ("tool", "tool_name") else _renamed(v, names)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_renamed(v, names) for v in value]
    return value


NAMES = {"a": "zeta", "b": "alpha", "c": "b", "get_x": "get_renamed"}


@settings(max_examples=150, deadline=None)
@given(trajectories(), calls())
def test_renaming_tools_consistently_changes_nothing(
    policy: dict[str, Any], steps: list[Any]
) -> None:
    before, score = _sequence(steps, policy)
    after, renamed_score = _sequence(_renamed(steps, NAMES), _renamed(policy, NAMES))
    assert renamed_score == score
    # Messages name tools: compare them with the names put back.
    back = {new: old for old, new in NAMES.items()}
    pattern = re.compile("'(" + "|".join(map(re.escape, back)) + ")'")
    restored = sorted(
        (rule, step, pattern.sub(lambda m: f"'{back[m.group(1)]}'", message))
        for rule, step, message in after
    )
    assert restored == list(before)


@settings(max_examples=150, deadline=None)
@given(trajectories(), calls(), st.data())
def test_an_ignored_call_changes_nothing(
    policy: dict[str, Any], steps: list[Any], data: st.DataObject
) -> None:
    named = {e["tool"] for e in policy["trajectory"]["expected"]}
    ignored = data.draw(st.sampled_from([t for t in ("get_y", "get_x") if t not in named]))
    at = data.draw(st.integers(0, len(steps)))
    more = [*steps[:at], tool_call("ignored", ignored, data.draw(ARGS)), *steps[at:]]
    assert _sequence(more, policy) == _sequence(steps, policy)
    appended = [*steps, tool_call("ignored", ignored)]
    assert _sequence(appended, policy) == _sequence(steps, policy)


_ENTRY = re.compile(r"\(trajectory\.expected\[(\d+)\]\)")


def _missing(steps: list[Any], policy: dict[str, Any]) -> list[int]:
    got = report(steps, policy)
    return sorted(
        int(_ENTRY.search(f.message).group(1)) for f in got.findings if f.rule_id == "ARH-SEQ-006"
    )  # type: ignore[union-attr]


@settings(max_examples=100, deadline=None)
@given(trajectories("superset"), calls(), st.data())
def test_in_superset_an_added_call_never_adds_a_finding(
    policy: dict[str, Any], steps: list[Any], data: st.DataObject
) -> None:
    before = _missing(steps, policy)
    tool = data.draw(st.sampled_from([*TOOLS, "other"]))
    at = data.draw(st.integers(0, len(steps)))
    added = [*steps[:at], tool_call("added", tool, data.draw(ARGS)), *steps[at:]]
    after = _missing(added, policy)
    assert set(after) <= set(before)
    assert not any(f.rule_id == "ARH-SEQ-007" for f in report(added, policy).findings)
