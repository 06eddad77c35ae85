"""Fuzz targets through the command line: random files (mutated traces and transcripts,
random bytes, file names that are not valid UTF-8) in a directory validated with every
report format, converted, and compared with themselves; and extreme numbers in traces
(the one number policy: every number that can be read is written back and read again)."""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

from fuzzing import (
    EXTREME_NUMBERS,
    ROOT,
    check_promises,
    cli,
    edited_json,
    fuzz,
    mutated_bytes,
    seed_bytes,
    seed_values,
    to_json,
)
from hypothesis import given
from hypothesis import strategies as st

OPEN_POLICY = {"policy_id": "open", "allow_unlisted_tools": True}
POLICIES = [str(ROOT / "samples" / "policy.json"), str(ROOT / "samples" / "policies"), "open"]
CONTENTS = st.one_of(
    mutated_bytes(seed_bytes("traces")),
    mutated_bytes(seed_bytes("transcripts")),
    st.builds(to_json, edited_json(seed_values("traces"))),
    st.builds(to_json, edited_json(seed_values("transcripts"))),
    st.binary(max_size=40),
)
STEMS = st.one_of(
    st.sampled_from(["run", "a", "trace-1", "x y", "é", "bad\udcff", "\udcfe\udcff"]),
    st.binary(min_size=1, max_size=6)
    .filter(lambda raw: b"/" not in raw and b"\0" not in raw and raw not in (b".", b".."))
    .map(os.fsdecode),
)
SUFFIXES = st.sampled_from([".json", ".jsonl", ".traj", ".ndjson"])
FILES = st.lists(st.tuples(STEMS, SUFFIXES, CONTENTS), min_size=1, max_size=4)
OUTPUTS = ("json", "md", "sarif", "junit", "html")


def _write(directory: str, files: list[tuple[str, str, bytes]]) -> None:
    for stem, suffix, data in files:
        with open(os.path.join(directory, stem + suffix), "wb") as handle:
            handle.write(data)


def _validate(directory: str, policy: str, out: str) -> tuple[int, str, str]:
    outputs = [arg for kind in OUTPUTS for arg in (f"--{kind}-out", f"{out}.{kind}")]
    return cli(["validate", "--policy", policy, directory, "--jobs", "1", *outputs])


@fuzz(examples=10)
@given(files=FILES, policy=st.sampled_from(POLICIES))
def test_fuzz_cli(files: list[tuple[str, str, bytes]], policy: str) -> None:
    with tempfile.TemporaryDirectory() as top:
        traces = os.path.join(top, "traces")
        os.mkdir(traces)
        _write(traces, files)
        if policy == "open":
            policy = os.path.join(top, "open.json")
            _write(top, [("open", ".json", to_json(OPEN_POLICY))])
        out = os.path.join(top, "report")
        code, _, err = _validate(traces, policy, out)
        check_promises(code, err)
        with open(f"{out}.json", encoding="utf-8") as handle:
            report = json.load(handle)
        assert report["summary"]["total_traces"] == len(report["reports"])
        ids = [r["trace_id"] for r in report["reports"]]
        if len(set(ids)) == len(ids):  # compare refuses a report that judges one id twice
            code, _, err = cli(
                ["compare", "--baseline", f"{out}.json", "--candidate", f"{out}.json"]
            )
            check_promises(code, err, (0,))
        names = [os.path.join(traces, name) for name in sorted(os.listdir(traces))]
        code, converted, err = cli(["convert", *names])
        check_promises(code, err)
        decoder = json.JSONDecoder()
        at = 0
        while at < len(converted):
            _, at = decoder.raw_decode(converted, at)
            at += 1  # the newline after each document


def _step(index: int, draw: st.DrawFn) -> dict[str, Any]:
    number = st.sampled_from(EXTREME_NUMBERS)
    amount = st.one_of(st.none(), st.sampled_from([n for n in EXTREME_NUMBERS if n >= 0]))
    tokens = st.one_of(st.none(), st.sampled_from([0, 1, 2**63 - 1, 2.0, 2**62]))
    step: dict[str, Any] = {
        "step_id": f"s{index}",
        "type": draw(st.sampled_from(["tool_call", "model_response"])),
        "tool_name": "t",
        "arguments": {"n": draw(number), "m": [draw(number)]},
        "text": "ok",
        "latency_ms": draw(amount),
        "cost_usd": draw(amount),
        "input_tokens": draw(tokens),
        "output_tokens": draw(tokens),
        "metadata": {"x": draw(number)},
    }
    return {k: v for k, v in step.items() if v is not None}


@st.composite
def _extreme_trace(draw: st.DrawFn) -> dict[str, Any]:
    steps = [_step(i, draw) for i in range(draw(st.integers(1, 4)))]
    return {"trace_id": "n", "agent_name": "a", "workflow": "w", "steps": steps}


@st.composite
def _bounded_policy(draw: st.DrawFn) -> dict[str, Any]:
    bound = st.sampled_from([n for n in EXTREME_NUMBERS if abs(n) < 2**1024])
    rules = {"type": draw(st.sampled_from(["int", "float", "number"])), "max": draw(bound)}
    return {
        "policy_id": "numbers",
        "allowed_tools": {"t": {"optional_arguments": {"n": rules, "m": {"type": "list"}}}},
        "budgets": {"max_total_latency_ms": draw(bound), "max_total_tokens": 2**63 - 1},
    }


@fuzz(examples=15)
@given(trace=_extreme_trace(), policy=st.one_of(st.just(OPEN_POLICY), _bounded_policy()))
def test_fuzz_numbers_round_trip(trace: dict[str, Any], policy: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as top:
        trace_path, policy_path = os.path.join(top, "t.json"), os.path.join(top, "p.json")
        with open(trace_path, "wb") as handle:
            handle.write(to_json(trace))
        with open(policy_path, "wb") as handle:
            handle.write(to_json(policy))
        out = os.path.join(top, "report")
        code, _, err = _validate(trace_path, policy_path, out)
        check_promises(code, err)
        if err:  # the policy refused a bound (a clean error) or the trace a value
            return
        code, _, err = cli(["compare", "--baseline", f"{out}.json", "--candidate", f"{out}.json"])
        check_promises(code, err, (0,))
        code, _, err = cli(
            ["compare", "--baseline", f"{out}.json", "--policy", policy_path, trace_path]
        )
        check_promises(code, err, (0,))
