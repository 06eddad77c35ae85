"""The per-format coverage figures of docs/adapters.md ("Coverage on the project's
fixtures"), computed from the adapter goldens: how many items each format's fixtures map,
note (ARH-SCH-013) and skip as bookkeeping. `python tests/adapters/coverage_table.py`
prints the table; test_refusal_matrix.py checks the page holds it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FIX, EXPECTED = HERE / "fixtures", HERE / "expected"
HEAD = (
    "| format | fixture files | traces | steps | items mapped | items noted | skipped | refused |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
)


def _golden(path: Path) -> Any:
    return json.loads((EXPECTED / path.parent.name / f"{path.stem}.json").read_text("utf-8"))


def figures() -> dict[str, Counter[str]]:
    """Per format: its fixture files, and over their distinct goldens (a binary twin reads
    as its JSON fixture does) the traces, steps, mapped, noted and skipped items and the
    fixtures refused."""
    found: dict[str, Counter[str]] = {}
    seen: set[tuple[str, str]] = set()
    for path in sorted(p for p in FIX.rglob("*") if p.is_file()):
        fmt = path.parent.name
        row = found.setdefault(fmt, Counter())
        row["files"] += 1
        if (fmt, path.stem) in seen:
            continue
        seen.add((fmt, path.stem))
        golden = _golden(path)
        if isinstance(golden, dict) and set(golden) == {"error"}:
            row["refused"] += 1
            continue
        for trace in golden if isinstance(golden, list) else [golden]:
            record = trace["metadata"]["adapter"]
            row["traces"] += 1
            row["steps"] += len(trace["steps"])
            row["mapped"] += record["mapped"]
            row["noted"] += len(record["notes"])
            row["skipped"] += sum(record.get("skipped", {}).values())
    return found


def markdown() -> str:
    keys = ("files", "traces", "steps", "mapped", "noted", "skipped", "refused")
    rows = [
        f"| `{fmt}` | " + " | ".join(str(row[k]) for k in keys) + " |"
        for fmt, row in sorted(figures().items())
    ]
    total = Counter[str]()
    for row in figures().values():
        total.update(row)
    rows.append("| all | " + " | ".join(f"**{total[k]}**" for k in keys) + " |")
    return "\n".join((*HEAD, *rows)) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
