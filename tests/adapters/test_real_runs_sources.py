"""Real runs of AgentOps, Moatless, AutoCodeRover and Google ADK
(../shared/real-runs/2026-12-06, see each folder's PROVENANCE.txt): `arh convert`
(auto-detection) reads each file as its own format, with no note and no empty pass, and
the figures below, counted by hand from the raw files (calls, failed calls, tokens as the
file records them), come out; `--format` of the right name reads it the same, a wrong one
refuses it. Skipped when the folder is absent (ARH_REAL_RUNS may name it); the files are
never copied into the project."""

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
RUNS = REAL / "2026-12-06"

pytestmark = pytest.mark.skipif(not RUNS.is_dir(), reason="../shared/real-runs is absent")

# file -> (format, (tool calls, failed calls, other failed steps, input tokens, output tokens))
FIGURES: dict[str, tuple[str, tuple[int, int, int, int, int]]] = {
    # one model call, no tool; the root span's usage (52 / 439) is the run total
    "agentops-trace-api/raw/api_output.json": ("agentops", (0, 0, 0, 52, 439)),
    # SemanticSearch, ViewCode (fail_reason no_spans_added), StringReplace, Finish; usage
    # of the five agent completions and of SemanticSearch's own model call
    "moatless/raw/itegration_test_claude-3-haiku-20240307.json": (
        "moatless",
        (4, 1, 0, 31376, 892),
    ),
    # SemanticSearch, then an ActionError (the model answered without a tool call);
    # input tokens include Anthropic's cache reads (cached_tokens)
    "moatless/raw/itegration_test_claude-3-5-haiku-latest.json": (
        "moatless",
        (1, 0, 1, 16218, 654),
    ),
    # 4 + 1 dispatched search calls; "Could not find class Pix2Sky_TAN in the codebase."
    "autocoderover/raw/astropy__astropy-12907.conversation_round_3.json": (
        "autocoderover",
        (5, 1, 0, 0, 0),
    ),
    "autocoderover/raw/astropy__astropy-12907.debug_agent_write_patch_1.json": (
        "autocoderover",
        (5, 1, 0, 0, 0),
    ),
    # ACR's call log: 7 calls, Pix2Sky_TAN's call_ok false
    "autocoderover/raw/astropy__astropy-12907.tool_call_sequence.json": (
        "autocoderover",
        (7, 1, 0, 0, 0),
    ),
    # update_fc; usage of the three model calls in event_logs
    "google-adk/raw/context_update_test.successful_test.session.json": (
        "google-adk",
        (1, 0, 0, 255, 59),
    ),
    # two transfer_to_other_agent calls; no event_logs (no usage)
    "google-adk/raw/flow_complex_spark.sample.session.json": ("google-adk", (2, 0, 0, 0, 0)),
}


def arh(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def convert(relative: str, fmt: str = "auto") -> list[dict[str, Any]]:
    code, out, err = arh("convert", "--format", fmt, str(RUNS / relative))
    assert code == 0, err
    value = json.loads(out)
    return value if isinstance(value, list) else [value]


def figures(trace: dict[str, Any]) -> tuple[int, int, int, int, int]:
    steps = trace["steps"]
    calls = [s for s in steps if s["type"] == "tool_call"]
    failed = [s for s in calls if s.get("status") == "error"]
    other = [s for s in steps if s["type"] != "tool_call" and s.get("status") == "error"]
    tokens_in = sum(s.get("input_tokens") or 0 for s in steps)
    tokens_out = sum(s.get("output_tokens") or 0 for s in steps)
    return len(calls), len(failed), len(other), tokens_in, tokens_out


@pytest.mark.parametrize("relative", sorted(FIGURES))
def test_real_run(relative: str) -> None:
    fmt, expected = FIGURES[relative]
    (trace,) = convert(relative)
    assert trace["source"] == fmt
    assert trace["metadata"]["adapter"]["notes"] == []
    assert trace["steps"]
    assert figures(trace) == expected
    # every call has its outcome (an output, or the verdict the file records)
    assert all(
        s.get("status") in ("ok", "error") for s in trace["steps"] if s["type"] == "tool_call"
    )
    assert convert(relative, fmt) == [trace]


@pytest.mark.parametrize("relative", sorted(FIGURES))
def test_wrong_format_is_refused(relative: str) -> None:
    fmt = FIGURES[relative][0]
    other = "openai-chat" if fmt != "openai-chat" else "anthropic-messages"
    code, out, err = arh("convert", "--format", other, str(RUNS / relative))
    assert code == 1 and not out.strip()
    assert err.count("error:") == 1 and "Traceback" not in err


def test_agentops_answer_agent_and_inputs() -> None:
    (trace,) = convert("agentops-trace-api/raw/api_output.json")
    assert trace["agent_name"] == "Hello World Agent"
    assert trace["inputs"] == [{"role": "user", "text": "Tell me about recursion in programming."}]
    (step,) = trace["steps"]
    assert step["type"] == "model_response" and step["text"].startswith("Recursion in programming")
    assert step["text"].endswith("mitigate some of the performance costs.")  # not the root's cut


def test_moatless_final_answer_and_failure() -> None:
    (done,) = convert("moatless/raw/itegration_test_claude-3-haiku-20240307.json")
    assert done["steps"][-1]["tool_name"] == "Finish"
    assert done["metadata"]["final_answer"].startswith("The code change to address the race")
    (error,) = convert("moatless/raw/itegration_test_claude-3-5-haiku-latest.json")
    last = error["steps"][-1]
    assert last["type"] == "model_response" and "Failed to generate action" in last["error"]


def test_autocoderover_patch_is_the_answer() -> None:
    (trace,) = convert("autocoderover/raw/astropy__astropy-12907.debug_agent_write_patch_1.json")
    answers = [s for s in trace["steps"] if s["type"] == "model_response"]
    assert "# modification 1" in answers[-1]["text"]
    failed = [s for s in trace["steps"] if s.get("status") == "error"]
    assert [s["arguments"] for s in failed] == [{"class_name": "Pix2Sky_TAN"}]


def test_adk_agents() -> None:
    (trace,) = convert("google-adk/raw/flow_complex_spark.sample.session.json")
    agents = list(dict.fromkeys(s["agent"] for s in trace["steps"]))
    assert agents == [
        "spark_assistant",
        "research_plan_agent",
        "question_generation_agent",
        "information_retrieval_agent",
        "summary_agent",
    ]
