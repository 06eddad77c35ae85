"""The audit of every real recorded run in ../shared/real-runs (2026-11 and 2026-12; each
folder's PROVENANCE.txt says where the files come from): per source, `arh convert` reads
every file with no crash and no empty pass, and the figures below come out. Each figure
was counted by hand from the raw files (tool calls and their failures as the source writes
them, input/output tokens once per model request, as the source's own totals say), not
copied from ARH's output. Also: a wrong `--format` is refused with one error per file, and
`arh validate` under samples/policy.json judges every file (no input error). The files are never copied into
the project; the tests skip where the folder is absent (ARH_REAL_RUNS names it elsewhere).
"""

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

SKIP = {"PROVENANCE.txt", "LICENSE", "LICENSE.agentdojo"}

# source (a folder or file under REAL) -> (--format, files, of which refused, traces, tool
# calls, failed calls, input tokens, output tokens, ARH-SCH-013 notes).
TABLE: dict[str, tuple[str, int, int, int, int, int, int, int, int]] = {
    # 3 runs of the Invariant dataset JSONL, its metadata header line holds no run
    "2026-11/agentdojo/raw_sample_command-r-plus.jsonl": ("auto", 1, 0, 3, 3, 0, 0, 0, 0),
    # OpenAI chat message lists; 279 tool messages carry an `error`; 8 runs hold no step
    "2026-11/agentdojo/traces": ("openai-chat", 776, 8, 768, 2605, 279, 0, 0, 0),
    # usage once per message id (Claude Code repeats it on every content block's line)
    "2026-11/claude-code/raw": ("auto", 7, 0, 7, 61, 1, 1750168, 842, 0),
    "2026-11/more/inspect-ai": ("auto", 3, 0, 3, 9, 0, 15388, 284, 0),
    "2026-11/more/langsmith": ("auto", 2, 0, 2, 0, 0, 18, 18, 0),
    # 95 tool calls, 21 with a non-zero returncode; usage of each response
    "2026-11/more/mini-swe-agent": ("auto", 2, 0, 2, 95, 21, 1405920, 24207, 0),
    "2026-11/more/otel-genai": ("auto", 1, 0, 4, 0, 0, 142, 297, 0),
    # 265 calls, 12 tool messages with error: true; only the user simulator has usage
    "2026-11/more/tau2-bench": ("auto", 1, 0, 50, 265, 12, 0, 0, 0),
    # 227 trajectory actions + 5 calls of a history-only demonstration; 13 edits the lint
    # check did not apply and 3 commands SWE-agent interrupted (EXECUTION TIMED OUT);
    # tokens: info.model_stats of the 3 gpt4 runs
    "2026-11/swe-agent/raw": ("auto", 22, 0, 22, 232, 16, 182614, 1938, 0),
    "2026-11/tau-bench/raw_sample.json": ("auto", 1, 0, 5, 41, 6, 0, 0, 0),
    "2026-11/tau-bench/traces": ("openai-chat", 200, 0, 200, 1164, 0, 0, 0, 0),
    # models_usage of each assistant message
    "2026-12/autogen/raw": ("auto", 3, 0, 3, 0, 0, 661, 497, 0),
    # a navigation that timed out; no usage in AgentHistoryList dumps
    "2026-12/browser-use/raw": ("auto", 2, 0, 2, 6, 1, 0, 0, 0),
    "2026-12/claude-code/raw": ("auto", 5, 0, 5, 68, 2, 1965144, 1196, 0),
    # 314 calls, 31 failed (17 written only as text); last_token_usage of each request;
    # the note: an input_image part of a user message (a trace input is text)
    "2026-12/codex-cli/raw": ("auto", 5, 0, 5, 314, 31, 12738542, 132152, 1),
    "2026-12/codex-exec-json/raw": ("auto", 5, 0, 5, 4, 0, 27167, 614, 0),
    # tokens.input / tokens.output + tokens.thoughts of each gemini message
    "2026-12/gemini-cli/raw": ("auto", 1, 0, 1, 62, 2, 1053589, 29350, 0),
    # result.stats: input_tokens, total - input (5,696 thinking tokens); the 2nd and 3rd
    # runs are cut short (no result line, no usage)
    "2026-12/gemini-cli-stream-json/raw": ("auto", 2, 0, 3, 109, 6, 2152077, 12071, 0),
    # the model events' usage (the solver calls the model directly)
    "2026-12/inspect/raw": ("auto", 1, 0, 50, 0, 0, 239610, 125745, 0),
    # tool_returns (all status success) and OpenAI-shaped tool messages
    "2026-12/letta/raw": ("auto", 2, 0, 3, 90, 0, 0, 0, 0),
    # the sampling request answered during call 7 is kept in that call's metadata
    "2026-12/mcp/derived": ("auto", 2, 0, 2, 6, 0, 0, 0, 0),
    # each completion's usage once (a completion's later calls repeat it); exit codes
    "2026-12/openhands/raw": ("auto", 4, 0, 6, 115, 20, 1953599, 17035, 0),
    # 104 calls written as "Calling tools:" + 44 written only as "Error executing tool"
    "2026-12/smolagents/raw": ("auto", 1, 0, 50, 148, 44, 276552, 21753, 0),
}
# The source's own format of each 2026-12 folder (the wrong-format check refuses the rest).
OWN = {
    "autogen": "autogen",
    "browser-use": "browser-use",
    "claude-code": "claude-code",
    "codex-cli": "codex-cli",
    "codex-exec-json": "codex-exec",
    "gemini-cli": "gemini-cli",
    "gemini-cli-stream-json": "gemini-stream",
    "inspect": "inspect",
    "letta": "letta",
    "mcp": "mcp",
    "openhands": "openhands",
    "smolagents": "smolagents",
}


