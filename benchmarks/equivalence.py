"""Byte-equivalence harness: the same inputs, every report format, before and after a change.

    python benchmarks/equivalence.py --reference DIR   # write the outputs of this build
    python benchmarks/equivalence.py --compare DIR     # check this build writes the same bytes

Inputs (seeded, built from benchmarks/corpus.py and faults.py): the samples; about 20,000
generated traces as JSONL files, some with usage, citations or tool names stripped and
some with extra keys; a few single-trace files; one long faulted trace read a chunk of
steps at a time. They run under two policies that between them apply all 31 v1 rules,
each run writing JSON, SARIF, JUnit, Markdown and console text (and once with --jobs 2).
`--src DIR` runs the package found in DIR (e.g. an old checkout's src/) instead.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus

ROOT = Path(__file__).resolve().parent.parent
SEED = 20240611
COUNT = 10_000  # traces per generated JSONL set (two sets)

# The second policy: what the corpus policy leaves out (unlisted tools allowed, an
# unknown type name, min_calls, grounding as warnings, unrecordable budgets, max_steps).
POLICY_B: dict[str, Any] = {
    "policy_id": "equivalence-b",
    "allow_unlisted_tools": True,
    "allowed_tools": {
        "get_customer": {"required_arguments": {"customer_id": "string2"}, "min_calls": 1},
        "search_kb": {
            "required_arguments": {"query": {"type": "str", "pattern": "[A-Z].*"}},
            "optional_arguments": {"top_k": {"type": "int", "enum": [1, 2, 3, 5]}},
            "max_calls": 6,
        },
        "lookup_order": {"required_arguments": {"order_id": "str"}, "min_calls": 2},
        "send_email": {"required_arguments": {"to": "str"}, "side_effect": True},
        "issue_refund": {"side_effect": True, "max_calls": 1},
    },
    "budgets": {
        "max_step_latency_ms": 2000,
        "max_total_cost_usd": 0.05,
        "max_total_tokens": 9000,
        "max_total_latency_ms": 20000,
    },
    "unsafe_patterns": ["refund", "\\bC[0-9]{3}\\b", "sk-[A-Za-z0-9]{20,}"],
    "grounding": {"min_citation_coverage": 0.6},
    "sequence": {
        "required_tools": ["send_email", "get_customer"],
        "forbidden_tools": ["wire_transfer", "delete_account"],
        "call_order": ["search_kb", "get_customer", "fetch_doc", "lookup_order"],
    },
    "error_handling": {"max_attempts": 2},
    "completion": {"max_steps": 25},
}


def _mutate(trace: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A variant of a corpus trace: usage dropped, grounding loosened, extra keys."""
    trace = copy.deepcopy(trace)
    kind = rng.random()
    steps = trace["steps"]
    if kind < 0.2:
        for step in steps:
            for key in ("input_tokens", "output_tokens", "cost_usd", "latency_ms"):
                step.pop(key, None)
    elif kind < 0.3:
        for step in steps:
            step.pop("cost_usd", None)
            if rng.random() < 0.5:
                step["latency_ms"] = rng.random() * 3000
    elif kind < 0.4:
        for step in steps:
            if step.get("requires_grounding") and rng.random() < 0.5:
                step.pop("citations", None)
    elif kind < 0.45:
        trace["steps"] = []
    elif kind < 0.5:
        steps[-1]["status"] = "error"
    elif kind < 0.55:
        trace["metadata"]["adapter"] = {
            "notes": [{"at": "messages[3]", "issue": "unmapped content", "step": "s2"}]
        }
    elif kind < 0.6:
        for step in steps:
            if step.get("type") == "tool_call" and rng.random() < 0.3:
                step["output"] = "Error: service unavailable"
    if rng.random() < 0.1:
        trace["x_extra"] = {"note": "an unknown top-level key"}
    if rng.random() < 0.1 and steps:
        steps[0]["x_step_extra"] = 1
    return trace


def long_faulted_trace(steps: int, seed: int = SEED) -> dict[str, Any]:
    """One trace of about `steps` steps: corpus episodes back to back, each with its
    seeded fault (so every rule family fires), step ids renumbered."""
    out: list[dict[str, Any]] = []
    index = 0
    while len(out) < steps:
        trace, _ = corpus.make_trace(seed, index)
        index += 1
        out.extend(trace["steps"])
    del out[steps:]
    for position, step in enumerate(out, start=1):
        step["step_id"] = f"s{position}"
    return {
        "trace_id": f"long-faulted-{steps}",
        "agent_name": "soak",
        "workflow": "soak",
        "steps": out,
    }


