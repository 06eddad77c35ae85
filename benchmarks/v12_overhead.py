"""What the policy v1.2 keys of sections 2-4 cost: paired whole-process CPU runs of one
build on the benchmark trace, with the benchmark policy and with that policy plus
preconditions (with `same`, on arguments and on an output), output contracts,
`failed_when`, `max_identical_repeats` and `require_recorded_outcome`.

    python benchmarks/v12_overhead.py [--runs 3] [--steps 100000] [--small-steps 10000]

Runs alternate between the policies (and trace sizes) so that a busy machine slows
both alike; each policy's median CPU time is reported with the median of its per-round
ratio to the v1 run of the same round. The same is done on a trace of `--small-steps`
steps: the v1.2 keys' extra CPU time on the big trace over that on the small one shows
how they scale (10.0 is linear for 10k vs 100k steps).
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus
from equivalence import long_faulted_trace
from v11_overhead import _run

# The corpus' outputs are {"result": text, "ref": "R<digits>"}.
OUTPUT = {
    "type": "object",
    "required": ["result", "ref"],
    "properties": {"ref": {"type": "str", "pattern": "R[0-9]+"}, "result": {"max_length": 600}},
}
PRECONDITIONS: list[dict[str, Any]] = [
    {"call": "issue_refund", "requires": "lookup_order", "same": {"order_id": "order_id"}},
    {"call": "update_address", "requires": "get_customer", "same": {"customer_id": "customer_id"}},
    {"call": "fetch_doc", "requires": "search_kb"},
    # Met by no call (the body is no search result): one finding per email, capped.
    {"call": "send_email", "requires": "search_kb", "same": {"body": "output.result"}},
]


def v12_policy() -> dict[str, Any]:
    policy = copy.deepcopy(corpus.POLICY)
    policy["schema_version"] = "1.2"
    policy["policy_id"] = "bench-support-v12"
    tools = policy["allowed_tools"]
    for name in ("get_customer", "lookup_order", "search_kb", "fetch_doc"):
        tools[name]["output"] = OUTPUT
    tools["search_kb"]["failed_when"] = [{"path": "result", "pattern": "no results"}]
    tools["lookup_order"]["failed_when"] = [{"path": "ref", "equals": "R0"}]
    policy["preconditions"] = PRECONDITIONS
    policy["error_handling"] |= {"max_identical_repeats": 2, "require_recorded_outcome": True}
    return policy


def _evaluation_cpu(policies: dict[str, dict[str, Any]], sizes: list[int], runs: int) -> None:
    """Evaluation alone (the trace decoded once, `Evaluator.evaluate` timed with the
    process clock), paired the same way: where the rules' own scaling shows best."""
    from agent_reliability_harness.engine import Evaluator  # noqa: PLC0415
    from agent_reliability_harness.models.policy import Policy  # noqa: PLC0415
    from agent_reliability_harness.models.trace import Trace  # noqa: PLC0415

    evaluators = {name: Evaluator(Policy.from_dict(p)) for name, p in policies.items()}
    print("\nevaluation only (trace decoded once), medians of paired rounds")
    print("| trace | policy | CPU ms | us/step | CPU vs v1 |")
    print("|---|---|---|---|---|")
    extra = {}
    for steps in sizes:
        trace = Trace.from_dict(long_faulted_trace(steps))
        got: dict[str, list[float]] = {name: [] for name in evaluators}
        for _ in range(runs):
            for name, evaluator in evaluators.items():
                start = time.process_time()
                evaluator.evaluate(trace)
                got[name].append(time.process_time() - start)
        ref = got["v1 policy"]
        for name, times in got.items():
            cpu = statistics.median(times)
            ratio = statistics.median(t / r for t, r in zip(times, ref, strict=True))
            print(
                f"| {steps:,} | {name} | {cpu * 1e3:.0f} | {cpu / steps * 1e6:.2f} | {ratio:.3f} |"
            )
        extra[steps] = statistics.median(
            t - r for t, r in zip(got["+ v1.2 keys"], ref, strict=True)
        )
    small, big = extra[sizes[0]], extra[sizes[-1]]
    print(
        f"\nv1.2 keys' extra evaluation CPU: {small * 1e3:.0f} ms at {sizes[0]:,} steps, "
        f"{big * 1e3:.0f} ms at {sizes[-1]:,} steps (ratio {big / small:.1f}; "
        f"{sizes[-1] / sizes[0]:.1f} is linear)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--small-steps", type=int, default=10_000)
    parser.add_argument("--write", nargs=2, metavar=("STEPS", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.write:
        trace = long_faulted_trace(int(args.write[0]))
        Path(args.write[1]).write_text(json.dumps(trace, separators=(",", ":")))
        return 0
    with tempfile.TemporaryDirectory(prefix="arh-v12-") as tmp:
        work = Path(tmp)
        policies = {"v1 policy": corpus.POLICY, "+ v1.2 keys": v12_policy()}
        paths = {}
        for number, (name, policy) in enumerate(policies.items()):
            paths[name] = work / f"policy-{number}.json"
            paths[name].write_text(json.dumps(policy))
        traces = {}
        for steps in (args.small_steps, args.steps):
            traces[steps] = work / f"long-{steps}.json"
            # Written by a child process, so that this one stays small: a child's peak
            # RSS counts from the size of the process it was forked from.
            command = [sys.executable, __file__, "--write", str(steps), str(traces[steps])]
            subprocess.run(command, check=True)
        base = ["validate", "--jobs", "1", "--quiet", "--json-out", str(work / "out.json")]
        runs: dict[tuple[int, str], list[tuple[float, float, int]]] = {
            (steps, name): [] for steps in traces for name in paths
        }
        for _ in range(args.runs):
            for steps, trace in traces.items():
                for name, path in paths.items():
                    runs[(steps, name)].append(
                        _run([*base, "--policy", str(path), str(trace)], work)
                    )
        print(f"medians of {args.runs} paired rounds")
        print("| trace | policy | CPU s (wall) | peak RSS MB | CPU vs v1 (median of ratios) |")
        print("|---|---|---|---|---|")
        extra = {}
        for steps in traces:
            ref = runs[(steps, "v1 policy")]
            for name in paths:
                mine = runs[(steps, name)]
                cpu = statistics.median(r[0] for r in mine)
                wall = statistics.median(r[1] for r in mine)
                ratio = statistics.median(r[0] / v1[0] for r, v1 in zip(mine, ref, strict=True))
                rss = max(r[2] for r in mine)
                print(
                    f"| {steps:,} steps | {name} | {cpu:.2f} ({wall:.2f}) | {rss} | {ratio:.3f} |"
                )
            extra[steps] = statistics.median(
                new[0] - v1[0] for new, v1 in zip(runs[(steps, "+ v1.2 keys")], ref, strict=True)
            )
        small, big = extra[args.small_steps], extra[args.steps]
        scale = big / small if small > 0 else float("nan")
        print(
            f"\nv1.2 keys' extra CPU: {small:.3f} s at {args.small_steps:,} steps, "
            f"{big:.3f} s at {args.steps:,} steps (ratio {scale:.1f}; "
            f"{args.steps / args.small_steps:.1f} is linear)"
        )
    # Last: it holds the traces in this process.
    # Last: it holds the traces in this process.
    _evaluation_cpu(policies, [args.small_steps, args.steps], args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
