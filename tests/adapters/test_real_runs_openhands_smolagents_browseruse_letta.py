"""Real runs of OpenHands, smolagents, browser-use and Letta (../shared/real-runs/2026-12,
see each folder's PROVENANCE.txt): `arh convert` (auto-detection) reads each file without
a crash, as its own format, with no note, and the figures below, counted by hand from the
raw files (calls, failed calls, tokens), come out. Skipped when the folder is absent (a
fresh clone; ARH_REAL_RUNS may name it); the files are never copied into the project."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams

ROOT = Path(__file__).resolve().parents[2]
# ../shared/real-runs next to the checkout; ARH_REAL_RUNS names it elsewhere (a worktree).
RUNS = Path(os.environ.get("ARH_REAL_RUNS") or ROOT.parent / "shared" / "real-runs") / "2026-12"

pytestmark = pytest.mark.skipif(not RUNS.is_dir(), reason="../shared/real-runs is absent")

# file -> (format, per trace: (tool calls, failed calls, other failed steps, input tokens,
# output tokens)), in trace order.
FIGURES: dict[str, tuple[str, list[tuple[int, int, int, int, int]]]] = {
    "openhands/raw/basic.json": ("openhands", [(2, 0, 0, 8132, 1312)]),
    # the second `run` exits with a non-zero code
    "openhands/raw/basic_gui_mode.json": ("openhands", [(4, 1, 0, 17297, 2024)]),
    "openhands/raw/wrong_initial_state.json": ("openhands", [(4, 0, 0, 14828, 358)]),
    # exit codes 127/2 and error observations; one function call rejected by OpenHands in
    # each of the last two runs; tokens equal each record's accumulated_token_usage
    "openhands/raw/multi_swe_bench_output.jsonl": (
        "openhands",
        [(23, 5, 0, 565158, 2558), (33, 2, 1, 410169, 5156), (49, 12, 1, 938015, 5627)],
    ),
    # 104 calls written as "Calling tools:" and 44 written only as "Error executing tool"
    "browser-use/raw/waigenie-ember-form.json": ("browser-use", [(5, 0, 0, 0, 0)]),
    # a navigation that timed out, then a step with no model output
    "browser-use/raw/pentest-juice-shop.json": ("browser-use", [(1, 1, 1, 0, 0)]),
    "letta/raw/lettabot-builder.af": ("letta", [(0, 0, 0, 0, 0), (62, 0, 0, 0, 0)]),
    "letta/raw/memgpt_agent_with_convo.af": ("letta", [(28, 0, 0, 0, 0)]),
}
SMOLAGENTS = "smolagents/raw/gpt-4o__tool-calling__math__2025-07-24.jsonl"


def arh(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def convert(relative: str) -> list[dict[str, Any]]:
    """Every trace `arh convert` prints for the file (a .jsonl file: one document a line)."""
    code, out, err = arh("convert", str(RUNS / relative))
    assert code == 0, err
    assert "Traceback" not in err
    decoder, traces, at = json.JSONDecoder(), [], 0
    while at < len(out):
        if out[at].isspace():
            at += 1
            continue
        value, at = decoder.raw_decode(out, at)
        traces.extend(value if isinstance(value, list) else [value])
    return traces


def figures(trace: dict[str, Any]) -> tuple[int, int, int, int, int]:
    steps = trace["steps"]
    calls = [s for s in steps if s["type"] == "tool_call"]
    failed = [s for s in calls if s.get("status") == "error"]
    other = [s for s in steps if s["type"] != "tool_call" and s.get("status") == "error"]
    tokens_in = sum(s.get("input_tokens") or 0 for s in steps)
    tokens_out = sum(s.get("output_tokens") or 0 for s in steps)
    return len(calls), len(failed), len(other), tokens_in, tokens_out


def _no_notes(traces: list[dict[str, Any]]) -> None:
    for trace in traces:
        assert trace["metadata"]["adapter"]["notes"] == [], trace["trace_id"]
        assert trace["steps"], trace["trace_id"]  # no empty pass


@pytest.mark.parametrize("relative", sorted(FIGURES))
def test_real_run(relative: str) -> None:
    fmt, expected = FIGURES[relative]
    traces = convert(relative)
    assert {t["source"] for t in traces} == {fmt}
    _no_notes(traces)
    assert [figures(t) for t in traces] == expected


def test_smolagents_benchmark_output() -> None:
    traces = convert(SMOLAGENTS)
    assert len(traces) == 50
    assert {t["source"] for t in traces} == {"smolagents"}
    _no_notes(traces)
    totals = [sum(column) for column in zip(*(figures(t) for t in traces), strict=True)]
    assert totals == [148, 44, 0, 276552, 21753]
    # every failed call is read back with its tool and arguments from the error text
    failed = [s for t in traces for s in t["steps"] if s.get("status") == "error"]
    assert all(s["tool_name"] == "python_interpreter" and s["arguments"] for s in failed)


def test_openhands_labels_and_run_state() -> None:
    traces = convert("openhands/raw/multi_swe_bench_output.jsonl")
    assert [t["task_id"] for t in traces] == [
        "ponylang__ponyc-4595",
        "ponylang__ponyc-4593",
        "ponylang__ponyc-4588",
    ]
    assert [t["agent_name"] for t in traces] == ["CodeActAgent"] * 3
    errors = [t["metadata"]["openhands"].get("error") for t in traces]
    assert errors[:2] == [None, None]
    assert "maximum iteration" in errors[2]


def test_browser_use_done_and_letta_agents() -> None:
    (form,) = convert("browser-use/raw/waigenie-ember-form.json")
    assert form["metadata"]["browser_use"]["success"] is False
    assert form["steps"][-1]["tool_name"] == "done"
    builder = convert("letta/raw/lettabot-builder.af")
    assert [t["agent_name"] for t in builder] == ["lettabot-builder", "Nameless Agent-sleeptime"]
