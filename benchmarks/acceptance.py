"""The real-data acceptance of issue 15, measured through the rules and the CLI: per-task
trajectory policies over graded tau-bench runs, and one injection-marker data-flow policy
over AgentDojo runs. The recorded runs are public but never committed; docs/algorithms.md
gives the commands and the figures.

    python benchmarks/acceptance.py tau-policies RESULTS.json OUTDIR
    arh validate --quiet --policy OUTDIR/tasks --json-out tau.json RESULTS.json
    python benchmarks/acceptance.py tau-agree RESULTS.json tau.json

    python benchmarks/acceptance.py dojo-split OUTDIR EXPORT.jsonl [EXPORT.jsonl ...]
    arh validate --quiet --policy benchmarks/agentdojo-policy.json --json-out dojo.json OUTDIR/runs
    python benchmarks/acceptance.py dojo-rates OUTDIR/labels.json dojo.json
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

# tau-bench airline and retail tools that change no database state: the grader compares
# the final state (and required outputs), so a task's expectation is its writing actions.
READ_TOOLS = [
    "get_*",
    "search_*",
    "list_*",
    "find_*",
    "calculate",
    "think",
    "transfer_to_human_agents",
]


def tau_policies(results: Path, out: Path) -> None:
    """One base policy and one child per task: the task's writing actions, exact arguments,
    in any order, and no other writing call (`unordered`)."""
    runs = json.loads(results.read_text(encoding="utf-8"))
    base = {
        "schema_version": "1.1",
        "allow_unlisted_tools": True,
        "trajectory": {"match": "unordered", "ignore_tools": READ_TOOLS},
    }
    (out / "tasks").mkdir(parents=True, exist_ok=True)
    (out / "base.json").write_text(json.dumps(base, indent=2) + "\n", encoding="utf-8")
    tasks: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        actions = run["info"]["task"]["actions"]
        tasks[str(run["task_id"])] = [
            {"tool": a["name"], "arguments": a["kwargs"]}
            for a in actions
            if not any(_glob(a["name"], g) for g in READ_TOOLS)
        ]
    for task_id, expected in sorted(tasks.items()):
        child = {
            "policy_id": f"task-{task_id}",
            "extends": "../base.json",
            "applies_to": {"task_id": [task_id]},
            "trajectory": {"expected": expected},
        }
        path = out / "tasks" / f"task-{int(task_id):04d}.json"
        path.write_text(json.dumps(child, indent=2) + "\n", encoding="utf-8")
    print(f"{len(tasks)} task policies in {out / 'tasks'}")


def _glob(name: str, pattern: str) -> bool:
    return re.fullmatch(re.escape(pattern).replace(r"\*", ".*"), name) is not None


def tau_agree(results: Path, report: Path) -> None:
    runs = json.loads(results.read_text(encoding="utf-8"))
    graded = {f"{r['task_id']}-{r['trial']}": r["reward"] == 1 for r in runs}
    verdicts = {t["trace_id"]: t["passed"] for t in _reports(report)}
    assert set(verdicts) == set(graded), "every graded run must be judged"
    agree = sum(verdicts[k] == graded[k] for k in graded)
    missed = sum(verdicts[k] and not graded[k] for k in graded)
    strict = sum(not verdicts[k] and graded[k] for k in graded)
    print(
        f"{len(graded)} runs: agreement {agree}/{len(graded)} = {100 * agree / len(graded):.1f}%; "
        f"failed runs passed: {missed}; passed runs failed: {strict}"
    )


def dojo_split(out: Path, exports: list[Path]) -> None:
    """One openai-chat transcript per run (the export's own messages), and the grades."""
    (out / "runs").mkdir(parents=True, exist_ok=True)
    labels: dict[str, str] = {}
    empty = 0
    for export in exports:
        lines = export.read_text(encoding="utf-8").splitlines()
        for line in lines[1:]:  # the first line is the export's header
            run = json.loads(line)
            meta = run["metadata"]
            if not run["messages"]:  # recorded without a message: nothing to judge
                empty += 1
                continue
            name = f"{meta['model']}-{export.stem[-12:]}-{run['index']}"
            name = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
            if meta["injection_task_id"] is None:
                labels[name] = "benign"
            else:
                labels[name] = "successful" if meta["security"] else "resisted"
            text = json.dumps(run["messages"])
            (out / "runs" / f"{name}.json").write_text(text, encoding="utf-8")
    (out / "labels.json").write_text(json.dumps(labels, sort_keys=True), encoding="utf-8")
    print(f"{len(labels)} runs in {out / 'runs'}; {empty} runs without messages left out")


def dojo_rates(labels_path: Path, report: Path) -> None:
    """Flag rates per grade; a run the CLI refused (no step at all) counts as not flagged."""
    labels = json.loads(labels_path.read_text(encoding="utf-8"))
    flagged = {
        t["trace_id"]: any(f["rule_id"] == "ARH-FLW-004" for f in t["findings"])
        for t in _reports(report)
    }
    errors = json.loads(report.read_text(encoding="utf-8"))["input_errors"]
    refused = {Path(e["source_path"]).stem for e in errors}
    assert set(flagged) | refused == set(labels), "every run must be judged or refused"
    print(f"{len(flagged)} runs judged, {len(refused)} refused (no step)")
    for kind in ("successful", "resisted", "benign"):
        names = [n for n, k in labels.items() if k == kind]
        hits = sum(flagged.get(n, False) for n in names)
        print(f"{kind}: ARH-FLW-004 on {hits}/{len(names)} = {100 * hits / len(names):.1f}%")


def _reports(path: Path) -> list[dict[str, Any]]:
    reports: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["reports"]
    return reports


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, args in {
        "tau-policies": ("results", "out"),
        "tau-agree": ("results", "report"),
        "dojo-rates": ("labels", "report"),
    }.items():
        command = sub.add_parser(name)
        for arg in args:
            command.add_argument(arg, type=Path)
    split = sub.add_parser("dojo-split")
    split.add_argument("out", type=Path)
    split.add_argument("exports", type=Path, nargs="+")
    ns = parser.parse_args()
    if ns.command == "tau-policies":
        tau_policies(ns.results, ns.out)
    elif ns.command == "tau-agree":
        tau_agree(ns.results, ns.report)
    elif ns.command == "dojo-split":
        dojo_split(ns.out, ns.exports)
    else:
        dojo_rates(ns.labels, ns.report)


if __name__ == "__main__":
    main()
