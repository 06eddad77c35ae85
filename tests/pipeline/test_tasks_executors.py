"""The `tasks` section (repeated runs) is built by an accumulator through the pipeline's
extension point: every executor, however the runs are chunked, gives the same bytes in
every format."""

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
    files = {fmt: tmp_path / f"{name}.{fmt}" for fmt in ("json", "md", "junit")}
    out, err = io.StringIO(), io.StringIO()
    args = ["validate", "--policy", str(SAMPLES / "repeated" / "policy.json")]
    args += [
        str(SAMPLES / "repeated" / "baseline.jsonl"),
        str(SAMPLES / "repeated" / "candidate.jsonl"),
    ]
    args += ["--task-id-from", "^(refund-[a-z])-run"]
    for fmt, path in files.items():
        args += [f"--{fmt}-out", str(path)]
    code = main([*args, *how], Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue(), *(p.read_text() for p in files.values())


def test_tasks_section_is_the_same_on_every_executor(
    tmp_path: Path, scheduler: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = _outputs(tmp_path, "--jobs", "1")
    assert one[0] == 1 and one[2] == ""
    assert '"tasks": [' in str(one[3]) and "Repeated runs: 3 tasks" in str(one[1])
    assert "task refund-a" in str(one[5])
    monkeypatch.setattr(executors, "CHUNK_UNITS", 5)  # tasks split across partials
    monkeypatch.setattr(executors, "CHUNK_BYTES", 20_000)
    assert _outputs(tmp_path, "--jobs", "2") == one
    assert _outputs(tmp_path, "--dask", scheduler) == one
