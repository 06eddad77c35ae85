"""Issue 18 items of the pipeline, each reproduced through the CLI: JSONL lines that merely
hold `data`/`object` keys are not held as span-export batches (memory stays flat); ARH's
own report with extreme totals is a valid baseline; reports are written atomically and
their targets checked before the run."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import measure  # benchmarks/ (on the path via conftest)
import pytest

from agent_reliability_harness import adapters
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.inputs import Entry
from agent_reliability_harness.inputs.units import _jsonl_units
from agent_reliability_harness.pipeline import Reader, sinks
from helpers import ROOT, SAMPLES, make_trace, response, tool_call

OPEN = {"policy_id": "open", "allow_unlisted_tools": True}


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def _lookalike(number: int, pad: int = 0) -> str:
    """A canonical trace whose text holds every span-export marker but is not an export."""
    meta = {"data": [number, "x" * pad], "object": "trace", "resourceSpans": None}
    return json.dumps(make_trace(response("s1", metadata=meta), trace_id=f"t{number}"))


def test_export_lookalike_lines_are_not_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text("".join(_lookalike(n) + "\n" for n in range(50)))
    merged: list[Any] = []
    real = adapters.merge_exports
    monkeypatch.setattr(adapters, "merge_exports", lambda *a: merged.append(a) or real(*a))
    items = list(Reader().items(_jsonl_units(Entry("t", str(path)), None)))
    assert len(items) == 50 and not merged
    policy = tmp_path / "p.json"
    policy.write_text(json.dumps(OPEN))
    code, out, _ = _cli(
        ["validate", "--policy", str(policy), str(path), "--quiet", "--json-out", "-"]
    )
    assert code == 0 and json.loads(out)["summary"]["total_traces"] == 50


def _peak_rss(args: list[str], cwd: Path) -> int:
    """Peak resident memory (bytes) of `arh ARGS`, started through a small launcher so
    that the memory of this (large) test process does not count."""
    run = measure.run_arh(args, cwd=cwd)
    assert run.code == 0, run.stderr
    return run.peak_rss


def test_memory_stays_flat_whatever_the_lines_hold(tmp_path: Path) -> None:
    policy = tmp_path / "p.json"
    policy.write_text(json.dumps(OPEN))
    small, big = tmp_path / "small.jsonl", tmp_path / "big.jsonl"
    small.write_text("".join(_lookalike(n, 2000) + "\n" for n in range(100)))
    big.write_text("".join(_lookalike(n, 2000) + "\n" for n in range(6_000)))  # ~13 MB
    args = ["validate", "--policy", str(policy), "--quiet", "--jobs", "1"]
    grown = _peak_rss([*args, str(big)], tmp_path) - _peak_rss([*args, str(small)], tmp_path)
    # Held as one export batch (as before), the lines would add ~35 MB; streamed, ~2 MB.
    assert grown < 10 * 2**20, grown


def test_own_report_with_extreme_totals_is_a_baseline(tmp_path: Path) -> None:
    top = 1.79e308
    steps = [
        tool_call("s1", "t", {}, latency_ms=top, cost_usd=top, input_tokens=2**63 - 1),
        response("s2", latency_ms=top, cost_usd=top, output_tokens=2**63 - 1),
    ]
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps(make_trace(*steps, trace_id="extreme")))
    policy = tmp_path / "p.json"
    policy.write_text(json.dumps(OPEN))
    report = tmp_path / "report.json"
    code, _, err = _cli(
        ["validate", "--policy", str(policy), str(trace), "--json-out", str(report)]
    )
    assert (code, err) == (0, "")
    written = json.loads(report.read_text())["reports"][0]
    assert written["total_tokens"] == 2 * (2**63 - 1)
    for candidate in (["--candidate", str(report)], ["--policy", str(policy), str(trace)]):
        code, out, err = _cli(["compare", "--baseline", str(report), *candidate, "--json-out", "-"])
        assert (code, err) == (0, ""), err
        assert "Infinity" not in out and "NaN" not in out


def _validate(target: Path | str, extra: list[str] | None = None) -> tuple[int, str, str]:
    args = ["validate", "--policy", str(SAMPLES / "policy.json"), str(SAMPLES / "traces")]
    return _cli([*args, "--quiet", "--json-out", str(target), *(extra or [])])


def test_outputs_are_checked_before_the_run(tmp_path: Path) -> None:
    missing = tmp_path / "nodir" / "x.json"
    code, out, err = _cli(
        [
            "validate",
            "--policy",
            str(SAMPLES / "policy.json"),
            str(SAMPLES / "traces"),
            "--md-out",
            str(missing),
        ]
    )
    assert (code, out) == (1, "")  # nothing was validated
    assert err == f"error: {missing}: cannot write: No such file or directory\n"
    code, out, err = _cli(
        [
            "compare",
            "--baseline",
            str(missing),
            "--candidate",
            str(missing),
            "--json-out",
            str(tmp_path),
        ]
    )
    assert (code, out, err) == (1, "", f"error: {tmp_path}: cannot write: Is a directory\n")


def test_interrupted_write_leaves_the_old_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.json"
    target.write_text("the old baseline\n")
    target.chmod(0o640)
    real = sinks.run_pieces

    def interrupted(*args: Any) -> Any:
        pieces = real(*args)
        yield next(pieces)
        raise KeyboardInterrupt  # Ctrl-C (or SIGTERM, which the CLI turns into it)

    monkeypatch.setattr(sinks, "run_pieces", interrupted)
    assert _validate(target)[0] == 130
    assert target.read_text() == "the old baseline\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]  # no temp file left
    monkeypatch.setattr(sinks, "run_pieces", real)
    assert _validate(target)[0] == 1
    assert json.loads(target.read_text())["summary"]["total_traces"] == 9
    assert target.stat().st_mode & 0o777 == 0o640  # the replaced file's mode is kept


def test_concurrent_runs_each_write_a_complete_report(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    policy = SAMPLES / "policy.json"
    inputs = [str(SAMPLES / "traces" / "refund-ok.json"), str(SAMPLES / "traces")]
    expected = set()
    for one in inputs:
        done = tmp_path / f"alone-{len(expected)}.json"
        _cli(["validate", "--policy", str(policy), one, "--quiet", "--json-out", str(done)])
        expected.add(done.read_text())
    command = [
        sys.executable,
        "-m",
        "agent_reliability_harness",
        "validate",
        "--policy",
        str(policy),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    for _ in range(2):
        procs = [
            subprocess.Popen([*command, one, "--quiet", "--json-out", str(target)], env=env)
            for one in inputs
        ]
        assert all(p.wait(timeout=120) in (0, 1) for p in procs)
        assert target.read_text() in expected
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_pipe_target_is_written_in_place(tmp_path: Path) -> None:
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    code, _, err = _validate(fifo)
    reader.join(timeout=60)
    assert (code, err) == (1, "")
    assert json.loads(received[0])["summary"]["total_traces"] == 9
    assert stat.S_ISFIFO(fifo.stat().st_mode)  # still a pipe, not replaced by a file
