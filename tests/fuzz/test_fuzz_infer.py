"""Fuzz target for `arh infer`: a directory of runs (traces of extreme numbers with
outcomes and task ids, mutated traces and transcripts, random bytes) learned into a
policy and its per-task policies; whatever it writes must load and judge the runs."""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

from fuzzing import EXTREME_NUMBERS, check_promises, cli, fuzz, to_json
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz_cli import CONTENTS, _extreme_trace

OUTCOMES = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {"success": st.sampled_from([True, True, True, False])},
        optional={"reward": st.sampled_from([n for n in EXTREME_NUMBERS if abs(n) < 2**1024])},
    ),
)


@st.composite
def _run(draw: st.DrawFn, index: int) -> bytes:
    if draw(st.integers(0, 4)) == 0:  # mostly runs that can be learned from
        return draw(CONTENTS)
    trace: dict[str, Any] = draw(_extreme_trace())
    trace["trace_id"] = f"task{draw(st.integers(0, 2))}-run{index}"
    outcome = draw(OUTCOMES)
    if outcome is not None:
        trace["outcome"] = outcome
    return to_json(trace)


@st.composite
def _runs(draw: st.DrawFn) -> list[bytes]:
    return [draw(_run(i)) for i in range(draw(st.integers(1, 5)))]


@fuzz(examples=10)
@given(runs=_runs(), all_good=st.sampled_from([True, True, False]), per_task=st.booleans())
def test_fuzz_infer(runs: list[bytes], all_good: bool, per_task: bool) -> None:
    with tempfile.TemporaryDirectory() as top:
        directory = os.path.join(top, "runs")
        os.mkdir(directory)
        for index, data in enumerate(runs):
            with open(os.path.join(directory, f"r{index}.json"), "wb") as handle:
                handle.write(data)
        good = ["--all-good"] if all_good else []
        target = ["--out-dir", os.path.join(top, "out")] if per_task else ["--out", "-"]
        tasks = ["--task-id-from", r"^(task\d+)-"]
        code, out, err = cli(["infer", directory, *good, *target, *tasks, "--quiet"])
        check_promises(code, err)
        if code != 0:
            return
        written = _written(top, out, per_task)
        for policy in written:
            code, _, err = cli(["check-policy", policy])
            check_promises(code, err, (0,))
            code, _, err = cli(["validate", "--policy", policy, directory, "--jobs", "1"])
            check_promises(code, err)


def _written(top: str, out: str, per_task: bool) -> list[str]:
    """The policy files infer wrote (with --out -, its standard output saved as one)."""
    if per_task:
        root = os.path.join(top, "out")
        return sorted(
            os.path.join(base, name)
            for base, _, names in os.walk(root)
            for name in names
            if name.endswith(".json")
        )
    json.loads(out)  # one JSON document on standard output
    path = os.path.join(top, "policy.json")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(out)
    return [path]
