"""Every input format, binary ones included (OTLP protobuf, Inspect `.eval`), through every
executor: the adapter fixture tree gives the same report bytes and the same input errors
on a Dask cluster, a process pool and in process."""

from __future__ import annotations

import io
from pathlib import Path

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams

FIXTURES = Path(__file__).resolve().parents[1] / "adapters" / "fixtures"


def _run(tmp_path: Path, *executor: str) -> tuple[int, str, str]:
    policy, report = tmp_path / "policy.json", tmp_path / f"{executor[0].strip('-')}.json"
    policy.write_text('{"policy_id": "p"}', "utf-8")
    out, err = io.StringIO(), io.StringIO()
    argv = ["validate", "--policy", str(policy), "--quiet", "--json-out", str(report)]
    code = main([*argv, *executor, str(FIXTURES)], Streams(out, err, io.BytesIO()))
    return code, err.getvalue(), report.read_text("utf-8")


def test_every_format_gives_the_same_bytes_on_every_executor(
    scheduler: str, tmp_path: Path
) -> None:
    assert {p.suffix for p in FIXTURES.rglob("*")} >= {".pb", ".binpb", ".eval", ".jsonl"}
    one = _run(tmp_path, "--jobs", "1")
    assert one[0] == 1 and one[1].count("error: ") == 1  # the tau2 voice run, refused
    assert '"source_path": ' in one[2] and ".binpb" in one[2] and ".eval" in one[2]
    assert _run(tmp_path, "--jobs", "2") == one
    assert _run(tmp_path, "--dask", scheduler) == one
