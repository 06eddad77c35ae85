"""Paired whole-process timings of ARH against the reference tool (PyPI
`agent-reliability-harness` 0.2.2) and against a read + decode + regex floor.

    python benchmarks/reference.py [--reference /tmp/refvenv/bin/arh] [--pairs 5]

ARH runs twice: with `--jobs 1` (CPU = the work) and with its default worker count.
The three speed targets of issue 11, on seeded corpora in the v1 canonical format
(the one the reference reads), under the corpus policy (v1: both tools read it):
  (a) 10k single-trace files: ARH >= 5x faster whole-process than the reference;
  (b) one 100k-step trace of back-to-back faulted episodes (~560 B/step): >= 5x;
  (c) ARH whole-process CPU <= 4x the floor: a process that reads the same bytes,
      decodes them (msgspec) and runs one regex scan (re2, the policy's unsafe
      patterns as one alternation) over them.
Runs alternate (ARH, reference, floor, then the next pair in reverse order) so that
a busy machine slows all alike; CPU seconds come from os.wait4, and the medians of
the pairs are reported with their ratios. ARH runs with `--jobs 1`, so its CPU time
is the work itself. Both tools run from byte-compiled code (the reference from its
installed .pyc files, ARH with a private PYTHONPYCACHEPREFIX warmed by one run).
Writes the section between the markers in BENCHMARK-RESULTS.md (`--results`);
benchmarks/run.py keeps that section when it rewrites the rest of the file.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402
from equivalence import long_faulted_trace  # noqa: E402

RESULTS = HERE.parent / "BENCHMARK-RESULTS.md"
BEGIN = "<!-- benchmarks/reference.py: begin -->"
END = "<!-- benchmarks/reference.py: end -->"
DEFAULT_REFERENCE = "/tmp/refvenv/bin/arh"
FILES, LONG_STEPS, SEED = 10_000, 100_000, 4

# The floor: read every file, decode it, one regex scan of its bytes (argv: pattern, paths).
FLOOR = """\
import sys, msgspec, re2
scan = re2.compile(sys.argv[1].encode()).findall
decode = msgspec.json.decode
hits = 0
for path in sys.argv[2:]:
    with open(path, "rb") as handle:
        data = handle.read()
    decode(data)
    hits += len(scan(data))
print(hits)
"""


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, int]:
    """CPU seconds (user + system, from wait4), wall seconds and exit code of one run."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=null, stderr=null, stdin=subprocess.DEVNULL
        )
        _, status, usage = os.wait4(proc.pid, 0)
    return (
        usage.ru_utime + usage.ru_stime,
        time.perf_counter() - start,
        os.waitstatus_to_exitcode(status),
    )


def _inputs(work: Path) -> dict[str, list[str]]:
    """Write the corpora; {name: the trace paths given to every tool}."""
    files = work / "files"
    files.mkdir()
    paths = []
    for index in range(FILES):
        trace, _ = corpus.make_trace(SEED, index)
        path = files / f"t{index:05d}.json"
        path.write_text(json.dumps(trace))
        paths.append(f"files/{path.name}")
    long = work / "long.json"
    long.write_text(json.dumps(long_faulted_trace(LONG_STEPS), separators=(",", ":")))
    return {
        f"(a) {FILES // 1000}k trace files": paths,
        f"(b) {LONG_STEPS // 1000}k-step trace": ["long.json"],
    }


def _commands(reference: str, paths: list[str]) -> dict[str, list[str]]:
    common = ["validate", "--policy", "policy.json", "--quiet", "--json-out"]
    arh = [sys.executable, "-m", "agent_reliability_harness", *common, "arh.json"]
    pattern = "|".join(f"(?:{p})" for p in corpus.POLICY["unsafe_patterns"])
    return {
        "arh": [*arh, "--jobs", "1", *paths],
        "reference": [reference, *common, "ref.json", *paths],
        "floor": [sys.executable, "-c", FLOOR, pattern, *paths],
        # As a user runs it: one worker process per CPU (the reference has no such option).
        "arh-default": [*arh[:-1], "arh-default.json", *paths],
    }


def _same_verdicts(ours: Path, theirs: Path) -> str:
    """Whether both reports give every trace the same score and verdict (a sanity check
    that both tools did the same work; the v1.1 report has more keys than 0.2.2's)."""

    def verdicts(path: Path) -> list[tuple[str, float, bool]]:
        reports = json.loads(path.read_text(encoding="utf-8"))["reports"]
        return sorted((r["trace_id"], r["score"], r["passed"]) for r in reports)

    return "yes" if verdicts(ours) == verdicts(theirs) else "**no**"


def _median(values: list[float]) -> float:
    return statistics.median(values)


