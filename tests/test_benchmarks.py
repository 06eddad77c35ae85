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


def test_compiled_benchmark_names_real_hot_modules() -> None:
    """benchmarks/compiled.py compiles HOT by path: each must still be a module of the
    package (a renamed one would make the measurement skip it)."""
    import compiled  # noqa: PLC0415 - benchmarks/ is on sys.path (conftest)

    package = compiled.SRC / compiled.PACKAGE
    assert len(set(compiled.HOT)) == len(compiled.HOT)
    missing = [name for name in compiled.HOT if not (package / name).is_file()]
    assert missing == []
    assert {"engine.py", "rules/facts.py", "models/trace.py"} <= set(compiled.HOT)


def test_phases_benchmark_times_every_phase() -> None:
    """benchmarks/phases.py wraps pipeline methods by name: each phase must get time (a
    renamed method would leave its phase at zero and fold it into another)."""
    root = RUNNER.parent.parent
    command = [sys.executable, str(RUNNER.parent / "phases.py"), "--runs", "1"]
    command += ["--policy", str(root / "samples" / "policy.json"), str(root / "samples")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split("|")[1:-1] for line in done.stdout.splitlines()[2:]]
    seconds = {name.strip(): float(cpu) for name, cpu, _ in rows}
    assert set(seconds) == {"evaluate", "pieces", "read, decode, route", "start-up, writing",
                            "whole process"}  # fmt: skip
    assert all(value > 0 for value in seconds.values()), seconds
    parts = sum(value for name, value in seconds.items() if name != "whole process")
    assert abs(parts - seconds["whole process"]) < 0.03  # each figure rounded to 0.01


def test_every_marked_section_is_kept_in_order(tmp_path: Path) -> None:
    import reference  # noqa: PLC0415 - benchmarks/ is on sys.path (conftest)

    results = tmp_path / "RESULTS.md"
    results.write_text("# head\n\n<!-- by hand: begin -->\nnote\n<!-- by hand: end -->\n")
    reference.write_section(results, ["| ref |"])
    reference.write_section(results, ["| cache |"], "## Cache", reference.CACHE_MARKERS)
    kept = reference.kept_sections(results)
    assert kept.index("note") < kept.index("| ref |") < kept.index("| cache |")
    assert kept[0] == "<!-- by hand: begin -->" and kept[-1] == reference.CACHE_MARKERS[1]
    assert kept.count("") == 2 + 2  # after each title, and between the three sections
