"""The progress line: only on a terminal, only after a moment, never under --quiet."""

from __future__ import annotations

import io
from pathlib import Path

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.cli.progress import DELAY_S, Progress

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_silent_during_the_first_moment_then_drawn_and_cleared() -> None:
    clock, err = _Clock(), io.StringIO()
    progress = Progress(err, 1000, enabled=True, clock=clock)
    progress.update(1, 100)
    assert err.getvalue() == ""
    clock.now += DELAY_S + 0.01
    progress.update(1, 400)
    assert "[" in err.getvalue() and "50%" in err.getvalue() and "2 traces" in err.getvalue()
    progress.clear()
    assert err.getvalue().endswith("\r\033[K")


def test_disabled_progress_writes_nothing() -> None:
    clock, err = _Clock(), io.StringIO()
    progress = Progress(err, None, enabled=False, clock=clock)
    clock.now += 10
    progress.update(5, 5)
    progress.clear()
    assert err.getvalue() == ""


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _run(err: io.StringIO, *extra: str) -> str:
    args = ["validate", "--policy", str(SAMPLES / "policy.json"), str(SAMPLES / "traces"), *extra]
    main(args, Streams(io.StringIO(), err, None))
    return err.getvalue()


def test_cli_quick_run_on_a_terminal_shows_no_bar() -> None:
    assert "\r" not in _run(_Tty())
    assert _run(_Tty(), "--quiet") == ""
    assert "\r" not in _run(io.StringIO())
