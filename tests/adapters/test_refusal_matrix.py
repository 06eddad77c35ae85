"""The cross-format refusal matrix: every fixture of every format (JSON, JSON Lines sessions,
binary OTLP and Inspect archives) under every other explicit `--format` is an input error
that names the fixture's own format, never a trace to judge; `validate` over the whole
fixture tree accounts for every file, judged or refused (docs/adapters.md, "Coverage and
refusal"); the page's per-format coverage table is current."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import coverage_table
import pytest

from agent_reliability_harness.adapters import BY_NAME
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams

HERE = Path(__file__).resolve().parent
FIX = HERE / "fixtures"
EVERY = sorted(p for p in FIX.rglob("*") if p.is_file())
# A Codex CLI rollout written before the typed lines: its later lines are bare Responses API
# items, which those formats read line by line (the file still fails on its head line).
PARTIAL = {
    ("codex-cli/rollout-legacy.jsonl", "openai-responses"),
    ("codex-cli/rollout-legacy.jsonl", "openai-chat"),
}


def rel(path: Path) -> str:
    return path.relative_to(FIX).as_posix()


def arh(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def _traces(out: str) -> list[Any]:
    if not out.strip():
        return []
    converted = json.loads(out)
    return converted if isinstance(converted, list) else [converted]


def _refused_golden(path: Path) -> bool:
    expected = HERE / "expected" / path.parent.name / f"{path.stem}.json"
    golden = json.loads(expected.read_text("utf-8")) if expected.exists() else None
    return isinstance(golden, dict) and set(golden) == {"error"}


@pytest.mark.parametrize("path", EVERY, ids=rel)
def test_every_other_explicit_format_refuses_it_naming_its_own(path: Path) -> None:
    own = path.parent.name
    wrong: dict[str, str] = {}
    for fmt in BY_NAME:
        if fmt == own:
            continue
        code, out, err = arh("convert", "--format", fmt, str(path))
        first = err.splitlines()[0] if err else ""
        shape = rf"error: \S*{re.escape(rel(path))}(:\d+)?: not an? {re.escape(fmt)} transcript: "
        if code != 1 or not re.match(shape, first) or own not in first:
            wrong[fmt] = f"exit {code}: {first or out[:80]}"
        traces = _traces(out)
        if traces and (rel(path), fmt) not in PARTIAL:
            wrong[fmt] = f"{len(traces)} trace(s) written beside the error"
        # Never an empty trace: whatever a partial read writes carries steps.
        assert all(t.get("steps") for t in traces), (fmt, traces)
    assert not wrong, f"{rel(path)}: {wrong}"


def _validate(tmp_path: Path, fmt: str) -> tuple[int, dict[str, Any]]:
    policy, report = tmp_path / "policy.json", tmp_path / f"{fmt}.json"
    policy.write_text('{"policy_id": "p"}', "utf-8")
    argv = ["validate", "--policy", str(policy), "--format", fmt, "--jobs", "1", "--quiet"]
    code, out, err = arh(*argv, "--json-out", str(report), str(FIX))
    assert out == ""
    assert len(err.splitlines()) == len(json.loads(report.read_text("utf-8"))["input_errors"])
    return code, json.loads(report.read_text("utf-8"))


def _files(entries: list[dict[str, Any]]) -> set[str]:
    return {Path(e["source_path"]).resolve().relative_to(FIX).as_posix() for e in entries}


@pytest.mark.parametrize("fmt", ["auto", *BY_NAME])
def test_validate_over_every_fixture_judges_only_its_format(tmp_path: Path, fmt: str) -> None:
    """One explicit format over the whole tree: its own fixtures are judged (those that
    must be refused aside), every other file is an input error, and no file is left out."""
    code, report = _validate(tmp_path, fmt)
    judged, refused = _files(report["reports"]), _files(report["input_errors"])
    every = {rel(p) for p in EVERY}
    own = {rel(p) for p in EVERY if fmt in ("auto", p.parent.name) and not _refused_golden(p)}
    partial = {name for name, f in PARTIAL if f == fmt}
    assert code == 1
    assert judged | refused == every
    assert judged == own | partial
    assert refused == every - own
    assert report["summary"]["total_traces"] == len(report["reports"])
    assert report["reports"] or fmt == "arh"  # no canonical trace among the fixtures


def test_the_coverage_table_in_the_docs_is_current() -> None:
    page = (HERE.parents[1] / "docs" / "adapters.md").read_text("utf-8")
    assert coverage_table.markdown() in page, "python tests/adapters/coverage_table.py"
