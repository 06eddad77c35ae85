"""Inspect logs of other Inspect versions and of several evals (shapes of real logs, built
from the mockllm fixtures): cached tokens counted inside `input_tokens` (older OpenAI and
Grok usage), events under `transcript.events` (version-2 logs of Inspect 0.3.4x), task ids
and trace ids of samples of different evals, an `.eval` archive on standard input."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.adapters import to_canonical
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams

FIX = Path(__file__).resolve().parent / "fixtures" / "inspect"
POLICY = Path(__file__).resolve().parents[2] / "samples" / "policy.json"


def _log(name: str = "refunds.json") -> dict[str, Any]:
    log: dict[str, Any] = json.loads((FIX / name).read_text("utf-8"))
    return log


def _first_usage(log: dict[str, Any], usage: dict[str, Any]) -> int | None:
    """The input tokens of the first step of sample 0 when its first model call has `usage`."""
    sample = log["samples"][0]
    model = next(e for e in sample["events"] if e["event"] == "model")
    model["output"]["usage"] = usage
    steps = to_canonical(log, "inspect")[0]["steps"]
    tokens: int | None = steps[0].get("input_tokens")
    return tokens


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        # Inspect 0.3.95, OpenAI: input_tokens already holds the 1024 cached ones.
        (
            {
                "input_tokens": 1568,
                "output_tokens": 17,
                "total_tokens": 1585,
                "input_tokens_cache_read": 1024,
                "reasoning_tokens": 0,
            },
            1568,
        ),
        # Older Grok (OpenAI-compatible): reasoning counted apart from output_tokens.
        (
            {
                "input_tokens": 1568,
                "output_tokens": 17,
                "reasoning_tokens": 100,
                "total_tokens": 1685,
                "input_tokens_cache_read": 1024,
            },
            1568,
        ),
        # Inspect now: the cache apart from input_tokens, and inside total_tokens.
        (
            {
                "input_tokens": 544,
                "output_tokens": 17,
                "total_tokens": 1585,
                "input_tokens_cache_read": 1024,
            },
            1568,
        ),
        # Anthropic: reads and writes apart.
        (
            {
                "input_tokens": 10,
                "output_tokens": 5,
                "total_tokens": 315,
                "input_tokens_cache_read": 200,
                "input_tokens_cache_write": 100,
            },
            310,
        ),
        # Both readings fit (cache = reasoning, inside output_tokens): today's rule.
        (
            {
                "input_tokens": 544,
                "output_tokens": 1100,
                "reasoning_tokens": 1024,
                "total_tokens": 2668,
                "input_tokens_cache_read": 1024,
            },
            1568,
        ),
        # No total, or one that fits neither reading: the cache is added.
        ({"input_tokens": 544, "output_tokens": 17, "input_tokens_cache_read": 1024}, 1568),
        (
            {
                "input_tokens": 544,
                "output_tokens": 17,
                "total_tokens": 0,
                "input_tokens_cache_read": 1024,
            },
            1568,
        ),
    ],
)
def test_cached_tokens_are_counted_once(usage: dict[str, Any], expected: int) -> None:
    assert _first_usage(_log(), usage) == expected


def test_usage_of_an_old_openai_log_adds_up_to_its_model_usage() -> None:
    """The shape of a real Inspect 0.3.95 browser eval: per call total = input + output,
    the cache inside; the trace's input tokens are the log's, not ~60% more."""
    log = _log()
    sample = log["samples"][0]
    calls = [e for e in sample["events"] if e["event"] == "model"]
    records = [(1124, 23, 0), (1568, 17, 1024), (2732, 17, 1536)]
    for event, (tokens_in, tokens_out, cached) in zip(calls, records, strict=True):
        event["output"]["usage"] = {
            "input_tokens": tokens_in,
            "output_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
            "input_tokens_cache_read": cached,
            "reasoning_tokens": 0,
        }
    steps = to_canonical(log, "inspect")[0]["steps"]
    assert sum(s.get("input_tokens", 0) for s in steps) == 1124 + 1568 + 2732


def test_events_under_the_transcript_give_usage_and_latency() -> None:
    """Version-2 logs of Inspect 0.3.4x keep the events in `transcript.events` (next to a
    `content` pool the events' inputs refer to)."""
    log = _log()
    old = copy.deepcopy(log)
    for sample in old["samples"]:
        sample["transcript"] = {"events": sample.pop("events"), "content": {}}
    now, then = to_canonical(log, "inspect"), to_canonical(old, "inspect")
    assert [t["steps"] for t in then] == [t["steps"] for t in now]
    assert then[0]["steps"][0]["input_tokens"] == 120
    assert then[0]["steps"][0]["latency_ms"] == 700.0
    assert [t["metadata"]["adapter"]["notes"] for t in then] == [[] for _ in then]


def test_samples_of_different_evals_are_different_tasks() -> None:
    """Both evals have a sample `retry`: the task name keeps them (and their traces) apart."""
    refunds = to_canonical(_log(), "inspect")
    graded = to_canonical(_log("graded-incorrect.json"), "inspect")
    assert [(t["task_id"], t["trace_id"]) for t in refunds + graded] == [
        ("refunds/clean", "refunds/clean-1"),
        ("refunds/parallel", "refunds/parallel-1"),
        ("refunds/retry", "refunds/retry-1"),
        ("graded/retry", "graded/retry-1"),
    ]


def test_epochs_of_one_sample_are_one_task() -> None:
    log = _log()
    log["samples"] = [
        {**copy.deepcopy(log["samples"][0]), "epoch": epoch, "uuid": f"u{epoch}"}
        for epoch in (1, 2)
    ]
    traces = to_canonical(log, "inspect")
    assert [(t["task_id"], t["trace_id"]) for t in traces] == [
        ("refunds/clean", "refunds/clean-1"),
        ("refunds/clean", "refunds/clean-2"),
    ]


def _arh(*argv: str, stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(out, err, io.BytesIO(stdin)))
    return code, out.getvalue(), err.getvalue()


def test_a_directory_of_logs_of_different_evals_compares(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    for name in ("refunds.json", "graded-incorrect.json"):
        (logs / name).write_bytes((FIX / name).read_bytes())
    base = tmp_path / "base.json"
    _arh("validate", "--policy", str(POLICY), str(logs), "--json-out", str(base), "--quiet")
    ids = [r["trace_id"] for r in json.loads(base.read_text("utf-8"))["reports"]]
    assert len(ids) == len(set(ids)) == 4
    code, _, err = _arh("compare", "--baseline", str(base), "--policy", str(POLICY), str(logs))
    assert "duplicate" not in err
    assert code == 0


def test_an_eval_archive_on_standard_input_is_one_clear_error() -> None:
    code, out, err = _arh("convert", "-", stdin=(FIX / "refunds.eval").read_bytes())
    assert (code, out) == (1, "")
    assert err == (
        "error: <stdin>: a zip archive on standard input: .eval archives (Inspect logs) "
        "must be given as a file path\n"
    )
