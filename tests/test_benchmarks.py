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


def test_reference_section_is_replaced_in_place_and_kept(tmp_path: Path) -> None:
    import reference  # noqa: PLC0415 - benchmarks/ is on sys.path (conftest)

    results = tmp_path / "RESULTS.md"
    results.write_text("# head\n\nbody\n")
    reference.write_section(results, ["| first |"])
    reference.write_section(results, ["| second |"])
    text = results.read_text()
    assert text.count(reference.BEGIN) == 1
    assert "| first |" not in text
    assert text.startswith("# head\n\nbody\n\n")
    assert text.rstrip().endswith(reference.END)
    kept = reference.kept_section(results)
    assert kept[0] == reference.BEGIN
    assert kept[-1] == reference.END
    assert "| second |" in kept
    assert reference.kept_section(tmp_path / "missing.md") == []
