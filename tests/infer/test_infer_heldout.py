"""`arh infer` on a public benchmark's graded runs (held out: never committed). Point
ARH_HELDOUT_TAU_BENCH at tau-bench's historical_trajectories/gpt-4o-airline.json (200 runs,
outcome from the reward) to run it; the figures are in docs/infer.md."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams

HELDOUT = os.environ.get("ARH_HELDOUT_TAU_BENCH")


@pytest.mark.skipif(
    not HELDOUT, reason="set ARH_HELDOUT_TAU_BENCH to tau-bench's gpt-4o-airline.json"
)
def test_the_policy_inferred_from_tau_bench_passes_its_good_runs(tmp_path: Path) -> None:
    out = io.StringIO()
    args = [
        "infer",
        str(HELDOUT),
        "--out-dir",
        str(tmp_path / "p"),
        "--out",
        str(tmp_path / "p.json"),
    ]
    code = main(args, Streams(out, io.StringIO(), io.BytesIO()))
    text = out.getvalue()
    assert code == 0, text
    good = int(text.split()[2])
    assert good > 0 and f"passes {good} of {good} good runs" in text
    flagged = int(text.split(" and flags ")[1].split()[0])
    assert flagged > 0
