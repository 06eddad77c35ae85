"""A file's own run totals (adapters/_totals.py): ARH's run totals equal them; a shortfall
is counted on the step the file names (default: the last model response) and said in its
metadata; an excess the steps cannot give back is an adapter note naming both numbers."""

from __future__ import annotations

from typing import Any

from agent_reliability_harness.adapters.core.builder import TraceBuilder
from agent_reliability_harness.adapters.core.totals import RecordedTotals


def _two_turns() -> TraceBuilder:
    b = TraceBuilder("fmt", "hint")
    b.text("a", "[0]")
    b.tokens(0, 10, 5, "[0].usage")
    b.call("c1", "f", "{}", "[1]")
    b.text("b", "[2]")
    b.tokens(2, 20, 7, "[2].usage")
    return b


def _sum(trace: dict[str, Any], name: str) -> float:
    return sum(s.get(name) or 0 for s in trace["steps"])


def test_a_shortfall_lands_on_the_last_model_response_and_is_said() -> None:
    b = _two_turns()
    b.recorded_totals(RecordedTotals("result.usage", input_tokens=30, output_tokens=40))
    trace = b.build()
    assert (_sum(trace, "input_tokens"), _sum(trace, "output_tokens")) == (30, 40)
    last = trace["steps"][2]
    assert last["output_tokens"] == 35
    assert last["metadata"]["arh_recorded_totals"] == {
        "output_tokens": {"steps": 12, "file": 40, "added": 28, "at": "result.usage.output_tokens"}
    }
    assert trace["metadata"]["adapter"]["notes"] == []


def test_equal_totals_change_nothing() -> None:
    plain = _two_turns().build()
    b = _two_turns()
    b.recorded_totals(RecordedTotals("stats", input_tokens=30, output_tokens=12))
    assert b.build() == plain


def test_an_excess_is_kept_and_noted_with_both_numbers() -> None:
    b = _two_turns()
    b.recorded_totals(RecordedTotals("stats", input_tokens=25))
    trace = b.build()
    assert _sum(trace, "input_tokens") == 30
    (note,) = trace["metadata"]["adapter"]["notes"]
    assert note["at"] == "stats.input_tokens"
    assert "30" in note["issue"] and "25" in note["issue"]


def test_a_cost_the_steps_never_had_goes_on_the_named_step_without_a_remark() -> None:
    b = _two_turns()
    b.recorded_totals(RecordedTotals("result", cost_usd=0.25, index=0))
    trace = b.build()
    assert trace["steps"][0]["cost_usd"] == 0.25
    assert "metadata" not in trace["steps"][0] or "arh_recorded_totals" not in trace["steps"][
        0
    ].get("metadata", {})
