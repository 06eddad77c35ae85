"""The `coverage` section and the `--otlp-out` events (policy v1.2 section 6) are merged
from per-partial counts and per-trace pieces: every executor, however the inputs are
chunked, gives the same bytes."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.pipeline import executors
from helpers import SAMPLES


def _outputs(tmp_path: Path, *how: str) -> tuple[object, ...]:
    name = "-".join(how).replace("/", "_").replace(":", "_") or "default"
    files = {fmt: tmp_path / f"{name}.{fmt}" for fmt in ("json", "md", "otlp")}
    args = ["validate", "--policy", str(SAMPLES / "policy.json"), str(SAMPLES / "traces")]
    args += [str(SAMPLES / "repeated" / "candidate.jsonl"), "--coverage"]
    for fmt, path in files.items():
        args += [f"--{fmt}-out", str(path)]
    out, err = io.StringIO(), io.StringIO()
    code = main([*args, *how], Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue(), *(p.read_text() for p in files.values())


def test_coverage_and_otlp_are_the_same_on_every_executor(
    tmp_path: Path, scheduler: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = _outputs(tmp_path, "--jobs", "1")
    assert '"coverage": {' in str(one[3]) and "### Tool coverage:" in str(one[4])
    assert str(one[5]).count('"eventName":"gen_ai.evaluation.result"') > 24
    monkeypatch.setattr(executors, "CHUNK_UNITS", 3)  # counts split across partials
    monkeypatch.setattr(executors, "CHUNK_BYTES", 20_000)
    assert _outputs(tmp_path, "--jobs", "2") == one
    assert _outputs(tmp_path, "--dask", scheduler) == one