def arh(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def files(source: str) -> list[Path]:
    path = REAL / source
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and p.name not in SKIP)


def traces_of(text: str) -> list[dict[str, Any]]:
    decoder, found, at = json.JSONDecoder(), [], 0
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        value, at = decoder.raw_decode(text, at)
        found.extend(value if isinstance(value, list) else [value])
    return found


@pytest.mark.parametrize("source", sorted(TABLE))
def test_source_figures(source: str) -> None:
    fmt, *expected = TABLE[source]
    paths = files(source)
    figures = [len(paths), 0, 0, 0, 0, 0, 0, 0]
    for path in paths:
        code, out, err = arh("convert", "--format", fmt, str(path))
        assert "Traceback" not in err
        traces = traces_of(out)
        if code != 0:
            assert not traces and len(err.splitlines()) == 1, path  # one clear refusal
            figures[1] += 1
            continue
        assert err == "" and traces, path
        steps = [s for t in traces for s in t["steps"]]
        assert all(t["steps"] for t in traces), path  # no empty pass
        calls = [s for s in steps if s["type"] == "tool_call"]
        figures[2] += len(traces)
        figures[3] += len(calls)
        figures[4] += sum(s.get("status") == "error" for s in calls)
        figures[5] += sum(s.get("input_tokens") or 0 for s in steps)
        figures[6] += sum(s.get("output_tokens") or 0 for s in steps)
        figures[7] += sum(len(t["metadata"]["adapter"]["notes"]) for t in traces)
    assert figures == expected


@pytest.mark.parametrize("folder", sorted(OWN))
def test_wrong_format_is_one_error_per_file(folder: str) -> None:
    others = sorted(set(OWN.values()) | {"atif", "openai-chat", "swe-agent"})
    for path in files(f"2026-12/{folder}"):
        if path.suffix == ".txt":  # mcp raw captures: not a format ARH claims
            continue
        for fmt in others:
            if fmt == OWN[folder]:
                continue
            code, out, err = arh("convert", "--format", fmt, str(path))
            lines = err.splitlines()
            assert (code, out, len(lines)) == (1, "", 1), (path.name, fmt, err[:400])
            assert lines[0].startswith(f"error: {path}"), (path.name, fmt)


@pytest.mark.parametrize("folder", sorted(OWN))
def test_validate_reads_every_file_under_the_sample_policy(folder: str) -> None:
    policy = ROOT / "samples" / "policy.json"
    for path in files(f"2026-12/{folder}"):
        if path.suffix == ".txt":
            continue
        code, out, err = arh("validate", "--policy", str(policy), str(path))
        # exit 1: traces the sample policy fails (its required tools); never an input error
        assert code in (0, 1) and "error:" not in err and "Traceback" not in err, path
        summary = out.splitlines()[-1]
        assert summary.split()[1:2] == ["traces:"] and int(summary.split()[0]) > 0, summary
