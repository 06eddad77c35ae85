"""Flow rules (ARH-FLW-*): retries, retry storms, duplicated side effects."""

from __future__ import annotations

import pytest

from agent_reliability_harness.rules.flow import reads_as_error
from helpers import findings, report, tool_call

ANY = {"to": "any", "a": "any", "b": "any"}
SEND = {"allowed_tools": {"send": {"side_effect": True, "optional_arguments": ANY}}}


def test_a_failed_call_needs_a_later_call_of_the_same_tool() -> None:
    policy = {"error_handling": {"require_retry_on_error": True}}
    steps = [
        tool_call("a", "x", error="down"),
        tool_call("b", "y", error="down"),
        tool_call("c", "x"),
    ]
    got = report(steps, policy)
    assert [(f.rule_id, f.step_id, f.observed) for f in got.findings] == [
        ("ARH-FLW-001", "b", "down")
    ]
    assert got.category_scores["flow"] == 50.0


def test_a_storm_is_one_finding_at_the_first_call_beyond_the_limit() -> None:
    policy = {"error_handling": {"max_attempts": 2}}
    steps = [tool_call(f"s{i}", "x", {"q": 1}) for i in range(5)] + [tool_call("o", "x", {"q": 2})]
    got = report(steps, policy)
    assert [(f.rule_id, f.step_id, f.observed) for f in got.findings] == [("ARH-FLW-002", "s2", 5)]
    assert got.category_scores["flow"] == 50.0  # two groups, one over the limit


def test_side_effects_repeat_after_a_success_and_not_before() -> None:
    steps = [
        tool_call("s1", "send", {"to": "a"}, error="timeout"),
        tool_call("s2", "send", {"to": "a"}),
        tool_call("s3", "send", {"to": "a"}, error="again"),
        tool_call("s4", "send", {"to": "b"}),
    ]
    got = report(steps, SEND)
    assert [(f.rule_id, f.step_id, f.message) for f in got.findings] == [
        (
            "ARH-FLW-003",
            "s3",
            "side-effect tool 'send' was called again with identical arguments after it "
            "succeeded at step 's2'",
        )
    ]


@pytest.mark.parametrize(
    "output",
    [
        "Error: quota exceeded",
        "error: no such user",
        "  FAILED to send",
        "Exception raised",
        {"error": "Failure: bounced"},
        {"message": "traceback (most recent call last)"},
    ],
)
def test_an_ok_call_whose_output_reads_as_an_error_is_not_called_a_success(output: object) -> None:
    steps = [tool_call("s1", "send", {"to": "a"}), tool_call("s2", "send", {"to": "a"})]
    steps[0]["output"] = output
    got = report(steps, SEND)
    assert [f.message for f in got.findings] == [
        "side-effect tool 'send' was called again with identical arguments after it "
        "returned status ok at step 's1'"
    ]


@pytest.mark.parametrize(
    "output",
    ["Sent.", "no errors", "errorless", {"error": None}, {"message": "ok"}, ["Error"], None],
)
def test_other_outputs_keep_the_success_wording(output: object) -> None:
    assert not reads_as_error(output)
    steps = [
        tool_call("s1", "send", {"to": "a"}, output=output),
        tool_call("s2", "send", {"to": "a"}),
    ]
    assert "after it succeeded at step 's1'" in report(steps, SEND).findings[0].message


def test_argument_key_order_is_not_identity() -> None:
    steps = [tool_call("s1", "send", {"a": 1, "b": 2}), tool_call("s2", "send", {"b": 2, "a": 1})]
    assert findings(steps, SEND) == [("ARH-FLW-003", "error", "s2")]
