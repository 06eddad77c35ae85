"""Shared by the issue-18 fault tests: the CLI in this process and as a real process
(for faults that need one: closed or full standard streams, signals, pipes), a launcher
that holds a run in the middle of writing its report, and small input builders."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from helpers import ROOT, make_trace, response, tool_call

OPEN = {"policy_id": "open", "allow_unlisted_tools": True}
ARH = [sys.executable, "-m", "agent_reliability_harness"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
ENV.pop("ARH_MAX_INPUT_BYTES", None)
# A safety net against a hang (a hang is the failure); no verdict depends on it.
HANG_S = 120


def cli(args: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    """`arh ARGS` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO(stdin)))
    return code, out.getvalue(), err.getvalue()


def arh(args: list[str], **popen: Any) -> subprocess.CompletedProcess[bytes]:
    """`arh ARGS` as a real process (stdout and stderr captured unless redirected)."""
    popen.setdefault("stdout", subprocess.PIPE)
    popen.setdefault("stderr", subprocess.PIPE)
    popen.setdefault("stdin", subprocess.DEVNULL)
    return subprocess.run([*ARH, *args], env=ENV, timeout=HANG_S, check=False, **popen)


def shell(script: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    """`sh -c SCRIPT` with `$arh` set to the command (for redirections such as `>&-`)."""
    command = " ".join(f'"{part}"' for part in ARH)
    return subprocess.run(
        ["sh", "-c", f'arh() {{ {command} "$@"; }}; {script}', "sh", *args],
        env=ENV,
        capture_output=True,
        timeout=HANG_S,
        check=False,
    )


def write_json(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def open_policy(directory: Path) -> Path:
    return write_json(directory / "open.json", OPEN)


def good_trace(directory: Path, trace_id: str = "good") -> Path:
    trace = make_trace(tool_call("s1", "lookup", {"q": 1}), response("s2"), trace_id=trace_id)
    return write_json(directory / f"{trace_id}.json", trace)


def assert_clean(err: str, code: int, codes: tuple[int, ...] = (1,)) -> None:
    """The promise of every input error: exit code, one line per problem, no traceback."""
    assert code in codes, (code, err)
    assert "Traceback" not in err and "internal error" not in err, err
    for line in err.splitlines():
        assert line.startswith(("error: ", "warning: ")), line


# Runs `arh` with the JSON report sink's pieces held after the first one (the report's
# temporary file exists and holds part of it): it touches MARKER, then waits for its
# standard input to close (or for a signal) before writing the rest.
HOLD_MID_WRITE = """
import sys
from agent_reliability_harness.pipeline import sinks
marker, *argv = sys.argv[1:]
real = sinks.run_pieces
def held(*args, **kwargs):
    pieces = real(*args, **kwargs)
    yield next(pieces)
    open(marker, "w").close()
    sys.stdin.read()
    yield from pieces
sinks.run_pieces = held
from agent_reliability_harness.cli import main
sys.exit(main(argv))
"""


def start_held(marker: Path, args: list[str]) -> subprocess.Popen[bytes]:
    """`arh ARGS` held in the middle of writing its JSON report (see HOLD_MID_WRITE)."""
    return subprocess.Popen(
        [sys.executable, "-c", HOLD_MID_WRITE, str(marker), *args],
        env=ENV,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def wait_for(path: Path, proc: subprocess.Popen[bytes]) -> None:
    """Until `path` exists (the held run reached its write), or the process ended."""
    deadline = time.monotonic() + HANG_S
    while not path.exists():
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else proc.returncode
        assert time.monotonic() < deadline, "the run never reached its report write"
        time.sleep(0.01)


def temporary_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))
