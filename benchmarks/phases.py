"""Where one `arh validate --jobs 1` process spends its CPU, by phase of the pipeline.

    python benchmarks/phases.py --policy POLICY [--runs 3] PATH...

Runs the CLI in this process with three methods wrapped to sum their CPU time
(time.process_time): Evaluator.evaluate (the facts, every rule, the scores and the
report object), PartialBuilder.add (the report pieces made per trace), and
UnitProcessor.process_all (everything done per chunk of inputs; less the two above, it is
reading, decoding and routing). The rest of the process is start-up and writing the
report. Prints the phases of the run with the least CPU in all (the wrappers add one
call each per trace: negligible against the work). Use byte-compiled code (unset
PYTHONDONTWRITEBYTECODE) so that start-up is what an installed copy pays.
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PHASES = ("evaluate", "pieces", "read, decode, route", "start-up, writing")


def _wrap(owner: type, name: str, totals: dict[str, float], key: str) -> None:
    method: Callable[..., Any] = getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return method(*args, **kwargs)
        finally:
            totals[key] = totals.get(key, 0.0) + time.process_time() - start

    setattr(owner, name, timed)


def one_run(arguments: list[str]) -> dict[str, float]:
    """The CPU seconds of each phase of one `arh` run in this process."""
    from agent_reliability_harness.cli import main  # noqa: PLC0415 - after the argv parse
    from agent_reliability_harness.engine import Evaluator  # noqa: PLC0415
    from agent_reliability_harness.pipeline.partial import PartialBuilder  # noqa: PLC0415
    from agent_reliability_harness.pipeline.process import UnitProcessor  # noqa: PLC0415

    totals: dict[str, float] = {}
    _wrap(Evaluator, "evaluate", totals, "evaluate")
    _wrap(PartialBuilder, "add", totals, "pieces")
    _wrap(UnitProcessor, "process_all", totals, "chunks")
    with contextlib.suppress(SystemExit):
        main(arguments)
    whole = time.process_time()
    evaluate, pieces = totals.get("evaluate", 0.0), totals.get("pieces", 0.0)
    chunks = totals.get("chunks", 0.0)
    return {
        "evaluate": evaluate,
        "pieces": pieces,
        "read, decode, route": chunks - evaluate - pieces,
        "start-up, writing": whole - chunks,
        "total": whole,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args(argv)
    if args.child:  # one measured run, in a fresh process (start-up included)
        with tempfile.TemporaryDirectory(prefix="arh-phases-") as tmp:
            out = str(Path(tmp) / "report.json")
            cli = ["validate", "--jobs", "1", "--quiet", "--policy", args.policy]
            phases = one_run([*cli, "--json-out", out, *args.paths])
        print(" ".join(f"{phases[key]:.6f}" for key in (*PHASES, "total")))
        return 0
    runs = []
    for _ in range(args.runs):
        command = [sys.executable, __file__, "--child", "--policy", args.policy, *args.paths]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        runs.append([float(value) for value in done.stdout.split()])
    best = min(runs, key=lambda run: run[-1])
    total = best[-1]
    print("| phase | CPU s | share |")
    print("|---|---|---|")
    for key, value in zip(PHASES, best, strict=False):
        print(f"| {key} | {value:.2f} | {value / total:.0%} |")
    print(f"| whole process | {total:.2f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
