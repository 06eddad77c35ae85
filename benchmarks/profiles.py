"""Run the built-in profiles over the coding-agent runs of a real-runs folder.

    python benchmarks/profiles.py ../shared/real-runs            # per rule x source counts
    python benchmarks/profiles.py ../shared/real-runs --findings  # and every finding

For each source folder of CODING (those present under ROOT, all three date folders), every
trace is validated under `arh:recommended` and `arh:coding-agent`; the table gives the
traces, tool calls, and findings per rule and source. `--findings` lists each finding of a
profile rule (rule, source, file, step, message, observed) for review. No data is embedded:
the folder is read where it lies.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from agent_reliability_harness.api import iter_traces, load_policy, validate_trace
from agent_reliability_harness.models.report import InputFailure

# Coding-agent sources (folders under ROOT), as far as they are present.
CODING = [
    "2026-11/claude-code",
    "2026-11/swe-agent",
    "2026-11/more/mini-swe-agent",
    "2026-11/more/inspect-ai",
    "2026-12/claude-code",
    "2026-12/codex-cli",
    "2026-12/codex-exec-json",
    "2026-12/gemini-cli",
    "2026-12/gemini-cli-stream-json",
    "2026-12/openhands",
    "2026-12/mcp",
    "2026-12-06/claude-code-stream-json",
    "2026-12-06/cline-sdk-session",
    "2026-12-06/cline-task-history",
    "2026-12-06/cursor-agent-stream-json",
    "2026-12-06/harbor-atif",
    "2026-12-06/autocoderover",
    "2026-12-06/moatless",
]
PROFILES = ("recommended", "coding-agent")
# The rules the profiles turn on: a column each, found or not.
PROFILE_RULES = (
    "ARH-SCH-013",
    "ARH-SAF-002",
    "ARH-SAF-003",
    "ARH-SAF-004",
    "ARH-SAF-005",
    "ARH-SAF-006",
    "ARH-SAF-007",
    "ARH-FLW-006",
    "ARH-CMP-001",
)
SKIP = {"PROVENANCE.txt", "LICENSE", "README.md"}


def _files(folder: Path) -> list[str]:
    return sorted(str(p) for p in folder.rglob("*") if p.is_file() and p.name not in SKIP)


def sweep(root: Path) -> tuple[Counter[tuple[str, str, str]], list[dict[str, Any]], Counter[str]]:
    """(profile, rule, source) -> findings; every finding; per source traces and calls."""
    policies = {name: load_policy(f"arh:{name}") for name in PROFILES}
    counts: Counter[tuple[str, str, str]] = Counter()
    found: list[dict[str, Any]] = []
    sizes: Counter[str] = Counter()
    for source in CODING:
        folder = root / source
        if not folder.is_dir():
            continue
        for path in _files(folder):
            for item in iter_traces([path]):
                if isinstance(item, InputFailure):
                    continue
                trace = item.trace
                sizes[f"{source} traces"] += 1
                sizes[f"{source} calls"] += sum(1 for s in trace.steps if s.is_tool_call)
                for name, policy in policies.items():
                    for finding in validate_trace(trace, policy, 0).findings:
                        counts[(name, finding.rule_id, source)] += 1
                        if name == "coding-agent":
                            found.append(
                                {
                                    "rule": finding.rule_id,
                                    "source": source,
                                    "file": os.path.relpath(path, root),
                                    "step": finding.step_id,
                                    "message": finding.message,
                                    "observed": finding.observed,
                                }
                            )
    return counts, found, sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--findings", action="store_true", help="list every finding")
    args = parser.parse_args(argv)
    counts, found, sizes = sweep(args.root)
    rules = sorted({rule for _, rule, _ in counts} | set(PROFILE_RULES))
    sources = [s for s in CODING if sizes[f"{s} traces"]]
    for name in PROFILES:
        print(f"\n## {name}\n")
        print("| source | traces | calls | " + " | ".join(rules) + " |")
        print("|---|---:|---:|" + "---:|" * len(rules))
        for source in sources:
            cells = [str(counts[(name, rule, source)]) for rule in rules]
            print(
                f"| {source} | {sizes[f'{source} traces']} | {sizes[f'{source} calls']} | "
                + " | ".join(cells)
                + " |"
            )
    if args.findings:
        print()
        for item in found:
            observed = str(item["observed"])[:160].replace("\n", "\\n")
            print(f"{item['rule']}  {item['source']}  {item['file']}  {item['step']}")
            print(f"    {item['message'][:200]}  | {observed}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
