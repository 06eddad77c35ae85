"""Paired whole-process timings of two ARH builds on the same inputs (CPU and wall seconds).

    python benchmarks/paired.py --ref OLD_SRC [--new NEW_SRC] [--runs 3]

Runs alternate between the builds (ref, new, ref, new, ...) so that a busy machine
slows both alike; the best of the runs is reported, with the new/ref ratio. Inputs
(seeded): one 100k-step trace of back-to-back faulted episodes (every rule family
firing, ~560 B/step), a 10k-trace JSONL corpus and 2,000 single-trace files, with
`--jobs 1` (CPU time is then the work itself, without a process pool's).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus
from equivalence import long_faulted_trace


def _run(src: str | None, args: list[str], cwd: Path) -> tuple[float, float]:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src
    command = [sys.executable, "-m", "agent_reliability_harness", *args]
    start = time.perf_counter()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=null, stderr=null)
        _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - start


def _inputs(work: Path, given: str | None = None) -> dict[str, list[str]]:
    policy = work / "policy.json"
    policy.write_text(Path(given).read_text() if given else json.dumps(corpus.POLICY))
    long = work / "long.json"
    long.write_text(json.dumps(long_faulted_trace(100_000), separators=(",", ":")))
    corpus.write_jsonl(str(work / "corpus.jsonl"), 3, 10_000)
    files = work / "files"
    files.mkdir()
    for index in range(2_000):
        trace, _ = corpus.make_trace(4, index)
        (files / f"t{index:05d}.json").write_text(json.dumps(trace))
    base = ["validate", "--policy", str(policy), "--jobs", "1", "--quiet"]
    base += ["--json-out", str(work / "out.json")]
    return {
        "100k-step trace": [*base, str(long)],
        "10k-trace JSONL": [*base, str(work / "corpus.jsonl")],
        "2k trace files": [*base, str(files)],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", required=True, help="PYTHONPATH of the reference build")
    parser.add_argument("--new", help="PYTHONPATH of the new build (default: installed)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--policy", help="policy file to run with (default: the corpus policy)")
    parser.add_argument("--only", help="run only the input whose name starts with this (e.g. 100k)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="arh-paired-") as tmp:
        work = Path(tmp)
        print("| input | ref CPU s (wall) | new CPU s (wall) | new/ref CPU |")
        print("|---|---|---|---|")
        for name, command in _inputs(work, args.policy).items():
            if args.only and not name.startswith(args.only):
                continue
            best: dict[str, tuple[float, float]] = {}
            for _ in range(args.runs):
                for label, src in (("ref", args.ref), ("new", args.new)):
                    cpu, wall = _run(src, command, work)
                    old = best.get(label)
                    best[label] = (cpu, wall) if old is None or cpu < old[0] else old
            (rc, rw), (nc, nw) = best["ref"], best["new"]
            print(f"| {name} | {rc:.2f} ({rw:.2f}) | {nc:.2f} ({nw:.2f}) | {nc / rc:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
