"""ATIF as Harbor's writers and NeMo-Relay's exporter write it (fixtures: cli_atif.py,
built to the writers' documented shapes), and the real trajectories of
../shared/real-runs/2026-12-06 (harbor-atif, nemo-relay-atif; skipped where absent):
every call gets its outcome, failures written only as text are failed calls, the
totals equal `final_metrics`, nothing is invented for a run that never reached the model."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.adapters import to_canonical
from agent_reliability_harness.adapters.harnesses._atif_steps import pair_results
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams

HERE = Path(__file__).resolve().parent
FIX = HERE / "fixtures" / "atif"
ROOT = Path(os.environ.get("ARH_REAL_RUNS") or HERE.parents[1] / ".." / "shared" / "real-runs")
REAL = ROOT / "2026-12-06"


def read(name: str) -> dict[str, Any]:
    (trace,) = to_canonical(json.loads((FIX / name).read_text("utf-8")))
    assert isinstance(trace, dict)
    return trace


def by_id(trace: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["step_id"]: s for s in trace["steps"]}


def arh(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def test_one_terminal_output_answers_every_keystroke_call_of_the_step() -> None:
    trace = read("terminus-shared-output.json")
    steps = by_id(trace)
    assert steps["call_0_3"]["output"].endswith("out.txt\nroot@box:/app# ")
    for call in ("call_0_1", "call_0_2"):
        assert "output" not in steps[call]  # kept once
        assert steps[call]["metadata"]["output_with"] == "call_0_3"
    assert steps["call_2_task_complete"]["output"].startswith("New Terminal Output")
    # A turn without a call keeps its observation (the parser's feedback) with it.
    assert steps["step-5"]["metadata"]["observations"][0].startswith("Previous response")
    assert trace["metadata"]["adapter"]["notes"] == []


THREE = [("a", 0), ("b", 1), ("c", 2)]


@pytest.mark.parametrize(
    ("results", "calls", "expected"),
    [
        ([{}], THREE[:1], [[0]]),  # one call: that call
        ([{}, {}], THREE[:2], [[0], [1]]),  # as many results as calls: in order
        ([{}], THREE, [[0, 1, 2]]),  # one output for the step: every call
        ([{}, {}], THREE, [[0], [1, 2]]),  # fewer: the last answers the calls left
        ([{"source_call_id": "b"}, {}], THREE, [[], [0, 2]]),  # named calls are not waiting
        ([{}, {}, {}, {}], THREE, [[0], [1], [2], []]),  # more: the rest are observations
        ([{}], [], [[]]),  # no call: no pairing
    ],
)
def test_results_without_a_call_id_pair_with_the_steps_calls(
    results: list[dict[str, Any]], calls: list[tuple[str, int]], expected: list[list[int]]
) -> None:
    assert pair_results(results, calls) == expected


def test_mini_swe_agent_failures_written_as_text_are_failed_calls() -> None:
    steps = by_id(read("mini-swe-agent-converted.json"))
    assert steps["call_3_1"]["status"] == "error"
    assert steps["call_3_1"]["error"].startswith("format error")
    assert steps["call_4_1"]["error"] == "returncode 1"
    assert steps["call_5_1"]["error"].startswith("timed out")
    assert steps["call_6_1"]["status"] == "ok"


def test_nemo_relay_message_objects_are_read() -> None:
    trace = read("nemo-relay-message-objects.json")
    steps = by_id(trace)
    call = steps["chatcmpl-tool-1"]
    assert call["output"] == "4C, rain"
    assert call["metadata"]["reasoning"] == ["Call the tool."]
    assert trace["inputs"] == [{"role": "user", "text": "Weather in Oslo?"}]
    assert trace["metadata"]["adapter"]["notes"] == []
    assert sum(s.get("input_tokens") or 0 for s in trace["steps"]) == 300


def test_a_message_object_without_tool_calls_of_the_step_gives_its_calls() -> None:
    value = json.loads((FIX / "nemo-relay-message-objects.json").read_text("utf-8"))
    del value["steps"][1]["tool_calls"]
    (trace,) = to_canonical(value)
    assert isinstance(trace, dict)
    call = by_id(trace)["chatcmpl-tool-1"]
    assert (call["tool_name"], call["arguments"], call["output"]) == (
        "get_weather",
        {"city": "Oslo"},
        "4C, rain",
    )


def test_final_metrics_are_the_run_totals_where_the_steps_fall_short() -> None:
    value = json.loads((FIX / "terminus-shared-output.json").read_text("utf-8"))
    value["final_metrics"]["total_completion_tokens"] = 300
    (trace,) = to_canonical(value)
    assert isinstance(trace, dict)
    assert sum(s.get("output_tokens") or 0 for s in trace["steps"]) == 300
    last = [s for s in trace["steps"] if s["type"] == "model_response"][-1]
    assert last["metadata"]["arh_recorded_totals"]["output_tokens"]["added"] == 70


def test_a_run_that_never_reached_the_model_gets_no_invented_response(tmp_path: Path) -> None:
    value = json.loads((FIX / "mini-swe-agent-converted.json").read_text("utf-8"))
    value["steps"] = value["steps"][:2]
    value["final_metrics"] = {"total_prompt_tokens": 0, "total_completion_tokens": 0}
    path = tmp_path / "never.trajectory.json"
    path.write_text(json.dumps(value), "utf-8")
    code, out, err = arh("convert", "--format", "atif", str(path))
    assert (code, out) == (1, "")
    assert "no model turn or tool call" in err


# --- real trajectories -------------------------------------------------------------

_REAL = sorted((REAL / "harbor-atif" / "raw").glob("*.trajectory.json")) + sorted(
    (REAL / "nemo-relay-atif" / "raw").glob("*.trajectory.json")
)
# file stem -> failed calls (`<returncode>` != 0, mini-swe-agent's format-error feedback)
_FAILED = {"msa-nova__charset_normalizer__eQqxHiY": 2, "msa-nova__conan__Sxi5ueY": 6}
# Harbor's mini-swe-agent converter writes step costs that sum to more than its total.
_COST_NOTE = "the steps' cost_usd sum to"


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/real-runs is absent")
@pytest.mark.parametrize("path", _REAL, ids=lambda p: p.name.split(".")[0])
def test_real_trajectories_read_faithfully(path: Path) -> None:
    value = json.loads(path.read_text("utf-8"))
    code, out, err = arh("convert", str(path))
    if not any(s.get("source") == "agent" for s in value["steps"]):
        assert code == 1 and "no model turn" in err  # the run never reached the model
        return
    assert (code, err) == (0, "")
    trace = json.loads(out)
    assert trace["source"] == "atif"
    calls = [s for s in trace["steps"] if s["type"] == "tool_call"]
    assert len(calls) == sum(len(s.get("tool_calls") or []) for s in value["steps"])
    assert all("output" in c or "output_with" in c.get("metadata", {}) for c in calls)
    failed = sum(1 for c in calls if c.get("status") == "error")
    assert failed == _FAILED.get(path.name.split(".")[0], 0)
    final = value.get("final_metrics") or {}
    for ours, theirs in (("input_tokens", "prompt_tokens"), ("output_tokens", "completion_tokens")):
        recorded = final.get(f"total_{theirs}", final.get(theirs))
        if recorded is not None:
            assert sum(s.get(ours) or 0 for s in trace["steps"]) == recorded
    answers = [s for s in trace["steps"] if s["type"] == "model_response" and s.get("text")]
    assert answers[-1]["text"] == next(
        s["message"] for s in reversed(value["steps"]) if s["source"] == "agent"
    )
    notes = trace["metadata"]["adapter"]["notes"]
    assert all(n["issue"].startswith(_COST_NOTE) for n in notes)
