"""What the trajectory and data-flow rules (policy v1.1 sections 5 and 6) cost: paired
whole-process CPU runs of one build on the 100k-step benchmark trace, with the benchmark
policy and with that policy plus a realistic `trajectory` and `dataflow`.

    python benchmarks/v11_overhead.py [--runs 3] [--steps 100000] [--memory-steps 1000000]

Runs alternate between the policies so that a busy machine slows both alike; each
policy's median CPU time is reported with the median of its per-round ratio to the v1
run of the same round, and the peak resident memory.
`--memory-steps` also writes one trace of that many steps (streamed to disk, never held)
and reports the peak memory of validating it under both policies.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus
from equivalence import SEED, long_faulted_trace

# A realistic v1.1 layer over the benchmark policy: an expected trajectory of ten entries
# (exact, subset and tool-only, two optional) over the workflow's lookups and writes, the
# research tools ignored (as the per-task tau-bench policies ignore read tools); untrusted
# research tools, five sinks (one limited to its URL), generic injection markers, the
# user's own domain trusted. `every_call` keeps the research tools in the trajectory
# instead (two subset entries each), so that every call is compared with some entry.
TRAJECTORY: dict[str, Any] = {
    "expected": [
        {"tool": "get_customer"},
        {"tool": "lookup_order", "arguments": {"order_id": "ORD-45200"}},
        {"tool": "lookup_order", "optional": True},
        {"tool": "issue_refund", "arguments": {"currency": "USD"}, "arguments_match": "subset"},
        {"tool": "update_address", "optional": True},
        {
            "tool": "send_email",
            "arguments": {"to": "customer@example.com"},
            "arguments_match": "subset",
        },
        {"tool": "get_customer"},
        {"tool": "lookup_order"},
        {"tool": "issue_refund", "arguments": {"currency": "EUR"}, "arguments_match": "subset"},
        {"tool": "send_email"},
    ],
    "match": "in_order",
    "ignore_tools": ["search_*", "fetch_*"],
    "ignore_arguments": ["request_id"],
}
RESEARCH: list[dict[str, Any]] = [
    {"tool": "search_kb", "arguments": {"top_k": 5}, "arguments_match": "subset"},
    {"tool": "fetch_doc"},
    {"tool": "search_kb", "arguments": {"top_k": 5}, "arguments_match": "subset"},
    {"tool": "fetch_doc"},
]
DATAFLOW: dict[str, Any] = {
    "untrusted_to_sink": True,
    "untrusted_if": [
        "<information>",
        "ignore (all )?(previous|prior) instructions",
        "do not tell the user",
    ],
    "trusted_values": ["*@example.com"],
}
LABELS: dict[str, dict[str, Any]] = {
    "search_kb": {"trust": "untrusted"},
    "fetch_doc": {"trust": "untrusted", "sink": True, "sink_arguments": ["url"]},
    "issue_refund": {"sink": True},
    "update_address": {"sink": True},
    "send_email": {"sink": True},
    "delete_account": {"sink": True},
}


def v11_policy(
    match: str = "in_order", grounded: bool = False, every_call: bool = False
) -> dict[str, Any]:
    """`grounded`: also ARH-FLW-005 on the refunds' order ids (in this synthetic trace no
    output holds one, so each of the ~1,000 refunds is a finding)."""
    policy = copy.deepcopy(corpus.POLICY)
    policy["schema_version"] = "1.1"
    policy["policy_id"] = "bench-support-v11"
    for name, labels in LABELS.items():
        policy["allowed_tools"][name].update(labels)
    if grounded:
        refund = policy["allowed_tools"]["issue_refund"]["required_arguments"]
        refund["order_id"] = {**refund["order_id"], "grounded": True}
    policy["trajectory"] = {**TRAJECTORY, "match": match}
    if every_call:
        expected = TRAJECTORY["expected"]
        policy["trajectory"] |= {
            "expected": expected[:2] + RESEARCH + expected[2:6],
            "ignore_tools": [],
        }
    policy["dataflow"] = DATAFLOW
    return policy


def _run(args: list[str], cwd: Path) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, peak RSS in MB) of one `arh` process."""
    command = [sys.executable, "-m", "agent_reliability_harness", *args]
    start = time.perf_counter()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(command, cwd=cwd, stdout=null, stderr=null)
        _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - start, usage.ru_maxrss // 1024


def _write_long(path: Path, steps: int) -> None:
    """A trace of `steps` steps written episode by episode (never held whole)."""
    rng = random.Random(SEED)
    with path.open("w") as out:
        out.write('{"trace_id": "long", "agent_name": "soak", "workflow": "soak", "steps": [')
        written = index = 0
        while written < steps:
            trace, _ = corpus.make_trace(SEED, index)
            index += 1
            for step in trace["steps"][: steps - written]:
                written += 1
                step["step_id"] = f"s{written}"
                out.write(("," if written > 1 else "") + json.dumps(step, separators=(",", ":")))
        out.write("]}")
    del rng


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--memory-steps", type=int, default=0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="arh-v11-") as tmp:
        work = Path(tmp)
        policies = {"v1 policy": corpus.POLICY, "+ v1.1 (in_order)": v11_policy()}
        policies["+ v1.1 (strict)"] = v11_policy("strict")
        policies["+ v1.1 (in_order, every call compared)"] = v11_policy(every_call=True)
        policies["+ v1.1 (in_order, grounded order ids)"] = v11_policy(grounded=True)
        paths = {}
        for number, (name, policy) in enumerate(policies.items()):
            paths[name] = work / f"policy-{number}.json"
            paths[name].write_text(json.dumps(policy))
        long = work / "long.json"
        long.write_text(json.dumps(long_faulted_trace(args.steps), separators=(",", ":")))
        base = ["validate", "--jobs", "1", "--quiet", "--json-out", str(work / "out.json")]
        runs: dict[str, list[tuple[float, float, int]]] = {name: [] for name in paths}
        for _ in range(args.runs):
            for name, path in paths.items():
                runs[name].append(_run([*base, "--policy", str(path), str(long)], work))
        ref = runs["v1 policy"]
        print(f"{args.steps:,}-step trace, medians of {args.runs} paired rounds")
        print("| policy | CPU s (wall) | peak RSS MB | CPU vs v1 (median of paired ratios) |")
        print("|---|---|---|---|")
        for name, got in runs.items():
            cpu = statistics.median(r[0] for r in got)
            wall = statistics.median(r[1] for r in got)
            ratio = statistics.median(r[0] / v1[0] for r, v1 in zip(got, ref, strict=True))
            rss = max(r[2] for r in got)
            print(f"| {name} | {cpu:.2f} ({wall:.2f}) | {rss} | {ratio:.3f} |")
        if args.memory_steps:
            huge = work / "huge.json"
            _write_long(huge, args.memory_steps)
            print(f"\n{args.memory_steps:,}-step trace ({huge.stat().st_size / 1e6:.0f} MB)")
            print("| policy | CPU s | peak RSS MB |")
            print("|---|---|---|")
            for name, path in paths.items():
                cpu, _, rss = _run([*base, "--policy", str(path), str(huge)], work)
                print(f"| {name} | {cpu:.2f} | {rss} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
