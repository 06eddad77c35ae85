"""Completion rules (ARH-CMP-*): the final response and the step limit."""

from __future__ import annotations

import pytest

from helpers import findings, report, response, tool_call

FINAL = {"completion": {"require_final_response": True}}


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        ([], [("ARH-CMP-001", "error", None)]),
        ([response("a")], []),
        ([response("a"), tool_call("b", "t")], [("ARH-CMP-001", "error", "b")]),
        ([response("a", "   ")], [("ARH-CMP-001", "error", "a")]),
        ([response("a", status="error")], [("ARH-CMP-001", "error", "a")]),
        ([response("a", error="boom")], [("ARH-CMP-001", "error", "a")]),
    ],
)
def test_the_last_step_must_be_an_ok_answer(
    steps: list[dict[str, object]], expected: object
) -> None:
    assert findings(steps, FINAL) == expected


def test_messages_say_what_the_last_step_is() -> None:
    got = report([tool_call("b", "t")], FINAL)
    assert got.findings[0].message == "last step is a tool_call, not a model_response"
    assert got.category_scores == {"schema": 100.0, "completion": 0.0}


def test_max_steps() -> None:
    policy = {"completion": {"max_steps": 2}}
    assert findings([response("a"), response("b")], policy) == []
    both = {"completion": {"max_steps": 2, "require_final_response": True}}
    got = report([response("a"), response("b"), response("c")], both)
    assert [(f.rule_id, f.observed) for f in got.findings] == [("ARH-CMP-002", 3)]
    assert got.category_scores == {"completion": 50.0}


HANDOFF = {"completion": {"require_final_response": True, "final_tools": ["transfer", "submit"]}}


@pytest.mark.parametrize(
    ("last", "message"),
    [
        (tool_call("b", "transfer", output="Transfer successful"), None),
        (tool_call("b", "submit"), None),
        (
            tool_call("b", "transfer", error="agent offline"),
            "last step is a call of final tool 'transfer' that has status error",
        ),
        (
            tool_call("b", "submit", output={"result": "Error: patch does not apply"}),
            "last step is a call of final tool 'submit' that failed "
            "(output matched error_output_patterns)",
        ),
        (
            tool_call("b", "search"),
            "last step is a tool_call, not a model_response or a call of a final tool "
            "(transfer, submit)",
        ),
        (response("b", " "), "last step is a model_response with blank text"),
    ],
)
def test_a_final_tool_call_that_did_not_fail_completes_the_trace(
    last: dict[str, object], message: str | None
) -> None:
    policy = {**HANDOFF, "error_handling": {"error_output_patterns": ["^error:"]}}
    got = report([response("a"), last], policy)
    assert [f.message for f in got.findings] == ([] if message is None else [message])


def test_final_tools_do_nothing_without_require_final_response() -> None:
    policy = {"completion": {"final_tools": ["transfer"]}}
    assert findings([tool_call("b", "search")], policy) == []
