"""Benchmark runner: detection quality, invariance, determinism, speed and memory of `arh`.

    python benchmarks/run.py            # full run, writes BENCHMARK-RESULTS.md
    python benchmarks/run.py --quick    # smoke test: small sizes, writes nothing

Exit status 1 when detection is not 1.0/1.0 or an invariance/determinism check
fails; speed and memory figures are reported, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402
import measure  # noqa: E402
from measure import rss_mb  # noqa: E402
from reference import kept_sections  # noqa: E402

RESULTS = HERE.parent / "BENCHMARK-RESULTS.md"
REPEAT = 3  # end-to-end runs per size and --jobs value


class Report:
    """Collects printed lines (also the Markdown body) and machine-readable figures."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.figures: dict[str, Any] = {}
        self.failures: list[str] = []

    def say(self, line: str = "") -> None:
        print(line, flush=True)
        self.lines.append(line)

    def check(self, name: str, ok: bool) -> None:
        self.figures[name] = ok
        if not ok:
            self.failures.append(name)


def validate(work: Path, policy: Path, traces: Path, out: Path, jobs: int = 1) -> measure.Run:
    args = ["validate", "--policy", str(policy), str(traces), "--quiet"]
    return measure.run_arh([*args, "--json-out", str(out), "--jobs", str(jobs)], cwd=work)


