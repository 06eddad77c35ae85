"""Issue 18 item 6: standard-stream faults, in real processes. Standard output on
/dev/full or closed ends with one `error:` line and exit 1 (a reader that went away:
quietly), never a traceback, an internal error or exit code 120; with standard error
closed, `error:` lines never reach standard output (they would corrupt `--json-out -`)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from faultkit import ARH, arh, good_trace, open_policy, shell

from helpers import SAMPLES

FULL = "error: cannot write to standard output: No space left on device\n"
CLOSED = "error: cannot write to standard output: it is closed\n"
VALIDATE = ["validate", "--policy", str(SAMPLES / "policy.json"), str(SAMPLES / "traces")]
COMMANDS = {
    "version": ["--version"],
    "help": ["--help"],
    "rules": ["rules"],
    "validate": VALIDATE,
    "json-out": [*VALIDATE, "--quiet", "--json-out", "-"],
    "convert": ["convert", str(SAMPLES / "traces" / "refund-ok.json")],
}


@pytest.mark.parametrize("name", COMMANDS)
def test_stdout_on_dev_full(name: str) -> None:
    with open("/dev/full", "wb") as full:
        done = arh(COMMANDS[name], stdout=full)
    assert (done.returncode, done.stderr.decode()) == (1, FULL)


@pytest.mark.parametrize("name", COMMANDS)
def test_stdout_closed(name: str) -> None:
    done = shell('arh "$@" >&-', *COMMANDS[name])
    assert (done.returncode, done.stderr.decode()) == (1, CLOSED)


def test_quiet_run_with_stdout_closed_is_a_normal_run() -> None:
    done = shell('arh "$@" >&-', *VALIDATE, "--quiet")
    assert (done.returncode, done.stderr) == (1, b"")  # 1: the samples fail on purpose


def test_stdout_reader_gone() -> None:
    read, write = os.pipe()
    os.close(read)  # nobody will ever read: every write gets EPIPE
    try:
        done = arh(VALIDATE, stdout=write)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (1, b"")


def test_stderr_closed_keeps_errors_out_of_stdout(tmp_path: Path) -> None:
    good = good_trace(tmp_path)
    args = ["validate", "--policy", str(open_policy(tmp_path)), str(tmp_path / "missing.json")]
    done = shell('arh "$@" --quiet --json-out - 2>&-', *args, str(good))
    assert done.returncode == 1
    report = json.loads(done.stdout)  # nothing but the report
    assert [r["trace_id"] for r in report["reports"]] == ["good"]
    assert report["input_errors"][0]["message"] == "no such file or directory"


def test_stderr_full_keeps_the_exit_code(tmp_path: Path) -> None:
    args = ["validate", "--policy", str(open_policy(tmp_path)), str(tmp_path / "missing.json")]
    with open("/dev/full", "wb") as full:
        done = arh([*args, "--quiet", "--json-out", "-"], stderr=full)
    assert done.returncode == 1
    assert json.loads(done.stdout)["summary"]["total_traces"] == 0


def test_all_three_standard_streams_closed(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    done = subprocess.run(
        ["sh", "-c", '"$@" <&- >&- 2>&-', "sh", *ARH, *VALIDATE, "--json-out", str(report)],
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 1
    assert json.loads(report.read_text())["summary"]["total_traces"] == 9  # written in full
