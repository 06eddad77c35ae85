"""What policy v1.3 claims cost: paired whole-process CPU runs of one build on the
100,000-step benchmark trace (benchmarks/equivalence.py's long faulted trace), with the
benchmark policy and with that policy plus five claims.

    python benchmarks/claims_overhead.py [--runs 5] [--steps 100000] [--scope final|all]

Runs alternate between the two policies so that a busy machine slows both alike; each
policy's median CPU seconds (user + system of the `arh validate` process) is reported,
with the median of the per-round ratio to the benchmark policy of the same round. The
five claims read the corpus' calls (amounts, order ids, customers, emails, addresses);
`--scope all` judges every response instead of the final answer (a response of the
corpus is 200-600 characters of support words, so most sentences claim something).
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus
from equivalence import long_faulted_trace
from v11_overhead import _run

NEG = r"(?i)\b(not|unable|failed)\b"
CLAIMS: list[dict[str, Any]] = [
    {
        "name": "refund issued",
        "when": r"(?i)\brefund\b.*?(?:\$(?P<amount>[0-9][0-9,]*(\.[0-9]+)?))?",
        "unless": NEG,
        "requires": "issue_refund",
        "same": {"amount": "amount"},
    },
    {
        "name": "order looked up",
        "when": r"(?i)\border\b",
        "unless": NEG,
        "requires": "lookup_order",
        "values": [{"pattern": r"\b(ORD-[0-9]+)\b", "in": "order_id"}],
    },
    {"name": "customer found", "when": r"(?i)\bcustomer\b", "requires": "get_customer"},
    {
        "name": "email sent",
        "when": r"(?i)\b(email|message)\b",
        "unless": NEG,
        "requires": "send_email",
        "same": {},
        "ignore_case": True,
        "values": [{"pattern": r"\b([a-z0-9]+@example\.com)\b", "in": "to"}],
    },
    {
        "name": "address changed",
        "when": r"(?i)\baddress\b",
        "requires": ["update_address"],
        "values": [{"pattern": r"\b(Lyon|Paris)\b", "in": "address.city"}],
    },
]


def claims_policy(scope: str) -> dict[str, Any]:
    policy = copy.deepcopy(corpus.POLICY)
    policy["schema_version"] = "1.3"
    policy["policy_id"] = "bench-support-claims"
    policy["claims"] = [{**claim, "scope": scope} for claim in CLAIMS]
    return policy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--scope", choices=("final", "all"), default="final")
    parser.add_argument("--write", nargs=2, metavar=("STEPS", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.write:
        trace = long_faulted_trace(int(args.write[0]))
        Path(args.write[1]).write_text(json.dumps(trace, separators=(",", ":")))
        return 0
    with tempfile.TemporaryDirectory(prefix="arh-claims-") as tmp:
        work = Path(tmp)
        policies = {"benchmark policy": corpus.POLICY, "+ five claims": claims_policy(args.scope)}
        paths = {}
        for number, (name, policy) in enumerate(policies.items()):
            paths[name] = work / f"policy-{number}.json"
            paths[name].write_text(json.dumps(policy))
        trace = work / "long.json"
        # Written by a child process, so that this one stays small.
        subprocess.run(
            [sys.executable, __file__, "--write", str(args.steps), str(trace)], check=True
        )
        base = ["validate", "--jobs", "1", "--quiet", "--json-out", str(work / "out.json")]
        runs: dict[str, list[tuple[float, float, int]]] = {name: [] for name in paths}
        for _ in range(args.runs):
            for name, path in paths.items():
                runs[name].append(_run([*base, "--policy", str(path), str(trace)], work))
        print(f"{args.steps:,} steps, claims scope {args.scope}: medians of {args.runs} rounds")
        print("| policy | CPU s (wall) | peak RSS MB | CPU vs benchmark policy |")
        print("|---|---|---|---|")
        ref = runs["benchmark policy"]
        for name, mine in runs.items():
            cpu = statistics.median(r[0] for r in mine)
            wall = statistics.median(r[1] for r in mine)
            ratio = statistics.median(r[0] / b[0] for r, b in zip(mine, ref, strict=True))
            print(f"| {name} | {cpu:.2f} ({wall:.2f}) | {max(r[2] for r in mine)} | {ratio:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