def write_traces(path: Path, traces: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for trace in traces:
            handle.write(json.dumps(trace, separators=(",", ":")) + "\n")


def detection(rep: Report, work: Path, policy: Path, count: int, seed: int) -> None:
    path = work / "detection.jsonl"
    expected = corpus.write_jsonl(str(path), seed, count)
    out = work / "detection.json"
    validate(work, policy, path, out)
    found = {
        r["trace_id"]: {f["rule_id"] for f in r["findings"]}
        for r in json.loads(out.read_text())["reports"]
    }
    tp = fp = fn = 0
    for trace_id, rules in expected.items():
        got = found.get(trace_id, set())
        tp += len(got & set(rules))
        fp += len(got - set(rules))
        fn += len(set(rules) - got)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    faulty = sum(1 for rules in expected.values() if rules)
    rep.figures.update(precision=precision, recall=recall)
    rep.check("detection", precision == 1.0 and recall == 1.0)
    rep.say(
        f"- traces: {count} ({faulty} with a seeded fault, {tp + fn} expected findings by rule)"
    )
    rep.say(f"- precision **{precision:.4f}**, recall **{recall:.4f}** (TP {tp}, FP {fp}, FN {fn})")


def invariance(rep: Report, work: Path, policy: Path, count: int, seed: int) -> None:
    base = [t for t, _ in corpus.iter_corpus(seed, count)]
    cases: list[tuple[str, Any, tuple[str, ...]]] = [
        ("argument and trace key order", measure.reorder_arguments, ("source_path",)),
        ("renamed trace_id", measure.rename_trace, ("source_path", "trace_id")),
        ("extra metadata and unknown keys", measure.extra_metadata, ("source_path",)),
    ]
    write_traces(work / "inv-base.jsonl", base)
    validate(work, policy, work / "inv-base.jsonl", work / "inv-base.json")
    reference = json.loads((work / "inv-base.json").read_text())
    for number, (name, transform, drop) in enumerate(cases):
        path = work / f"inv-{number}.jsonl"
        write_traces(path, [transform(t) for t in base])
        validate(work, policy, path, work / f"inv-{number}.json")
        got = json.loads((work / f"inv-{number}.json").read_text())
        same = measure.comparable(got, drop) == measure.comparable(reference, drop)
        rep.check(f"invariance: {name}", same)
        rep.say(f"- {name}: {'identical' if same else '**DIFFERENT**'}")
    shuffled = work / "policy-reordered.json"
    shuffled.write_text(json.dumps(measure.reorder_keys(json.loads(policy.read_text()))))
    validate(work, shuffled, work / "inv-base.jsonl", work / "inv-policy.json")
    same = (work / "inv-policy.json").read_bytes() == (work / "inv-base.json").read_bytes()
    rep.check("invariance: policy key order", same)
    rep.say(f"- policy key order: {'byte-identical report' if same else '**DIFFERENT**'}")


def determinism(rep: Report, work: Path, policy: Path, traces: Path) -> None:
    outs = []
    for number, jobs in enumerate((1, 1, 2)):
        out = work / f"det-{number}.json"
        validate(work, policy, traces, out, jobs)
        outs.append(out.read_bytes())
    rep.check("determinism: repeated run", outs[0] == outs[1])
    rep.check("determinism: --jobs 2 vs --jobs 1", outs[0] == outs[2])
    rep.say(f"- two runs byte-identical: {outs[0] == outs[1]}")
    rep.say(f"- `--jobs 2` byte-identical to `--jobs 1`: {outs[0] == outs[2]}")


def throughput(rep: Report, work: Path, policy: Path, sizes: list[int], seed: int) -> None:
    rep.say(
        "| traces | MB | in-process traces/s (MB/s) "
        f"| e2e --jobs 1 (best of {REPEAT}): s (CPU s), traces/s, MB/s, peak RSS "
        f"| e2e --jobs 2 (best of {REPEAT}): s (CPU s), traces/s, speed-up, peak RSS "
        "| fastest decoder s | e2e/decoder |"
    )
    rep.say("|---|---|---|---|---|---|---|")
    rss: dict[int, int] = {}
    for size in sizes:
        path = work / f"corpus-{size}.jsonl"
        corpus.write_jsonl(str(path), seed, size)
        mb = path.stat().st_size / 1e6
        decode = measure.decode_times(path, repeat=2)
        fastest_name = min(decode, key=lambda k: decode[k])
        fastest = decode[fastest_name]
        wall, _cpu, count = measure.in_process(policy, path)
        # Best of REPEAT interleaved runs: the machine is shared, so one run can be slowed
        # by somebody else; the fastest is the closest to what the code costs.
        runs: dict[int, list[measure.Run]] = {1: [], 2: []}
        for _ in range(REPEAT):
            for jobs in (1, 2):
                runs[jobs].append(
                    validate(work, policy, path, work / f"tp-{size}-{jobs}.json", jobs)
                )
        one, two = (min(runs[jobs], key=lambda r: r.wall) for jobs in (1, 2))
        same = (work / f"tp-{size}-1.json").read_bytes() == (
            work / f"tp-{size}-2.json"
        ).read_bytes()
        rep.check(f"determinism: --jobs 2 on {size}", same)
        for name in ("1", "2"):
            (work / f"tp-{size}-{name}.json").unlink()
        rss[size] = one.peak_rss
        rep.figures[f"e2e_{size}"] = {
            "jobs1_s": one.wall,
            "jobs1_cpu_s": one.cpu,
            "jobs2_s": two.wall,
            "decoder_s": fastest,
            "decoders": decode,
            "rss1": one.peak_rss,
        }
        rep.say(
            f"| {count:,} | {mb:,.0f} | {count / wall:,.0f} ({mb / wall:.1f}) "
            f"| {one.wall:.2f} ({one.cpu:.2f}), {size / one.wall:,.0f}, {mb / one.wall:.1f}, "
            f"{rss_mb(one.peak_rss)} "
            f"| {two.wall:.2f} ({two.cpu:.2f}), {size / two.wall:,.0f}, "
            f"{one.wall / two.wall:.2f}x, "
            f"{rss_mb(two.peak_rss)} "
            f"| {fastest:.2f} ({fastest_name}) | {one.wall / fastest:.1f}x |"
        )
        path.unlink()
    rep.say()
    decode_line = ", ".join(
        f"{k} {v:.2f} s" for k, v in rep.figures[f"e2e_{sizes[0]}"]["decoders"].items()
    )
    rep.say(f"Decoders on the {sizes[0]:,}-trace corpus (best of 2): {decode_line}.")
    if len(sizes) > 1:
        small, large = sizes[0], sizes[-1]
        ratio = rss[large] / rss[small]
        rep.figures["rss_ratio"] = ratio
        rep.say(
            f"Peak RSS, {large:,} vs {small:,} traces (--jobs 1): {rss_mb(rss[large])} vs "
            f"{rss_mb(rss[small])} = **{ratio:.2f}x** (target <= 1.3x)."
        )


def phases(rep: Report, work: Path, policy: Path) -> None:
    times = measure.phase_times(policy, work / "detection.jsonl")
    rep.figures["phases_us"] = times
    fixed = list(times)[:4]
    rules = sorted((k for k in times if k not in fixed), key=lambda k: -times[k])
    rep.say(
        "CPU per trace by phase, detection corpus (up to 3,000 traces, best of 3, no profiler):"
    )
    rep.say()
    rep.say("| phase | us/trace |")
    rep.say("|---|---|")
    for name in fixed:
        rep.say(f"| {name} | {times[name]:.1f} |")
    rest = sum(times[k] for k in rules[8:])
    for name in rules[:8]:
        rep.say(f"| &nbsp;&nbsp;of which {name} | {times[name]:.1f} |")
    rep.say(f"| &nbsp;&nbsp;of which the other {len(rules) - 8} rules | {rest:.1f} |")
    rep.say()


def profile(rep: Report, work: Path, policy: Path) -> None:
    rows = measure.profile_by_module(policy, work / "detection.jsonl")
    total = sum(seconds for _, seconds in rows)
    rep.say("Own CPU time by module, in-process run over the detection corpus (cProfile, top 14):")
    rep.say()
    rep.say("| module | share |")
    rep.say("|---|---|")
    for name, seconds in rows[:14]:
        rep.say(f"| {name} | {seconds / total:.0%} |")


def long_traces(rep: Report, work: Path, steps_list: list[int]) -> None:
    policy = work / "long-policy.json"
    policy.write_text(json.dumps(corpus.LONG_POLICY))
    rep.say("| steps | file | wall s (CPU s) | us/step | peak RSS | RSS / file |")
    rep.say("|---|---|---|---|---|---|")
    for steps in steps_list:
        path = work / f"long-{steps}.json"
        with path.open("w", encoding="utf-8") as handle:
            for piece in corpus.long_trace(steps):
                handle.write(piece)
        size = path.stat().st_size
        run = validate(work, policy, path, work / "long.json")
        rep.figures[f"long_{steps}"] = {
            "wall": run.wall,
            "rss": run.peak_rss,
            "size": size,
            "code": run.code,
        }
        rep.say(
            f"| {steps:,} | {rss_mb(size)} | {run.wall:.2f} ({run.cpu:.2f}) "
            f"| {run.wall / steps * 1e6:.1f} "
            f"| {rss_mb(run.peak_rss)} | {run.peak_rss / size:.2f}x |"
        )
        path.unlink()


def redos(rep: Report) -> None:
    from agent_reliability_harness.patterns import PatternSet  # noqa: PLC0415

    patterns = PatternSet(["(a+)+$", "(x+x+)+y"])
    text = "a" * 50_000 + "!"
    start = time.perf_counter()
    found = patterns.matches(text), patterns.may_match_any([text, "x" * 50_000])
    elapsed = time.perf_counter() - start
    rep.figures["redos_ms"] = elapsed * 1e3
    rep.say(
        f"- `(a+)+$` and `(x+x+)+y` over 50,000 characters: {elapsed * 1e3:.2f} ms "
        f"(matches: {found})"
    )


def version_time(rep: Report) -> None:
    best = min(measure.run_arh(["--version"]).wall for _ in range(5))
    rep.figures["version_s"] = best
    rep.say(
        f"- `arh --version`: {best:.3f} s (best of 5, includes interpreter start; target < 0.2 s)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for smoke tests")
    parser.add_argument("--sizes", help="trace counts for throughput, e.g. 10000,100000")
    parser.add_argument("--long-steps", help="step counts for the long trace, e.g. 1000,1000000")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--results", help="Markdown file to write (full run: BENCHMARK-RESULTS.md)")
    parser.add_argument("--summary-json", help="write the figures as JSON here")
    args = parser.parse_args(argv)
    sizes = [int(n) for n in (args.sizes or ("400" if args.quick else "10000,100000")).split(",")]
    long_steps = [
        int(n)
        for n in (
            args.long_steps or ("1000,4000" if args.quick else "1000,10000,100000,1000000")
        ).split(",")
    ]
    results = args.results or (None if args.quick else str(RESULTS))
    rep = Report()
    rep.say("# ARH benchmark results")
    rep.say()
    rep.say(
        f"Written by `python benchmarks/run.py{' --quick' if args.quick else ''}` "
        f"(seed {args.seed}), except the last section (against the reference tool), which "
        "`python benchmarks/reference.py` writes and run.py keeps; do not edit by hand."
    )
    rep.say(
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, "
        f"load average at start {os.getloadavg()[0]:.2f} (a shared machine: wall times are noisy, "
        "CPU times less so)."
    )
    with tempfile.TemporaryDirectory(prefix="arh-bench-") as tmp:
        work = Path(tmp)
        policy = work / "policy.json"
        policy.write_text(json.dumps(corpus.POLICY, indent=2))
        rep.say("\n## Detection on the seeded corpus\n")
        detection(rep, work, policy, 400 if args.quick else 5000, args.seed)
        rep.say("\n## Metamorphic invariance\n")
        invariance(rep, work, policy, 100 if args.quick else 1000, args.seed + 1)
        rep.say("\n## Determinism\n")
        determinism(rep, work, policy, work / "detection.jsonl")
        rep.say("\n## Throughput and memory (end-to-end = `arh validate --quiet --json-out`)\n")
        throughput(rep, work, policy, sizes, args.seed)
        rep.say("\n## Where the time goes\n")
        phases(rep, work, policy)
        profile(rep, work, policy)
        rep.say("\n## One long trace\n")
        long_traces(rep, work, long_steps)
        rep.say("\n## Other\n")
        redos(rep)
        version_time(rep)
    rep.say("\n## Checks\n")
    for name in (k for k, v in rep.figures.items() if isinstance(v, bool)):
        rep.say(f"- {name}: {'ok' if rep.figures[name] else 'FAILED'}")
    if results:
        kept = kept_sections(Path(results))
        text = "\n".join(rep.lines) + "\n"
        Path(results).write_text(
            text + ("\n" + "\n".join(kept) + "\n" if kept else ""), encoding="utf-8"
        )
    if args.summary_json:
        Path(args.summary_json).write_text(json.dumps(rep.figures, indent=2, default=str))
    return 1 if rep.failures else 0


if __name__ == "__main__":
    sys.exit(main())