def write_inputs(work: Path) -> list[tuple[str, str, list[str], list[str]]]:
    """The input files, and the runs: (name, policy file, paths, extra flags)."""
    policy_a = work / "policy-a.json"
    policy_a.write_text(json.dumps(corpus.POLICY, indent=2))
    policy_b = work / "policy-b.json"
    policy_b.write_text(json.dumps(POLICY_B, indent=2))
    rng = random.Random(SEED)
    plain = work / "plain.jsonl"
    mutated = work / "mutated.jsonl"
    with plain.open("w") as a, mutated.open("w") as b:
        for trace, _ in corpus.iter_corpus(SEED, COUNT):
            a.write(json.dumps(trace, separators=(",", ":")) + "\n")
            b.write(json.dumps(_mutate(trace, rng), separators=(",", ":")) + "\n")
    singles = work / "singles"
    singles.mkdir()
    for index in range(40):
        trace, _ = corpus.make_trace(SEED + 1, index)
        (singles / f"t{index:02d}.json").write_text(json.dumps(_mutate(trace, rng), indent=2))
    long = work / "long.json"
    long.write_text(json.dumps(long_faulted_trace(20_000), separators=(",", ":")))
    shutil.copytree(ROOT / "samples", work / "samples")
    samples = "samples/traces"
    runs = []
    for label, policy in (("a", policy_a), ("b", policy_b)):
        runs.append((f"samples-{label}", str(policy), [samples], []))
        runs.append((f"plain-{label}", str(policy), [str(plain)], []))
        runs.append((f"mutated-{label}", str(policy), [str(mutated)], []))
        runs.append((f"singles-{label}", str(policy), [str(singles)], []))
        runs.append((f"long-{label}", str(policy), [str(long)], []))
    runs.append(("mutated-a-jobs2", str(policy_a), [str(mutated)], ["--jobs", "2"]))
    runs.append(("samples-sample-policy", "samples/policy.json", [samples], []))
    return runs


def run_all(out: Path, src: str | None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src
    with tempfile.TemporaryDirectory(prefix="arh-equiv-") as tmp:
        work = Path(tmp)
        for name, policy, paths, extra in write_inputs(work):
            base = out / name
            command = [
                sys.executable, "-m", "agent_reliability_harness", "validate",
                "--policy", policy, *extra,
                "--json-out", f"{base}.json", "--sarif-out", f"{base}.sarif",
                "--junit-out", f"{base}.xml", "--md-out", f"{base}.md", *paths,
            ]  # fmt: skip
            done = subprocess.run(command, cwd=work, env=env, capture_output=True, check=False)
            (out / f"{name}.txt").write_bytes(done.stdout)
            (out / f"{name}.stderr").write_bytes(done.stderr + f"exit {done.returncode}\n".encode())
            print(f"{name}: exit {done.returncode}", flush=True)


def compare(reference: Path, candidate: Path, limit: int = 10) -> bool:
    differences = []
    names = sorted({p.name for p in reference.iterdir()} | {p.name for p in candidate.iterdir()})
    for name in names:
        a, b = reference / name, candidate / name
        if not a.exists() or not b.exists():
            differences.append(f"{name}: only in {'candidate' if b.exists() else 'reference'}")
            continue
        old, new = a.read_bytes(), b.read_bytes()
        if old != new:
            at = next((i for i, (x, y) in enumerate(zip(old, new, strict=False)) if x != y), None)
            at = min(len(old), len(new)) if at is None else at
            line = old.count(b"\n", 0, at) + 1
            differences.append(
                f"{name}: differs at byte {at} (line {line}):\n"
                f"  reference: {old[max(0, at - 80) : at + 120]!r}\n"
                f"  candidate: {new[max(0, at - 80) : at + 120]!r}"
            )
    if not differences:
        print(f"EQUIVALENT ({len(names)} files)")
        return True
    print(f"{len(differences)} files differ:")
    for line in differences[:limit]:
        print(line)
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--reference", type=Path, help="write this build's outputs here")
    mode.add_argument("--compare", type=Path, help="compare this build's outputs with these")
    parser.add_argument("--src", help="PYTHONPATH for the arh under test (default: installed)")
    parser.add_argument("--keep", type=Path, help="with --compare: keep the outputs here")
    args = parser.parse_args(argv)
    if args.reference:
        run_all(args.reference, args.src)
        return 0
    with tempfile.TemporaryDirectory(prefix="arh-equiv-out-") as tmp:
        out = args.keep or Path(tmp)
        run_all(out, args.src)
        return 0 if compare(args.compare, out) else 1


if __name__ == "__main__":
    sys.exit(main())
