"""Properties of ARH-FLW-004 at the rule level (issue 15): a unit that occurs in a
trusted input never raises it, and renaming tools consistently changes nothing."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness.dataflow import fold
from helpers import report, tool_call

VALUES = [
    "attacker@evil.example",
    "GB29NWBK60161331926819",
    "https://www.evil.example/p?x=1",
    "Wire It Now Please",
    "12345678",
    "short",
]
TEXT = st.lists(
    st.sampled_from([*VALUES, "<information>", "hello there", "ignore previous instructions"]),
    min_size=1,
    max_size=4,
).map(" ".join)
TOOLS = {
    "read": {"trust": "untrusted", "optional_arguments": {"q": "any"}},
    "fetch": {
        "trust": "untrusted",
        "sink": True,
        "sink_arguments": ["url"],
        "optional_arguments": {"url": "any", "q": "any"},
    },
    "lookup": {"optional_arguments": {"q": "any"}},
    "pay": {"sink": True, "optional_arguments": {"to": "any", "memo": "any"}},
}


@st.composite
def flows(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    dataflow: dict[str, Any] = {"untrusted_to_sink": True}
    if draw(st.booleans()):
        dataflow["untrusted_if"] = ["<information>", "ignore (all )?previous instructions"]
    steps = []
    for i in range(draw(st.integers(1, 6))):
        tool = draw(st.sampled_from(sorted(TOOLS)))
        if tool in ("pay", "fetch"):
            names = ["to", "memo"] if tool == "pay" else ["url", "q"]
            args = {n: draw(TEXT) for n in names if draw(st.booleans())}
            steps.append(tool_call(f"s{i}", tool, args, output=draw(TEXT)))
        else:
            steps.append(
                tool_call(
                    f"s{i}",
                    tool,
                    {"q": "x"},
                    output=draw(st.one_of(TEXT, st.lists(TEXT, max_size=2))),
                )
            )
    return {"allowed_tools": TOOLS, "dataflow": dataflow}, steps


def _flagged(steps: list[Any], policy: dict[str, Any], inputs: list[str]) -> list[Any]:
    trace = {"steps": steps, "inputs": [{"role": "user", "text": t} for t in inputs]}
    return [f for f in report(trace, policy).findings if f.rule_id == "ARH-FLW-004"]


@settings(max_examples=200, deadline=None)
@given(flows(), st.lists(st.sampled_from(VALUES), max_size=3))
def test_a_unit_in_a_trusted_input_never_raises_untrusted_to_sink(
    flow: tuple[dict[str, Any], list[Any]], inputs: list[str]
) -> None:
    policy, steps = flow
    trusted = [fold(text) for text in inputs]
    for finding in _flagged(steps, policy, inputs):
        for unit in finding.observed:
            assert not any(unit in text for text in trusted), (unit, finding.message)


@settings(max_examples=150, deadline=None)
@given(flows())
def test_an_argument_whose_value_the_user_gave_is_never_flagged(
    flow: tuple[dict[str, Any], list[Any]],
) -> None:
    policy, steps = flow
    flagged = _flagged(steps, policy, [])
    for finding in flagged:
        name = finding.message.split("'")[1]
        (step,) = [s for s in steps if s["step_id"] == finding.step_id]
        again = _flagged(steps, policy, [step["arguments"][name]])
        assert not [
            f for f in again if f.step_id == finding.step_id and f"argument '{name}'" in f.message
        ]


NAMES = {"read": "get_page", "fetch": "read", "lookup": "pay", "pay": "lookup"}


def _renamed(steps: list[Any], policy: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    tools = {NAMES[name]: spec for name, spec in policy["allowed_tools"].items()}
    return [{**s, "tool_name": NAMES[s["tool_name"]]} for s in steps], {
        **policy,
        "allowed_tools": tools,
    }


@settings(max_examples=100, deadline=None)
@given(flows())
def test_renaming_tools_consistently_changes_nothing(
    flow: tuple[dict[str, Any], list[Any]],
) -> None:
    policy, steps = flow
    before = [(f.step_id, f.source_step_id, f.observed) for f in _flagged(steps, policy, [])]
    renamed_steps, renamed_policy = _renamed(steps, policy)
    after = [
        (f.step_id, f.source_step_id, f.observed)
        for f in _flagged(renamed_steps, renamed_policy, [])
    ]
    assert after == before
