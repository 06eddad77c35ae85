"""Issue 18 items 8 and 9: reports are written atomically, in real processes and with
real signals. A run interrupted (SIGINT, SIGTERM) in the middle of writing `--json-out`
leaves the previous file as it was and no temporary file; two runs writing the same
`--json-out` each produce one complete report, never an interleaving.

Deterministic: the interrupted run is held in the middle of its write (faultkit's
launcher) until the test has seen its temporary file and sent the signal."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from faultkit import ARH, ENV, HANG_S, arh, cli, start_held, temporary_files, wait_for

from helpers import SAMPLES, make_trace, response, tool_call

OLD = "the previous baseline\n"


def _args(target: Path, *paths: str) -> list[str]:
    policy = str(SAMPLES / "policy.json")
    inputs = paths or (str(SAMPLES / "traces"),)
    return ["validate", "--policy", policy, *inputs, "--quiet", "--json-out", str(target)]


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_write_leaves_the_old_report(
    signum: signal.Signals, code: int, tmp_path: Path
) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    target = reports / "report.json"
    target.write_text(OLD)
    marker = tmp_path / "writing"
    proc = start_held(marker, _args(target))
    try:
        wait_for(marker, proc)
        assert len(temporary_files(reports)) == 1  # the new report is being written beside
        proc.send_signal(signum)
        assert proc.wait(timeout=HANG_S) == code
    finally:
        proc.kill()
    assert target.read_text() == OLD
    assert temporary_files(reports) == []
    assert proc.stderr is not None and b"Traceback" not in proc.stderr.read()


def test_concurrent_runs_each_write_a_complete_report(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    target = reports / "report.json"
    one = str(SAMPLES / "traces" / "refund-ok.json")
    expected = {}
    for name, paths in (("first", [one]), ("second", [])):
        alone = tmp_path / f"{name}.json"
        cli(_args(alone, *paths))
        expected[name] = alone.read_text()
    marker = tmp_path / "writing"
    first = start_held(marker, _args(target, one))
    try:
        wait_for(marker, first)
        # The second run starts and finishes while the first is half-way through its write.
        second = arh(_args(target))
        assert second.returncode == 1, second.stderr
        assert target.read_text() == expected["second"]
        assert first.stdin is not None
        first.stdin.close()  # let the first run finish its write
        assert first.wait(timeout=HANG_S) == 0
    finally:
        first.kill()
    assert target.read_text() == expected["first"]
    assert temporary_files(reports) == []


def test_a_signal_during_a_big_run_never_leaves_a_partial_report(tmp_path: Path) -> None:
    """The way item 8 was found: a big report, the signal sent once its temporary file
    exists. Whenever the signal lands, the file is the old one or a complete report."""
    steps = [tool_call(f"s{i}", "lookup_order", {"order_id": "ORD-1234"}) for i in range(40)]
    lines = tmp_path / "big.jsonl"
    with open(lines, "w", encoding="utf-8") as handle:
        for n in range(1000):
            handle.write(json.dumps(make_trace(*steps, response("end"), trace_id=f"t{n}")) + "\n")
    target = tmp_path / "report.json"
    target.write_text(OLD)
    command = [*_args(target, str(lines)), "--jobs", "1"]
    proc = subprocess.Popen(
        [*ARH, *command], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        while proc.poll() is None and not temporary_files(tmp_path):
            time.sleep(0.001)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=HANG_S)
    finally:
        proc.kill()
    text = target.read_text()
    assert text == OLD or json.loads(text)["summary"]["total_traces"] == 1000
    assert temporary_files(tmp_path) == []


def test_a_failed_write_keeps_the_old_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    target = reports / "report.json"
    target.write_text(OLD)

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)  # the disk fills up as the report is written
    code, _, err = cli(_args(target))
    assert code == 1
    assert err == f"error: {target}: cannot write: No space left on device\n"
    assert target.read_text() == OLD
    assert temporary_files(reports) == []


def test_an_interrupt_as_the_temporary_file_is_created_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The narrowest window of the signal test above, made certain: Ctrl-C lands right
    after the temporary file exists and before its descriptor is returned."""
    from agent_reliability_harness import atomic  # noqa: PLC0415

    real_open = os.open

    def interrupted(path: str, flags: int, mode: int = 0o777) -> int:
        os.close(real_open(path, flags, mode))
        raise KeyboardInterrupt

    target = tmp_path / "report.json"
    target.write_text(OLD)
    monkeypatch.setattr(atomic.os, "open", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic.write_atomic(str(target), ["{}\n"])
    assert target.read_text() == OLD
    assert temporary_files(tmp_path) == []
