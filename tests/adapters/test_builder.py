"""The TraceBuilder contract every adapter relies on (docs/adapters.md, "Writing an
adapter"): accounting, note placement, pairing, usage, reasoning, inputs and labels."""

from __future__ import annotations

from typing import Any

from agent_reliability_harness.adapters.core.builder import TraceBuilder
from agent_reliability_harness.adapters.core.values import BRIEF_CHARS, brief


def record(b: TraceBuilder) -> dict[str, Any]:
    adapter: dict[str, Any] = b.build()["metadata"]["adapter"]
    return adapter


def test_every_call_is_counted_once() -> None:
    b = TraceBuilder("fmt", "hint")
    b.input("user", "hi", "[0]")
    b.reasoning("think", "[1].content[0]")
    b.call("c1", "f", "{}", "[1].content[1]")
    b.result("c1", "out", "[2]")
    b.text("done", "[3]")
    b.mark("[4]")
    b.skip("[5]", "bookkeeping")
    b.note("[6]", "unknown", {"x": 1})
    assert record(b) == {
        "format": "fmt",
        "notes": [{"at": "[6]", "issue": "unknown", "value": {"x": 1}, "step": "step-2"}],
        "mapped": 6,
        "skipped": {"bookkeeping": 1},
    }


def test_notes_name_the_last_step_before_them_else_the_next() -> None:
    b = TraceBuilder("fmt", "hint")
    b.note("[0]", "early")
    b.text("a", "[1]")
    b.note("[2]", "late")
    b.call("c1", "f", "not json", "[3].arguments")
    notes = record(b)["notes"]
    assert [(n["issue"], n["step"]) for n in notes] == [
        ("early", "step-1"),
        ("late", "step-1"),
        ("arguments are not valid JSON", "c1"),  # a note on a call's arguments names the call
    ]
    lonely = TraceBuilder("fmt", "hint")
    lonely.note("[0]", "alone")
    assert record(lonely)["notes"][0]["step"] is None


def test_huge_values_are_briefed() -> None:
    assert brief({"a": 1}) == {"a": 1}
    long = "x" * (BRIEF_CHARS + 10)
    assert brief(long) == f"{'x' * BRIEF_CHARS}... ({BRIEF_CHARS + 10} characters)"
    big = brief({"data": "y" * 5000})
    assert isinstance(big, str) and big.startswith('{"data":"yyy') and big.endswith("characters)")


def test_results_without_ids_pair_by_name_then_in_order() -> None:
    b = TraceBuilder("fmt", "hint")
    b.call("", "a", "{}", "x")
    b.call(None, "b", "{}", "x")
    b.call("c3", "a", "{}", "x")
    assert b.result(None, "first", "r1")  # oldest id-less call
    assert b.result(None, "by name", "r2", name="a")  # oldest open call named a: c3
    assert b.result(None, "second", "r3")
    assert not b.result(None, "nothing waits", "r4")
    steps = b.build()["steps"]
    assert [s.get("output") for s in steps] == ["first", "second", "by name"]


def test_answered_calls_take_no_idless_result() -> None:
    b = TraceBuilder("fmt", "hint")
    b.answered(b.call(None, "f", "{}", "x"))
    assert not b.result(None, "late", "r")


def test_split_entries_count_usage_once_with_the_largest_values() -> None:
    b = TraceBuilder("fmt", "hint")
    start = len(b.steps)
    b.reasoning("plan", "[0]")
    b.tokens(start, 10, 3, "[0]", key="msg_1")  # no step yet: waits for the next entry
    start = len(b.steps)
    b.call("c1", "f", "{}", "[1]")
    b.tokens(start, 10, 7, "[1]", key="msg_1")
    (step,) = b.build()["steps"]
    assert (step["input_tokens"], step["output_tokens"]) == (10, 7)
    assert step["metadata"] == {"reasoning": ["plan"]}


def test_a_turn_with_only_reasoning_or_usage_gets_an_empty_step() -> None:
    b = TraceBuilder("fmt", "hint")
    b.reasoning(None, "[0]")
    b.input("user", "next", "[1]")  # a new turn: the reasoning had no step of its own
    b.tokens(0 + len(b.steps), 5, 1, "[2]")
    trace = b.build()
    assert [s.get("metadata") for s in trace["steps"]] == [{"reasoning_redacted": 1}, None]
    assert trace["steps"][1]["input_tokens"] == 5
    assert [n["issue"] for n in trace["metadata"]["adapter"]["notes"]] == [
        "model turn with usage but no content"
    ]


