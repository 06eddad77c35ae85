"""Real runs of the run-stream formats (../shared/real-runs/2026-12: `codex exec --json`,
gemini-cli `stream-json`, AutoGen AgentChat dumps; PROVENANCE.txt there). Each file is
read with `--format auto`: no crash, no empty pass, its format detected, no ARH-SCH-013
note (none of these files holds content a trace has no place for), and figures checked
by hand against the files. Skipped where the folder is absent (a fresh clone)."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams

# ARH_REAL_RUNS: the real-runs folder, for a checkout that is not beside shared/ (a worktree).
ROOT = Path(
    os.environ.get("ARH_REAL_RUNS")
    or Path(__file__).resolve().parents[2] / ".." / "shared" / "real-runs"
)
REAL = ROOT / "2026-12"
pytestmark = pytest.mark.skipif(not REAL.is_dir(), reason="../shared/real-runs is absent")


def convert(relative: str) -> list[dict[str, Any]]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["convert", str(REAL / relative)], Streams(out, err, io.BytesIO()))
    assert (code, err.getvalue()) == (0, "")
    value = json.loads(out.getvalue())
    found = value if isinstance(value, list) else [value]
    for trace in found:
        assert trace["steps"], "an empty pass"
        assert trace["metadata"]["adapter"]["notes"] == []
    return found


def totals(trace: dict[str, Any]) -> tuple[int, int]:
    steps = trace["steps"]
    return (
        sum(s.get("input_tokens") or 0 for s in steps),
        sum(s.get("output_tokens") or 0 for s in steps),
    )


def calls(trace: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in trace["steps"] if s["type"] == "tool_call"]


# file -> (tokens in, tokens out, [tool names], final answer's start): turn.completed usage.
CODEX = {
    1: (2946, 7, [], "4"),
    2: (6040, 129, ["shell"], "Files here:"),
    3: (6008, 51, ["apply_patch"], "Created `hello.txt`"),
    4: (6087, 204, ["shell"], "`test.js` simply contains"),
    5: (6086, 223, ["shell"], "Found 1 text file"),
}


@pytest.mark.parametrize("number", sorted(CODEX))
def test_codex_exec_json(number: int) -> None:
    (trace,) = convert(f"codex-exec-json/raw/stream-output-{number}.jsonl")
    inp, out, tools, answer = CODEX[number]
    assert trace["source"] == "codex-exec"
    assert totals(trace) == (inp, out)
    assert [c["tool_name"] for c in calls(trace)] == tools
    assert all(c["status"] == "ok" for c in calls(trace))  # every exit code is 0
    assert trace["steps"][-1]["text"].startswith(answer)
    assert trace["steps"][0]["metadata"]["reasoning"]  # each run starts with a summary


def test_codex_exec_json_command_and_patch() -> None:
    (listing,) = convert("codex-exec-json/raw/stream-output-2.jsonl")
    (call,) = calls(listing)
    assert call["arguments"] == {"command": "bash -lc ls"}
    assert call["output"] == "stream-output-1.jsonl\nstream-output-2.jsonl\ntest.js\n"
    (patch,) = convert("codex-exec-json/raw/stream-output-3.jsonl")
    (change,) = calls(patch)
    assert change["arguments"]["changes"][0]["path"].endswith("/hello.txt")


def test_gemini_stream_json_two_appended_runs() -> None:
    first, second = convert("gemini-cli-stream-json/raw/figma-010ac575-transcript.jsonl")
    assert {first["source"], second["source"]} == {"gemini-stream"}
    assert first["trace_id"] == "6727b31e-11a1-4351-b526-77ba7b90da09"
    assert second["trace_id"] == "65b8f8e4-6941-4eba-b2b8-a3f492435908"
    # The first run's result line: 2,152,077 in / 6,375 out (candidates only) of a total of
    # 2,164,148, 40 tool calls: output is the total less the input, 5,696 thinking tokens.
    assert totals(first) == (2152077, 2164148 - 2152077)
    assert len(calls(first)) == first["metadata"]["tool_calls"] == 40
    assert [c["tool_name"] for c in calls(first) if c["status"] == "error"] == ["activate_skill"]
    assert first["steps"][-1]["text"].startswith("I have converted the Figma design")
    assert first["steps"][-1]["text"].endswith("pushed to the remote repository.")  # 7 chunks
    assert len(first["inputs"]) == 2  # the harness's prompt line and gemini's user message
    # The second run is cut short: no usage, and its last call (a git push) has no result.
    assert totals(second) == (0, 0)
    assert len(calls(second)) == 28
    failed = [c["tool_name"] for c in calls(second) if c.get("status") == "error"]
    assert failed == ["activate_skill", "read_file", "create_repository"]
    last = second["steps"][-1]
    assert last["tool_name"] == "run_shell_command" and "status" not in last
    assert "git push" in last["arguments"]["command"]
    # Every line is mapped: 91 and 58 lines.
    assert [t["metadata"]["adapter"]["mapped"] for t in (first, second)] == [91, 58]


def test_gemini_stream_json_cut_short_run() -> None:
    (trace,) = convert("gemini-cli-stream-json/raw/figma-d00f7a9b-transcript.jsonl")
    assert trace["trace_id"] == "cac225da-e1f4-46c2-8c80-d7930185f8d6"
    assert len(calls(trace)) == 41
    failed = [c["tool_name"] for c in calls(trace) if c.get("status") == "error"]
    assert failed == ["activate_skill", "create_repository"]
    assert "already exists" in calls(trace)[-2]["error"]
    assert trace["metadata"]["adapter"]["mapped"] == 84


# file -> (agent, answers, tokens in, tokens out, user inputs): models_usage per message.
AUTOGEN = {
    "hm3it_agent_history.json": ("assistant", 3, 102 + 179 + 264, 63 + 71 + 206, 3),
    "kumar_agent_history.json": ("assistant", 2, 32 + 54, 8 + 118, 2),
    "hm3it_team_state.json": ("assistant_agent", 1, 30, 31, 1),
}


@pytest.mark.parametrize("name", sorted(AUTOGEN))
def test_autogen(name: str) -> None:
    (trace,) = convert(f"autogen/raw/{name}")
    agent, answers, inp, out, asked = AUTOGEN[name]
    assert trace["source"] == "autogen"
    assert trace["agent_name"] == agent
    assert [s["type"] for s in trace["steps"]] == ["model_response"] * answers
    assert {s["agent"] for s in trace["steps"]} == {agent}
    assert totals(trace) == (inp, out)
    assert len(trace["inputs"]) == asked
