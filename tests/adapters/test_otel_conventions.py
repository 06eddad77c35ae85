"""OTLP as oteltest captures it, and the OpenLit and LangSmith-OTel span conventions
(fixtures: sdk_otel_conventions.py, built with opentelemetry-sdk and LangChain's dumpd),
plus the real captures of ../shared/real-runs/2026-12-06/otel-llm-bakeoff (skipped where
absent): each run's model call read once, with the provider's tokens and the answer."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("langchain_core")

import sdk_otel_conventions as conv

from agent_reliability_harness.adapters import to_canonical
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.errors import AdapterError

HERE = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("ARH_REAL_RUNS") or HERE.parents[1] / ".." / "shared" / "real-runs")
REAL = ROOT / "2026-12-06" / "otel-llm-bakeoff" / "raw"


def one(value: Any) -> dict[str, Any]:
    (trace,) = to_canonical(value)
    assert isinstance(trace, dict)
    return trace


def test_an_oteltest_capture_is_an_otlp_export() -> None:
    assert one(conv.capture(conv.openlit()))["source"] == "otel-genai"


def test_a_capture_with_logs_is_not_claimed_as_spans() -> None:
    value = conv.capture(conv.openlit())
    value["log_requests"] = [{"pbreq": {"resourceLogs": []}}]
    with pytest.raises(AdapterError, match=r"unrecognised"):
        to_canonical(value)


def test_openlit_plain_text_events_and_the_framework_span_around_the_call() -> None:
    trace = one(conv.capture(conv.openlit()))
    (step,) = trace["steps"]
    assert (step["text"], step["input_tokens"], step["output_tokens"]) == ("Paris.", 21, 3)
    assert trace["inputs"] == [
        {"role": "system", "text": "Answer briefly."},
        {"role": "user", "text": "What is the capital\nof France?"},
    ]
    adapter = trace["metadata"]["adapter"]
    assert adapter["notes"] == []
    assert list(adapter["skipped"].values()) == [1]


def test_langsmith_runs_are_read_by_run_type() -> None:
    trace = one(conv.capture(conv.langsmith()))
    kinds = [(s["type"], s.get("tool_name")) for s in trace["steps"]]
    assert kinds == [
        ("model_response", None),
        ("tool_call", "get_weather"),
        ("model_response", None),
    ]
    call = trace["steps"][1]
    assert (call["step_id"], call["arguments"], call["output"]) == (
        "call_1",
        {"city": "Oslo"},
        "4C, rain",
    )
    assert trace["steps"][-1]["text"] == "It is 4C and raining."
    assert [s.get("input_tokens") for s in trace["steps"]] == [30, None, 50]
    assert [i["role"] for i in trace["inputs"]] == ["system", "user"]
    assert trace["metadata"]["adapter"]["notes"] == []


def test_a_langsmith_tool_run_no_model_asked_for_is_a_call_of_its_own() -> None:
    spans = conv.langsmith()
    del spans[2]  # the model span that asked for it
    trace = one(conv.capture(spans))
    calls = [s for s in trace["steps"] if s["type"] == "tool_call"]
    assert [(c["tool_name"], c["arguments"]) for c in calls] == [
        ("get_weather", {"input": "{'city': 'Oslo'}"})
    ]


# --- real captures -----------------------------------------------------------------

# file -> per run: (input tokens, output tokens, answer's start), as the provider reported
_REAL = {
    "ott-llmetry.json": [(39, 7, "The capital of France is Paris."), (38, 93, "Photosynthesis")],
    "ott-lit.json": [(39, 7, "The capital of France is Paris."), (38, 110, "Photosynthesis")],
    "ott-langsmith.json": [(39, 7, "The capital of France is Paris."), (38, 97, "Photosynthesis")],
}


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/real-runs is absent")
@pytest.mark.parametrize("name", sorted(_REAL))
def test_real_captures_read_faithfully(name: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["convert", str(REAL / name)], Streams(out, err, io.BytesIO()))
    assert (code, err.getvalue()) == (0, "")
    traces = json.loads(out.getvalue())
    assert len(traces) == len(_REAL[name])
    for trace, (tokens_in, tokens_out, answer) in zip(traces, _REAL[name], strict=True):
        (step,) = trace["steps"]
        assert step["type"] == "model_response" and step["text"].startswith(answer)
        assert (step["input_tokens"], step["output_tokens"]) == (tokens_in, tokens_out)
        assert trace["inputs"][0]["role"] == "user"
        assert trace["metadata"]["adapter"]["notes"] == []
