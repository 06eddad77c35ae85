"""Policy v1.3 claims on real runs: the public tau-bench airline runs (gpt-4o, 50 tasks x 4
trials, reward 0/1), judged by benchmarks/claims-airline.json.

    python benchmarks/claims.py [ROOT]             # ROOT: ../shared/real-runs (or $ARH_REAL_RUNS)
    python benchmarks/claims.py ROOT --scope final # every claim judged on the final answer only

Prints how many runs with reward 0 and with reward 1 ARH-GRD-004/005 flag, every flagged
reward-1 run with its findings (each must be explained: a good run flagged is a false
alarm unless the claim really is unsupported), and the findings on reward-0 runs. The
runs are read where they lie; nothing is copied. Exit 0 (a measurement, not a gate);
exit 2 when the runs are absent.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SOURCE = "2026-11/tau-bench"
RULES = ("ARH-GRD-004", "ARH-GRD-005")


def _policy(path: Path, scope: str | None) -> Any:
    from agent_reliability_harness.models.policy import Policy  # noqa: PLC0415

    data = json.loads(path.read_text(encoding="utf-8"))
    if scope is not None:
        data = copy.deepcopy(data)
        for claim in data.get("claims", ()):
            claim["scope"] = scope
    return Policy.from_dict(data)


def _claiming(trace: Any, policy: Any) -> Counter[str]:
    """Per claim, the sentences of the trace's responses that claim it (every response,
    whatever the claim's scope: what the runs say, backed or not)."""
    from agent_reliability_harness.rules._claim_text import answer_sentences  # noqa: PLC0415

    found: Counter[str] = Counter()
    for step in trace.steps:
        if not step.is_model_response or not step.text:
            continue
        for sentence in answer_sentences(step.text):
            for claim in policy.claims:
                if claim.when.first(sentence) is None:
                    continue
                if claim.unless is None or not claim.unless.search(sentence):
                    found[claim.name] += 1
    return found


def _flagged(root: Path, policy: Any) -> list[tuple[str, float, list[Any], Counter[str]]]:
    from agent_reliability_harness import load_traces  # noqa: PLC0415
    from agent_reliability_harness.engine import Evaluator  # noqa: PLC0415

    labels = json.loads((root / "labels.json").read_text(encoding="utf-8"))
    files = sorted(str(p) for p in (root / "traces").glob("*.json"))
    evaluator = Evaluator(policy)
    out = []
    for trace in load_traces(files, "openai-chat"):
        found = [f for f in evaluator.evaluate(trace).findings if f.rule_id in RULES]
        reward = float(labels[trace.trace_id]["reward"])
        out.append((trace.trace_id, reward, found, _claiming(trace, policy)))
    return out


def _report(runs: list[tuple[str, float, list[Any], Counter[str]]], names: list[str]) -> None:
    print("| reward | runs | flagged | GRD-004 | GRD-005 |")
    print("|---|---:|---:|---:|---:|")
    for reward in (0.0, 1.0):
        mine = [found for _, r, found, _ in runs if r == reward]
        flagged = [found for found in mine if found]
        by_rule = [sum(1 for found in flagged if any(f.rule_id == r for f in found)) for r in RULES]
        print(f"| {int(reward)} | {len(mine)} | {len(flagged)} | {by_rule[0]} | {by_rule[1]} |")
    print("\nclaiming sentences in all responses (runs with one) and ARH-GRD-004 findings:")
    print(
        "| claim | reward 0: sentences (runs) | not backed "
        "| reward 1: sentences (runs) | not backed |"
    )
    print("|---|---:|---:|---:|---:|")
    for name in names:
        cells = []
        for reward in (0.0, 1.0):
            mine = [(found, said) for _, r, found, said in runs if r == reward]
            sentences = sum(said[name] for _, said in mine)
            with_one = sum(1 for _, said in mine if said[name])
            unbacked = sum(1 for found, _ in mine for f in found if f.observed.get("claim") == name)
            cells += [f"{sentences} ({with_one})", str(unbacked)]
        print(f"| {name} | " + " | ".join(cells) + " |")
    for reward, title in ((1.0, "reward-1 runs flagged"), (0.0, "reward-0 runs flagged")):
        print(f"\n{title}:")
        for name, r, found, _ in runs:
            if r == reward and found:
                print(f"- {name}")
                for f in found:
                    print(f"    {f.rule_id} at {f.step_id}: {f.message}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=os.environ.get("ARH_REAL_RUNS"))
    parser.add_argument("--policy", type=Path, default=HERE / "claims-airline.json")
    parser.add_argument("--scope", choices=("final", "all"), help="override every claim's scope")
    args = parser.parse_args(argv)
    root = Path(args.root or HERE.parent.parent / "shared" / "real-runs") / SOURCE
    if not (root / "labels.json").is_file():
        print(f"no tau-bench runs at {root}", file=sys.stderr)
        return 2
    policy = _policy(args.policy, args.scope)
    _report(_flagged(root, policy), [claim.name for claim in policy.claims])
    return 0


if __name__ == "__main__":
    sys.exit(main())