def measure(reference: str, pairs: int, src: str | None = None) -> list[str]:
    """Run the pairs; the Markdown lines of the section."""
    drop = ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH", "PYTHONHOME")
    base = {k: v for k, v in os.environ.items() if k not in drop}
    lines = [
        f"Written by `python benchmarks/reference.py --pairs {pairs}"
        f"{' --src ' + src if src else ''}`; do not edit by hand.",
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, load average at start {os.getloadavg()[0]:.2f}.",
        f"Medians of {pairs} alternating runs; CPU = user + system seconds of the whole process"
        " (os.wait4), wall in parentheses. ARH runs `--jobs 1` (its CPU time is then the work"
        " itself) and, as a user runs it, with its default of one worker per CPU"
        f" ({os.cpu_count()}); the floor reads, decodes (msgspec) and regex-scans (re2)"
        " the same bytes.",
        "",
        "| input | ARH CPU s (wall) | reference CPU s (wall) | floor CPU s (wall) "
        "| reference/ARH CPU (wall) | ARH/floor CPU | ARH default jobs wall s (CPU) "
        "| reference/ARH-default wall | same verdicts |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory(prefix="arh-reference-") as tmp:
        work = Path(tmp)
        ours = {**base, "PYTHONPYCACHEPREFIX": str(work / "pycache")}
        if src:
            ours["PYTHONPATH"] = str(Path(src).resolve())
        envs = {"arh": ours, "arh-default": ours, "reference": base, "floor": ours}
        (work / "policy.json").write_text(json.dumps(corpus.POLICY, indent=2))
        for name, paths in _inputs(work).items():
            commands = _commands(reference, paths)
            for label, command in commands.items():  # warm-up: page cache and bytecode
                code = _run(command, work, envs[label])[2]
                if code not in (0, 1):
                    raise SystemExit(f"{label} exited {code} on {name}: {command[:6]}")
            same = _same_verdicts(work / "arh.json", work / "ref.json")
            if (work / "arh.json").read_bytes() != (work / "arh-default.json").read_bytes():
                same = "**no** (--jobs changed the report)"
            runs: dict[str, list[tuple[float, float]]] = {label: [] for label in commands}
            for number in range(pairs):
                order = list(commands) if number % 2 == 0 else list(commands)[::-1]
                for label in order:
                    cpu, wall, _ = _run(commands[label], work, envs[label])
                    runs[label].append((cpu, wall))
            med = {
                label: (_median([c for c, _ in got]), _median([w for _, w in got]))
                for label, got in runs.items()
            }
            (ac, aw), (rc, rw), (fc, fw) = med["arh"], med["reference"], med["floor"]
            dc, dw = med["arh-default"]
            row = (
                f"| {name} | {ac:.2f} ({aw:.2f}) | {rc:.2f} ({rw:.2f}) | {fc:.2f} ({fw:.2f}) "
                f"| **{rc / ac:.2f}x** ({rw / aw:.2f}x) | **{ac / fc:.2f}x** "
                f"| {dw:.2f} ({dc:.2f}) | **{rw / dw:.2f}x** | {same} |"
            )
            print(row, flush=True)
            lines.append(row)
    lines += [
        "",
        "Targets (issue 11): ARH >= 5x faster than the reference on (a) and (b); ARH/floor"
        " CPU <= 4x.",
    ]
    return lines


def write_section(
    results: Path,
    lines: list[str],
    title: str = "## Against the reference tool (agent-reliability-harness 0.2.2)",
    markers: tuple[str, str] = (BEGIN, END),
) -> None:
    """Put `lines` between the markers of `results` (appended when it has none)."""
    begin, end = markers
    block = [begin, title, "", *lines, end]
    text = results.read_text(encoding="utf-8") if results.exists() else ""
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        tail = rest.split(end, 1)[1]
        text = head + "\n".join(block) + tail
    else:
        text = text.rstrip("\n") + "\n\n" + "\n".join(block) + "\n"
    results.write_text(text, encoding="utf-8")


def kept_section(results: Path, markers: tuple[str, str] = (BEGIN, END)) -> list[str]:
    """The section as it stands in `results` (for benchmarks/run.py to carry over)."""
    begin, end = markers
    if not results.exists():
        return []
    text = results.read_text(encoding="utf-8")
    if begin not in text or end not in text:
        return []
    body = text.split(begin, 1)[1].split(end, 1)[0]
    return [begin, *body.strip("\n").split("\n"), end]


# Sections other benchmarks write and run.py keeps (benchmarks/cache.py's).
CACHE_MARKERS = ("<!-- benchmarks/cache.py: begin -->", "<!-- benchmarks/cache.py: end -->")
_MARKED = re.compile(r"^<!-- (.+): begin -->$(.*?)^<!-- \1: end -->$", re.M | re.S)


def kept_sections(results: Path) -> list[str]:
    """Every section of `results` between `<!-- NAME: begin -->` and `<!-- NAME: end -->`
    (written by another benchmark, or by hand), in order, a blank line between them."""
    if not results.exists():
        return []
    kept: list[str] = []
    for found in _MARKED.finditer(results.read_text(encoding="utf-8")):
        kept += [*([""] if kept else []), *found.group(0).strip("\n").split("\n")]
    return kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", default=DEFAULT_REFERENCE, help="the reference `arh`")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--results", default=str(RESULTS), help="Markdown file to update")
    parser.add_argument("--src", help="PYTHONPATH of the ARH under test (default: installed)")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    if not Path(args.reference).exists():
        print(f"reference tool not found: {args.reference}", file=sys.stderr)
        return 1
    lines = measure(args.reference, args.pairs, args.src)
    if not args.no_write:
        write_section(Path(args.results), lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
