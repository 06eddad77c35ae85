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
