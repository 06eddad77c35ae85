"""The real recorded runs of the formats ARH claims (../shared/real-runs, never committed:
skipped when absent; ARH_REAL_RUNS names another folder): every file converts (no crash,
no refusal), holds steps, and maps everything (no ARH-SCH-013 note), except the files
listed below with what they really hold. Counts per source guard against silent losses
(what the sweep in benchmarks/real_runs.py reports)."""

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
REAL = Path(os.environ.get("ARH_REAL_RUNS") or ROOT.parent / "shared" / "real-runs")

pytestmark = pytest.mark.skipif(not REAL.is_dir(), reason="no ../shared/real-runs here")

# source folder (or file) -> --format. The traces/ folders are the runs' message lists as
# OpenAI chat messages (made by the collectors' tools): a plain conversation is the same
# in several formats, so they are read as what they are.
SOURCES = {
    "2026-11/agentdojo/raw_sample_command-r-plus.jsonl": "auto",
    "2026-11/agentdojo/traces": "openai-chat",
    "2026-11/claude-code/raw": "auto",
    "2026-11/swe-agent/raw": "auto",
    "2026-11/tau-bench/raw_sample.json": "auto",
    "2026-11/tau-bench/traces": "openai-chat",
    "2026-11/more/inspect-ai": "auto",
    "2026-11/more/langsmith": "auto",
    "2026-11/more/mini-swe-agent": "auto",
    "2026-11/more/otel-genai": "auto",
    "2026-11/more/tau2-bench": "auto",
    "2026-12/claude-code/raw": "auto",
    "2026-12/codex-cli/raw": "auto",
    "2026-12/gemini-cli/raw": "auto",
    "2026-12/inspect/raw": "auto",
    "2026-12/mcp/derived": "auto",
}
_EMPTY_RUN = "the model never answered: system and user messages only (no step to judge)"
# Files that are refused because they hold no run.
REFUSED = {
    "2026-11/agentdojo/traces/banking/meta-llama_Llama-3-70b-chat-hf__banking__user_task_10__injection_task_3.json": _EMPTY_RUN,
    "2026-11/agentdojo/traces/banking/meta-llama_Llama-3-70b-chat-hf__banking__user_task_10__none.json": _EMPTY_RUN,
    "2026-11/agentdojo/traces/workspace/command-r-plus__workspace__user_task_10__injection_task_3.json": _EMPTY_RUN,
    "2026-11/agentdojo/traces/workspace/command-r-plus__workspace__user_task_26__injection_task_3.json": _EMPTY_RUN,
    "2026-11/agentdojo/traces/workspace/command-r-plus__workspace__user_task_35__injection_task_3.json": _EMPTY_RUN,
    "2026-11/agentdojo/traces/workspace/command-r-plus__workspace__user_task_35__none.json": _EMPTY_RUN,
    "2026-11/agentdojo/traces/workspace/meta-llama_Llama-3-70b-chat-hf__workspace__user_task_15__injection_task_3.json": _EMPTY_RUN,
    "2026-11/agentdojo/traces/workspace/meta-llama_Llama-3-70b-chat-hf__workspace__user_task_15__none.json": _EMPTY_RUN,
}  # fmt: skip
# Files whose notes are content ARH has no step for (file -> how many notes).
NOTED = {
    # an input_image part of the user's message
    "2026-12/codex-cli/raw/rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl": 1,
}  # fmt: skip
# source -> (traces, steps, tool calls, of which status error, tokens), as read now.
EXPECTED = {
    "2026-11/agentdojo/raw_sample_command-r-plus.jsonl": (3, 9, 3, 0, 0),
    "2026-11/more/inspect-ai": (3, 17, 9, 0, 15672),
    "2026-11/more/langsmith": (2, 2, 0, 0, 36),
    "2026-11/more/otel-genai": (4, 4, 0, 0, 439),
    "2026-12/codex-cli/raw": (5, 328, 314, 31, 12870694),
    "2026-12/inspect/raw": (50, 109, 0, 0, 365355),
}


def _files(source: str) -> list[Path]:
    path = REAL / source
    if path.is_file():
        return [path]
    skip = {"PROVENANCE.txt", "LICENSE", "LICENSE.agentdojo"}
    return sorted(p for p in path.rglob("*") if p.is_file() and p.name not in skip)


def _convert(path: Path, fmt: str) -> tuple[int, list[dict[str, Any]], str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["convert", "--format", fmt, str(path)], Streams(out, err, io.BytesIO()))
    text = out.getvalue()
    data = json.loads(text) if text.strip() else []
    return code, data if isinstance(data, list) else [data], err.getvalue()


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_every_claimed_real_run_is_read_whole(source: str) -> None:
    files = _files(source)
    assert files, f"{source}: no file"
    problems: list[str] = []
    totals = [0, 0, 0, 0, 0]
    for path in files:
        name = str(path.relative_to(REAL))
        code, traces, err = _convert(path, SOURCES[source])
        steps = [s for t in traces for s in t["steps"]]
        if name in REFUSED:
            if code != 1 or traces:
                problems.append(f"{name}: read, but listed as refused")
            continue
        notes = sum(len(t["metadata"]["adapter"]["notes"]) for t in traces)
        if code != 0 or err:
            problems.append(f"{name}: exit {code}: {err.strip()[:300]}")
        elif not steps:
            problems.append(f"{name}: no step")
        elif notes != NOTED.get(name, 0):
            problems.append(f"{name}: {notes} ARH-SCH-013 notes")
        calls = [s for s in steps if s["type"] == "tool_call"]
        tokens = sum((s.get("input_tokens") or 0) + (s.get("output_tokens") or 0) for s in steps)
        errors = sum(s.get("status") == "error" for s in calls)
        for n, value in enumerate((len(traces), len(steps), len(calls), errors, tokens)):
            totals[n] += value
    assert problems == []
    if source in EXPECTED:
        assert tuple(totals) == EXPECTED[source]
