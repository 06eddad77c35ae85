"""`arh validate` writes every CI format in one run, byte-identical across hash seeds."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.pipeline import executors, process

pytestmark = pytest.mark.usefixtures("at_repo_root")  # inputs are read by relative path

FORMATS = {"json": "r.json", "md": "r.md", "junit": "r.xml", "sarif": "r.sarif"}


def _arh(out: Path, seed: str) -> dict[str, bytes]:
    args = [
        "validate",
        "--policy",
        "tests/data/samples/policy.json",
        "tests/data/samples/traces",
        "--quiet",
    ]
    for name, file in FORMATS.items():
        args += [f"--{name}-out", str(out / file)]
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run(
        [sys.executable, "-m", "agent_reliability_harness", *args],
        check=False,
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr  # the samples include failing traces
    return {name: (out / file).read_bytes() for name, file in FORMATS.items()}


def test_outputs_identical_across_hash_seeds(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = _arh(tmp_path / "a", "1")
    second = _arh(tmp_path / "b", "4242")
    assert first == second
    golden = Path("tests/golden")
    assert first["md"] == (golden / "md/samples.md").read_bytes()
    assert b"/tmp" not in first["sarif"] and str(Path.cwd()).encode() not in first["sarif"]


def _spy_positions(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    seen: list[bool] = []
    original = process.make_processor

    def spy(plan: process.WorkPlan) -> process.Processor:
        seen.append(plan.needs.positions)
        return original(plan)

    monkeypatch.setattr(executors, "make_processor", spy)
    return seen


def test_positions_scanned_only_for_sarif(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _spy_positions(monkeypatch)
    base = [
        "validate",
        "--policy",
        "tests/data/samples/policy.json",
        "tests/data/samples/traces",
        "--quiet",
    ]
    assert (
        main([*base, "--md-out", str(tmp_path / "r.md"), "--junit-out", str(tmp_path / "r.xml")])
        == 1
    )
    assert main([*base, "--sarif-out", str(tmp_path / "r.sarif")]) == 1
    assert seen == [False, True]


def test_stdin_traces_get_logical_locations_only(tmp_path: Path) -> None:
    trace = Path("tests/data/samples/traces/grounding-fail.json").read_bytes()
    out, err = io.StringIO(), io.StringIO()
    args = ["validate", "--policy", "tests/data/samples/policy.json", "-", "--quiet"]
    target = tmp_path / "r.sarif"
    assert main([*args, "--sarif-out", str(target)], Streams(out, err, io.BytesIO(trace))) == 1
    results = json.loads(target.read_text(encoding="utf-8"))["runs"][0]["results"]
    assert results and all("physicalLocation" not in r["locations"][0] for r in results)
    assert all(r["locations"][0]["logicalLocations"] for r in results)
