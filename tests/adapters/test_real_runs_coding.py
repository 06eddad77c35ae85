"""Real runs of the coding-agent sources of ../shared/real-runs/2026-12-06 (PROVENANCE.txt
in each folder): `cursor-agent` stream-json, Cline task histories and a Cline SDK session,
Claude Code 1.0.x stream-json. Each file is read with `--format auto`: its own format
detected (no other format claims it), every call with its result (a run's closing
`attempt_completion` excepted), the failed calls the file records, tokens (and cost)
equal to the totals the file records, no ARH-SCH-013 note except the content named here.
The figures come from the files, counted independently of the adapters. Skipped where the
folder is absent (a fresh clone)."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.adapters.core import detect as _detect
from agent_reliability_harness.adapters.core.registry import ADAPTERS
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams

ROOT = Path(
    os.environ.get("ARH_REAL_RUNS")
    or Path(__file__).resolve().parents[2] / ".." / "shared" / "real-runs"
)
REAL = ROOT / "2026-12-06"
pytestmark = pytest.mark.skipif(not REAL.is_dir(), reason="../shared/real-runs is absent")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def convert(path: Path) -> dict[str, Any]:
    code, out, err = run("convert", str(path))
    assert (code, err) == (0, "")
    value = json.loads(out)
    (trace,) = value if isinstance(value, list) else [value]
    assert trace["steps"], "an empty pass"
    return trace


def records(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


def claimed_by(value: Any) -> list[str]:
    scan = _detect.Scan(value)
    return [a.name for a in ADAPTERS[1:] if scan.claims(a)]


def calls(trace: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in trace["steps"] if s["type"] == "tool_call"]


def measured(trace: dict[str, Any], key: str) -> float:
    return sum(s.get(key) or 0 for s in trace["steps"])


def notes(trace: dict[str, Any]) -> list[str]:
    return [n["issue"] for n in trace["metadata"]["adapter"]["notes"]]


def files(folder: str, pattern: str = "*") -> list[Path]:
    return sorted(p for p in (REAL / folder / "raw").rglob(pattern) if p.is_file())


# --- cursor-agent -------------------------------------------------------------------------


@pytest.mark.parametrize("path", files("cursor-agent-stream-json"), ids=lambda p: p.name)
def test_cursor_agent_runs(path: Path) -> None:
    lines = records(path)
    started = [x for x in lines if x["type"] == "tool_call" and x["subtype"] == "started"]
    assert claimed_by(lines) == ["cursor-agent"]
    trace = convert(path)
    assert trace["source"] == "cursor-agent"
    assert [c["step_id"] for c in calls(trace)] == [x["call_id"] for x in started]
    assert all("output" in c and c.get("status") != "error" for c in calls(trace))
    assert notes(trace) == []
    answer = [s for s in trace["steps"] if s["type"] == "model_response"][-1]["text"]
    assert lines[-1]["result"].endswith(answer)
    # Claude Code's reader refuses the file, naming the format it is.
    code, _, err = run("convert", "--format", "claude-code", str(path))
    assert code == 1 and "cursor-agent" in err


# --- Cline --------------------------------------------------------------------------------


def _cline_totals(messages: list[dict[str, Any]]) -> tuple[int, int, float]:
    ins = outs = 0
    cost = 0.0
    for message in messages:
        metrics = message.get("metrics") or {}
        tokens = metrics.get("tokens")
        if tokens is not None:
            ins += tokens.get("prompt", 0) + tokens.get("cached", 0)
            outs += tokens.get("completion", 0)
        else:
            ins += metrics.get("inputTokens", 0)
            outs += metrics.get("outputTokens", 0)
            cost += metrics.get("cost", 0)
    return ins, outs, cost


# task id -> (tool calls, calls Cline refused to run)
CLINE_TASKS = {"1769053680585": (47, 0), "1769064454592": (38, 3)}


@pytest.mark.parametrize("task", sorted(CLINE_TASKS))
def test_cline_task_histories(task: str) -> None:
    path = REAL / "cline-task-history" / "raw" / task / "api_conversation_history.json"
    if not path.is_file():
        pytest.skip("absent")
    messages = records(path)
    assert claimed_by(messages) == ["cline"]
    trace = convert(path)
    total, refused = CLINE_TASKS[task]
    found = calls(trace)
    uses = [b for m in messages if m["role"] == "assistant" for b in m["content"]]
    assert len(found) == total == sum(b.get("type") == "tool_use" for b in uses)
    assert sum(c.get("status") == "error" for c in found) == refused
    assert [c["tool_name"] for c in found if "output" not in c] == ["attempt_completion"]
    ins, outs, _ = _cline_totals(messages)
    assert (measured(trace, "input_tokens"), measured(trace, "output_tokens")) == (ins, outs)
    assert trace["metadata"]["final_answer"] == found[-1]["arguments"]["result"]
    assert notes(trace) == []
    assert [i["text"][:80] for i in trace["inputs"]] == [messages[0]["content"][0]["text"][7:87]]
    code, _, err = run("convert", "--format", "anthropic-messages", str(path))
    assert code == 1 and "pass --format cline" in err


def test_cline_sdk_session() -> None:
    path = REAL / "cline-sdk-session" / "raw" / "session.messages.json"
    if not path.is_file():
        pytest.skip("absent")
    session = records(path)
    assert claimed_by(session) == ["cline"]
    trace = convert(path)
    assert trace["trace_id"] == session["sessionId"]
    found = calls(trace)
    assert len(found) == 11 and all("output" in c and c.get("status") != "error" for c in found)
    ins, outs, cost = _cline_totals(session["messages"])
    assert (measured(trace, "input_tokens"), measured(trace, "output_tokens")) == (ins, outs)
    assert measured(trace, "cost_usd") == pytest.approx(cost, rel=1e-9)
    # The one note: the @-mentioned file's content the prompt carries (not a step).
    assert notes(trace) == ["file attached to the prompt (its content is not a step)"]
    users = [m for m in session["messages"] if m["role"] == "user"]
    prompts = [b for m in users for b in m["content"] if b["type"] == "text"]
    assert [i["role"] for i in trace["inputs"]] == ["system"] + ["user"] * len(prompts)


# --- Claude Code stream-json --------------------------------------------------------------


def _result_totals(lines: list[dict[str, Any]]) -> tuple[int, int, float] | None:
    ends = [x for x in lines if x.get("type") == "result"]
    if not ends:
        return None
    usage, end = ends[-1]["usage"], ends[-1]
    ins = sum(usage.get(k, 0) for k in ("input_tokens", "cache_creation_input_tokens"))
    ins += usage.get("cache_read_input_tokens", 0)
    cost = next(end[k] for k in ("total_cost_usd", "cost_usd", "total_cost") if k in end)
    return ins, usage["output_tokens"], cost


@pytest.mark.parametrize("path", files("claude-code-stream-json"), ids=lambda p: p.name)
def test_claude_code_stream_json_totals(path: Path) -> None:
    lines = records(path)
    assert claimed_by(lines) == ["claude-code"]
    trace = convert(path)
    assert notes(trace) == []
    uses = [
        b
        for x in lines
        if x["type"] == "assistant"
        for b in x["message"]["content"]
        if b["type"] == "tool_use"
    ]
    assert len(calls(trace)) == len({b["id"] for b in uses})
    recorded = _result_totals(lines)
    if recorded is None:  # thread-1: cut off before its result line
        return
    ins, outs, cost = recorded
    # The result line counts the main agent's messages; sub-agent messages their own.
    sub = [s for s in trace["steps"] if s.get("parent_step_id") is not None]
    assert measured(trace, "input_tokens") == ins + sum(s.get("input_tokens") or 0 for s in sub)
    assert measured(trace, "output_tokens") == outs + sum(s.get("output_tokens") or 0 for s in sub)
    assert measured(trace, "cost_usd") == pytest.approx(cost, rel=1e-9)
