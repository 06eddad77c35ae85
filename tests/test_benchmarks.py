"""The benchmark runner's --quick mode: perfect detection, invariance and determinism."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

RUNNER = Path(__file__).resolve().parent.parent / "benchmarks" / "run.py"


def test_quick_benchmark(tmp_path: Path) -> None:
    summary = tmp_path / "summary.json"
    done = subprocess.run(
        [sys.executable, str(RUNNER), "--quick", "--summary-json", str(summary)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(summary.read_text())
    assert figures["precision"] == 1.0
    assert figures["recall"] == 1.0
    checks = {k: v for k, v in figures.items() if isinstance(v, bool)}
    assert len(checks) >= 7
    assert all(checks.values()), checks
