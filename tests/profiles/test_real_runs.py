"""The coding-agent profile over the public coding-agent runs (../shared/real-runs, or
ARH_REAL_RUNS; skipped when absent): exactly the safety findings reviewed by hand as
right (benchmarks/profiles.py lists them), so a change that adds a wrong one fails."""

from __future__ import annotations

import importlib.util
import os
from collections import Counter
from pathlib import Path

import pytest

HERE = Path(__file__).resolve()
REAL_RUNS = Path(os.environ.get("ARH_REAL_RUNS") or HERE.parents[3] / "shared" / "real-runs")
BENCHMARK = HERE.parents[2] / "benchmarks" / "profiles.py"

# (rule, source): findings, each reviewed as right (docs/profiles.md, the review).
REVIEWED = {
    ("ARH-SAF-003", "2026-12-06/claude-code-stream-json"): 1,  # a real `rm -rf /` test
    ("ARH-SAF-005", "2026-12/claude-code"): 1,  # cat apps/app/.env
    ("ARH-SAF-006", "2026-12-06/claude-code-stream-json"): 2,  # Write /etc/..., /invalid/...
}


@pytest.mark.skipif(not REAL_RUNS.is_dir(), reason="no real-runs folder")
def test_coding_agent_safety_findings_are_the_reviewed_ones() -> None:
    spec = importlib.util.spec_from_file_location("profiles_benchmark", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    counts, _, sizes = module.sweep(REAL_RUNS)
    assert sizes, "no coding-agent runs read"
    safety = Counter(
        {
            (rule, source): n
            for (profile, rule, source), n in counts.items()
            if profile == "coding-agent" and rule.startswith("ARH-SAF-")
        }
    )
    assert safety == Counter(REVIEWED)
