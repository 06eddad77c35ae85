"""Per-file overhead and whole-process speed against other builds, in paired runs.

    python benchmarks/files_vs_jsonl.py [--count 10000] [--repeat 5]
        [--baseline-src DIR]     # another checkout's src/ parent (e.g. main before a change)
        [--reference-arh PATH]   # another tool's `arh` executable (PyPI 0.2.2 in a venv)

The same generated traces are written once as one JSONL file and once as one file per
trace (in 10 folders). Every round runs each variant once, in the same order (interleaved,
so machine load hits them alike); medians of wall and CPU seconds are printed, with the
per-file overhead (files minus JSONL, per trace) and the ratios of each round's pair.
Prints figures only; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402
import measure  # noqa: E402


def build(work: Path, count: int) -> tuple[Path, Path, Path, list[str]]:
    policy = work / "policy.json"
    policy.write_text(json.dumps(corpus.POLICY))
    jsonl = work / "traces.jsonl"
    corpus.write_jsonl(str(jsonl), 5, count)
    files = work / "files"
    names = []
    with jsonl.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle):
            folder = files / f"{number * 10 // count:02d}"
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"t{number:07d}.json"
            path.write_text(line, encoding="utf-8")
            names.append(str(path.relative_to(work)))
    return policy, jsonl, files, names


def launch(command: list[str], cwd: Path, src: str | None = None) -> measure.Run:
    """One child process through measure.py's launcher (wall, CPU, peak RSS)."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(Path(src) / "src")
    launcher = [sys.executable, measure.__file__, str(cwd), *command]
    done = subprocess.run(launcher, capture_output=True, text=True, check=True, env=env)
    return measure.Run(**json.loads(done.stdout))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--baseline-src", default=None)
    parser.add_argument("--reference-arh", default=None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="arh-files-") as tmp:
        work = Path(tmp)
        policy, _, _, names = build(work, args.count)
        arh = [sys.executable, "-m", "agent_reliability_harness", "validate", "--policy"]
        tail = ["--quiet", "--json-out", "out.json"]
        variants: dict[str, tuple[list[str], str | None]] = {
            "files --jobs 1": ([*arh, str(policy), "files", *tail, "--jobs", "1"], None),
            "jsonl --jobs 1": ([*arh, str(policy), "traces.jsonl", *tail, "--jobs", "1"], None),
            "files (default --jobs)": ([*arh, str(policy), "files", *tail], None),
        }
        if args.baseline_src:
            for name in ("files --jobs 1", "jsonl --jobs 1"):
                variants[f"baseline {name}"] = (variants[name][0], args.baseline_src)
        if args.reference_arh:
            ref = [args.reference_arh, "validate", "--policy", str(policy), *names, *tail]
            variants["reference, files"] = (ref, None)
        runs: dict[str, list[measure.Run]] = {name: [] for name in variants}
        for _ in range(args.repeat):
            for name, (command, src) in variants.items():
                runs[name].append(launch(command, work, src))
        report(runs, args.count)
    return 0


def report(runs: dict[str, list[measure.Run]], count: int) -> None:
    print(f"{count:,} traces, {len(next(iter(runs.values())))} interleaved rounds; medians")
    print("| variant | wall s | CPU s | peak RSS |")
    print("|---|---|---|---|")
    for name, done in runs.items():
        wall = statistics.median(r.wall for r in done)
        cpu = statistics.median(r.cpu for r in done)
        rss = max(r.peak_rss for r in done)
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {measure.rss_mb(rss)} |")

    def per_file(files: str, lines: str) -> str:
        diffs = [
            (f.cpu - j.cpu) / count * 1e6 for f, j in zip(runs[files], runs[lines], strict=True)
        ]
        walls = [
            (f.wall - j.wall) / count * 1e6 for f, j in zip(runs[files], runs[lines], strict=True)
        ]
        return f"{statistics.median(diffs):.1f} us CPU, {statistics.median(walls):.1f} us wall"

    overhead = per_file("files --jobs 1", "jsonl --jobs 1")
    print(f"- per-file overhead (files - JSONL, per trace): {overhead}")
    if "baseline files --jobs 1" in runs:
        before = per_file("baseline files --jobs 1", "baseline jsonl --jobs 1")
        print(f"- the same on the baseline build: {before}")
    if "reference, files" in runs:
        for ours in ("files --jobs 1", "files (default --jobs)"):
            walls = [
                r.wall / o.wall for r, o in zip(runs["reference, files"], runs[ours], strict=True)
            ]
            cpus = [
                r.cpu / o.cpu for r, o in zip(runs["reference, files"], runs[ours], strict=True)
            ]
            print(
                f"- reference / ours ({ours}): wall {statistics.median(walls):.2f}x, "
                f"CPU {statistics.median(cpus):.2f}x (median of paired rounds)"
            )


if __name__ == "__main__":
    sys.exit(main())
