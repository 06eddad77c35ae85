"""benchmarks/claims.py on the public tau-bench airline runs (skipped when absent): the
airline claims policy flags no run with reward 1, and only runs whose answer claims an
action no call made."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

from helpers import ROOT as REPO

# ARH_REAL_RUNS: the real-runs folder, for a checkout that is not beside shared/ (a worktree).
ROOT = Path(os.environ.get("ARH_REAL_RUNS") or REPO / ".." / "shared" / "real-runs")
TAU = ROOT / "2026-11" / "tau-bench"
pytestmark = pytest.mark.skipif(not (TAU / "labels.json").is_file(), reason="no tau-bench runs")


def _benchmark() -> ModuleType:
    spec = importlib.util.spec_from_file_location("claims_bench", REPO / "benchmarks" / "claims.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["claims_bench"] = module
    spec.loader.exec_module(module)
    return module


def test_no_good_run_is_flagged() -> None:
    bench = _benchmark()
    policy = bench._policy(REPO / "benchmarks" / "claims-airline.json", None)
    runs = bench._flagged(TAU, policy)
    assert len(runs) == 200
    good = [name for name, reward, found, _ in runs if reward == 1.0 and found]
    assert not good
    bad = {name for name, reward, found, _ in runs if reward == 0.0 and found}
    assert bad  # the baggage claims no baggage call backs
    for name, _, found, _ in runs:
        if name in bad:
            assert all(f.rule_id == "ARH-GRD-004" for f in found), name
