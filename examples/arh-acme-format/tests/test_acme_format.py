"""The plugin's own tests: run them with pytest once the plugin is installed
(`pip install -e .`), so that ARH finds its entry point as `arh` would."""

from __future__ import annotations

from pathlib import Path

from agent_reliability_harness.adapters import to_canonical
from agent_reliability_harness.api import load_traces

FIXTURE = Path(__file__).parent / "fixtures" / "refund-run.json"


def test_the_run_is_detected_and_read() -> None:
    (trace,) = load_traces([str(FIXTURE)])
    assert trace.source == "acme-run"
    assert trace.trace_id == "r-7"
    calls = [s for s in trace.steps if s.type == "tool_call"]
    assert [c.tool_name for c in calls] == ["lookup_order", "issue_refund"]
    assert [c.status for c in calls] == ["ok", "error"]
    assert sum(s.output_tokens or 0 for s in trace.steps) == 41


def test_an_unknown_event_is_noted_not_dropped() -> None:
    run = {"acme_run": 1, "events": [{"kind": "say", "text": "hi"}, {"kind": "beep"}]}
    (trace,) = to_canonical(run, "acme-run")
    assert trace["metadata"]["adapter"]["notes"][0]["issue"] == "event of an unknown kind 'beep'"
