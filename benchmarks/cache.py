"""`--cache`: a re-run over a store where 1% of the traces changed, against a run without
cache, in paired whole-process runs (CPU seconds, `--jobs 1`).

    python benchmarks/cache.py [--count 20000] [--rounds 3] [--no-write] [--findings-heavy]

A 20k-trace JSONL store (corpus.py) is judged once with the cache to fill it. Each round
then changes a different 1% of the traces (every 100th line, from a round-dependent
offset) and runs the store without cache and with it, in alternating order; medians and
each round's cached/uncached CPU ratio are printed. The JSON and SARIF reports of the two
must be byte-identical, the cached run must have taken every unchanged trace from the
cache, and two invalidations are checked: a policy edit that changes a verdict, and
another ARH version (a copy of src/ with its version changed) take nothing from it.
Exits 1 when a check fails (the ratio is printed, not asserted: machine load varies).
Writes its section of BENCHMARK-RESULTS.md (between its markers; run.py keeps it).

`--findings-heavy`: the same store under a stricter policy (HEAVY_POLICY: tight budgets,
a required tool no trace calls), so that every trace has several findings and the JSON
and SARIF reports are large; its own section of BENCHMARK-RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402
import reference  # noqa: E402

TITLE = "## Incremental re-runs with `--cache` (benchmarks/cache.py)"
HEAVY_TITLE = "## Incremental re-runs with `--cache`, findings-heavy (benchmarks/cache.py)"
HEAVY_MARKERS = (
    "<!-- benchmarks/cache.py --findings-heavy: begin -->",
    "<!-- benchmarks/cache.py --findings-heavy: end -->",
)
# Every trace fails its budgets and a required tool: at least four findings each.
HEAVY_POLICY = {
    **corpus.POLICY,
    "policy_id": "bench-support-heavy",
    "budgets": {
        "max_step_latency_ms": 8000,
        "max_total_latency_ms": 1000,
        "max_total_cost_usd": 0.0001,
        "max_total_tokens": 200000,
    },
    "sequence": {**corpus.POLICY["sequence"], "required_tools": ["get_customer", "audit_log"]},
}


@dataclass(frozen=True)
class Run:
    cpu: float
    wall: float
    hits: int | None  # traces from the cache (None: no --cache)
    json: bytes
    sarif: bytes


def _arh(work: Path, args: list[str], src: Path, tag: str) -> Run:
    """`arh validate ARGS` in a child process, its CPU seconds (with its children's)."""
    json_out, sarif_out = work / f"{tag}.json", work / f"{tag}.sarif"
    command = [sys.executable, "-m", "agent_reliability_harness", "validate", *args]
    command += ["--jobs", "1", "--show", "summary", "--json-out", str(json_out)]
    command += ["--sarif-out", str(sarif_out)]
    # Byte-compiled, as an installed copy runs (PYTHONDONTWRITEBYTECODE would compile
    # every module again in every process: ~0.2 s of CPU, the same in both runs).
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONPYCACHEPREFIX": str(work / "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    with open(work / f"{tag}.out", "wb") as out:
        proc = subprocess.Popen(command, cwd=work, env=env, stdout=out, stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    console = (work / f"{tag}.out").read_text(encoding="utf-8")
    hits = next((int(x.split()[1]) for x in console.splitlines() if x.startswith("cache: ")), None)
    return Run(
        usage.ru_utime + usage.ru_stime, wall, hits, json_out.read_bytes(), sarif_out.read_bytes()
    )


def _changed(lines: list[str], round_: int, share: int) -> list[str]:
    """Every `share`-th trace changed (a new output text: a new cache key)."""
    out = list(lines)
    for number in range(round_ % share, len(lines), share):
        trace = json.loads(lines[number])
        trace["steps"][-1]["output"] = f"{trace['steps'][-1].get('output', '')} (round {round_})"
        out[number] = json.dumps(trace)
    return out


def _other_version(work: Path) -> Path:
    """A copy of src/ whose ARH version is another one."""
    copy = work / "src-other"
    shutil.copytree(SRC, copy, ignore=shutil.ignore_patterns("__pycache__"))
    version = copy / "agent_reliability_harness" / "version.py"
    text = version.read_text(encoding="utf-8")
    version.write_text(text.replace('__version__ = "', '__version__ = "99.'), encoding="utf-8")
    return copy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--share", type=int, default=100, help="1 in SHARE traces change")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--findings-heavy", action="store_true", help="every trace fails")
    args = parser.parse_args(argv)
    rules = HEAVY_POLICY if args.findings_heavy else corpus.POLICY
    problems: list[str] = []
    said: list[str] = []

    def say(text: str) -> None:
        print(text, flush=True)
        said.append(text)

    with tempfile.TemporaryDirectory(prefix="arh-cache-bench-") as tmp:
        work = Path(tmp)
        policy = work / "policy.json"
        policy.write_text(json.dumps(rules))
        store = work / "store.jsonl"
        corpus.write_jsonl(str(store), 5, args.count)
        lines = store.read_text(encoding="utf-8").splitlines()
        base = ["--policy", str(policy), str(store)]
        cache = ["--cache", str(work / "cache")]
        fill = _arh(work, [*base, *cache], SRC, "fill")
        summary = json.loads(fill.json)["summary"]
        findings = sum(summary["findings_by_severity"].values())
        heavy = (
            f"Policy HEAVY_POLICY: {summary['failed_traces']} traces fail, {findings} findings; "
            f"reports written: {len(fill.json) / 1e6:.1f} MB JSON, "
            f"{len(fill.sarif) / 1e6:.1f} MB SARIF. "
            if args.findings_heavy
            else ""
        )
        say(
            f"A {args.count}-trace JSONL store (corpus.py, ~11 KB a trace), `--jobs 1`, JSON "
            f"and SARIF written, byte-compiled code; CPU seconds of the whole process. {heavy}"
            f"Filling the cache (first run with `--cache`): {fill.cpu:.2f} s."
        )
        say("")
        say("| round | no cache: CPU s (wall) | cached: CPU s (wall) | ratio | from the cache |")
        say("|---|---|---|---|---|")
        pairs: list[tuple[Run, Run]] = []
        for round_ in range(1, args.rounds + 1):
            store.write_text("\n".join(_changed(lines, round_, args.share)) + "\n")
            plain = cached = None
            for kind in ("plain", "cached") if round_ % 2 else ("cached", "plain"):
                if kind == "plain":
                    plain = _arh(work, base, SRC, "plain")
                else:
                    cached = _arh(work, [*base, *cache], SRC, "cached")
            assert plain is not None and cached is not None
            pairs.append((plain, cached))
            expected = args.count - len(range(round_ % args.share, args.count, args.share))
            say(
                f"| {round_} | {plain.cpu:.2f} ({plain.wall:.2f}) | {cached.cpu:.2f} "
                f"({cached.wall:.2f}) | {cached.cpu / plain.cpu:.3f} | {cached.hits} |"
            )
            if (cached.json, cached.sarif) != (plain.json, plain.sarif):
                problems.append(f"round {round_}: cached reports differ")
            if cached.hits != expected:
                problems.append(f"round {round_}: {cached.hits} from the cache, not {expected}")
        plain_cpu = statistics.median(p.cpu for p, _ in pairs)
        cached_cpu = statistics.median(c.cpu for _, c in pairs)
        say("")
        say(
            f"Medians: without cache {plain_cpu:.2f} s, cached {cached_cpu:.2f} s: "
            f"{cached_cpu / plain_cpu:.3f} (1/{plain_cpu / cached_cpu:.1f}; target <= 1/5, "
            "aim 1/10). JSON and SARIF byte-identical in every round."
        )
        problems += _invalidations(work, policy, rules=rules, base=base, cache=cache, say=say)
        say("")
        say(f"Load average at the end: {os.getloadavg()[0]:.2f} (2 shared CPUs).")
    for problem in problems:
        print(f"FAILED: {problem}")
    if not problems and not args.no_write:
        heavy = args.findings_heavy
        title = HEAVY_TITLE if heavy else TITLE
        markers = HEAVY_MARKERS if heavy else reference.CACHE_MARKERS
        reference.write_section(reference.RESULTS, said, title, markers)
    return 1 if problems else 0


def _invalidations(
    work: Path,
    policy: Path,
    *,
    rules: dict[str, Any],
    base: list[str],
    cache: list[str],
    say: Callable[[str], None],
) -> list[str]:
    problems = []
    cost = 0.01 if rules["budgets"]["max_total_cost_usd"] > 0.01 else 0.00001
    edited = dict(rules, budgets={**rules["budgets"], "max_total_cost_usd": cost})
    policy.write_text(json.dumps(edited))
    plain = _arh(work, base, SRC, "policy-plain")
    cached = _arh(work, [*base, *cache], SRC, "policy-cached")
    verdicts = json.loads(cached.json)["summary"]["failed_traces"]
    say(
        f"- A policy edit that changes results (max_total_cost_usd {cost:g}: {verdicts} traces "
        f"fail): {cached.hits} traces from the cache, reports identical to a run without it."
    )
    if cached.hits != 0 or cached.json != plain.json or cached.sarif != plain.sarif:
        problems.append("a policy edit did not invalidate the cache")
    other = _arh(work, [*base, *cache], _other_version(work), "version")
    say(f"- Another ARH version (src/ copied, version changed): {other.hits} from the cache.")
    if other.hits != 0:
        problems.append("another ARH version used the cache")
    return problems


if __name__ == "__main__":
    raise SystemExit(main())