def test_repeated_history_inputs_are_kept_once() -> None:
    b = TraceBuilder("fmt", "hint")
    for _ in range(3):
        b.input("user", "same question", "span", once=True)
    b.input("user", "same question", "again")  # a real second message is kept
    trace = b.build()
    assert len(trace["inputs"]) == 2
    assert trace["metadata"]["adapter"]["mapped"] == 2


def test_body_labels() -> None:
    b = TraceBuilder("fmt", "stem")
    b.labels({"trace_id": 7, "workflow": "w", "task_id": 3.0, "outcome": {"success": True}})
    b.labels({"agent_name": ["x"], "outcome": {"reward": float("inf")}}, "body")
    trace = b.build()
    assert (trace["trace_id"], trace["agent_name"], trace["workflow"]) == ("7", "stem", "w")
    assert (trace["task_id"], trace["outcome"]) == ("3", {"success": True})
    assert [(n["at"], n["issue"]) for n in trace["metadata"]["adapter"]["notes"]] == [
        ("body.agent_name", "label is not a string"),
        ("body.outcome", "outcome.reward is not a finite number"),
    ]


def test_settle_records_an_outcome_in_place_and_counts_nothing() -> None:
    b = TraceBuilder("fmt", "hint")
    hosted = b.call(None, "web_search", {"q": "x"}, "[0]")
    b.settle(hosted, {"hits": 2}, is_error=False)
    shell = b.call("c2", "shell", {}, "[1]")
    assert b.result("c2", "Exit code: 0", "[2]", is_error=False)
    b.settle(shell, is_error=True, error="exit code 2")  # a later exit event wins
    assert not b.result(None, "late", "[3]")  # the settled call takes no id-less result
    trace = b.build()
    first, second = trace["steps"]
    assert (first["output"], first["status"]) == ({"hits": 2}, "ok")
    assert (second["output"], second["status"], second["error"]) == (
        "Exit code: 0",
        "error",
        "exit code 2",
    )
    b.settle(shell, is_error=False)
    assert "error" not in second and second["status"] == "ok"
    assert trace["metadata"]["adapter"]["mapped"] == 3  # two calls, one paired result


def test_measure_adds_latency_cost_and_says_where_they_come_from() -> None:
    b = TraceBuilder("fmt", "hint")
    index = b.call("c1", "f", "{}", "[0]")
    b.measure(index, latency_ms=0.24 * 1000)
    b.measure(index, latency_ms=10.0, cost_usd=0.5, usage="run total", other=None)
    (step,) = b.build()["steps"]
    assert (step["latency_ms"], step["cost_usd"]) == (250.0, 0.5)
    assert step["metadata"] == {"usage": "run total"}
    assert b.mapped == 1


def test_turn_cost_rides_with_its_tokens_and_split_entries_count_once() -> None:
    b = TraceBuilder("fmt", "hint")
    b.tokens(0, None, None, "[0]", key="m1", cost_usd=0.25)  # no step yet: waits
    b.text("a", "[1]")
    b.tokens(0, 10, 2, "[1]", key="m1", cost_usd=0.25)  # the same message again
    b.tokens(0, 10, 5, "[2]", key="m1", cost_usd=0.30)
    (step,) = b.build()["steps"]
    assert (step["input_tokens"], step["output_tokens"], step["cost_usd"]) == (10, 5, 0.30)


def test_end_turn_keeps_reasoning_and_usage_with_their_turn() -> None:
    b = TraceBuilder("fmt", "hint")
    b.reasoning("plan", "[0]")
    b.tokens(0, 7, 1, "[0]")
    b.end_turn(model="m")  # the next turn must not take them
    b.text("answer", "[1]")
    first, second = b.build()["steps"]
    assert first["metadata"] == {"model": "m", "reasoning": ["plan"]}
    assert (first["input_tokens"], "input_tokens" in second) == (7, False)
    b.end_turn()  # nothing pending: no step
    assert len(b.steps) == 2


def test_is_open_asks_before_a_plain_message_is_taken_for_a_result() -> None:
    b = TraceBuilder("fmt", "hint")
    assert not b.is_open(None)
    b.call(None, "bash", {"command": "ls"}, "[0]")
    b.call("c2", "read", {}, "[1]")
    assert b.is_open(None) and b.is_open("c2") and b.is_open(None, "read")
    assert not b.is_open("c3") and not b.is_open(None, "write")
    b.result(None, "out", "[2]")
    assert not b.is_open(None)
