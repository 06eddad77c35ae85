"""No document is read as a format other than its own (issue 30, acceptance point 2).

Every fixture under tests/adapters/fixtures/<format>/ and, when present, every real file
under ../shared/real-runs (or $ARH_REAL_RUNS) is read with `auto`; the format each file
is read as is a column of a confusion matrix over formats, whose rows are the formats the
files are in. Every off-diagonal cell must be zero: a file of one format read as another,
or a file that holds no run read as any. A refusal is its own column (a miss, which the
per-source audits count; never a wrong verdict). The matrix is printed on failure.

Real sources are a table (REAL_SOURCES): a folder -> the format its files are in. A row
may name a format this build does not have yet: its files must then be refused (claimed
by no other format). A folder not in the table is skipped with a reason. Also: every
claimed file's run totals equal the totals the file records (RECORDED), and every step
whose figures ARH completed from the file's totals (`metadata.arh_recorded_totals`) adds
up to the file's figure. The files are never copied into the project.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterator
from fnmatch import fnmatch
from pathlib import Path

import pytest

from agent_reliability_harness.adapters import BY_NAME
from agent_reliability_harness.api import iter_traces
from agent_reliability_harness.models.trace import Trace
from agent_reliability_harness.pipeline.documents import Loaded

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "adapters" / "fixtures"
REAL = Path(os.environ.get("ARH_REAL_RUNS") or ROOT.parent / "shared" / "real-runs")
REFUSED = "refused"

# Fixtures their own format refuses (the golden is the refusal).
FIXTURE_REFUSALS = {"tau-bench/tau2-voice.json"}

# A real-runs source folder -> the format its files are in. Add a row per new source;
# a format not registered yet means: refused until it is.
REAL_SOURCES: dict[str, str] = {
    "2026-11/agentdojo/raw_sample_command-r-plus.jsonl": "openai-chat",
    "2026-11/agentdojo/traces": "openai-chat",
    "2026-11/claude-code": "claude-code",
    "2026-11/more/inspect-ai": "inspect",
    "2026-11/more/langsmith": "langchain",
    "2026-11/more/mini-swe-agent": "swe-agent",
    "2026-11/more/otel-genai": "otel-genai",
    "2026-11/more/tau2-bench": "tau-bench",
    "2026-11/swe-agent": "swe-agent",
    "2026-11/tau-bench/raw_sample.json": "tau-bench",
    "2026-11/tau-bench/traces": "openai-chat",
    "2026-12/autogen": "autogen",
    "2026-12/browser-use": "browser-use",
    "2026-12/claude-code": "claude-code",
    "2026-12/codex-cli": "codex-cli",
    "2026-12/codex-exec-json": "codex-exec",
    "2026-12/gemini-cli": "gemini-cli",
    "2026-12/gemini-cli-stream-json": "gemini-stream",
    "2026-12/inspect": "inspect",
    "2026-12/letta": "letta",
    "2026-12/mcp/derived": "mcp",
    "2026-12/openhands": "openhands",
    "2026-12/smolagents": "smolagents",
    "2026-12-06/agentops-trace-api": "agentops",
    "2026-12-06/autocoderover": "autocoderover",
    "2026-12-06/claude-code-stream-json": "claude-code",
    "2026-12-06/cline-sdk-session": "cline",
    "2026-12-06/cline-task-history": "cline",
    "2026-12-06/cursor-agent-stream-json": "cursor",
    "2026-12-06/google-adk": "adk",
    "2026-12-06/harbor-atif": "atif",
    "2026-12-06/langfuse-framework-traces": "langfuse",
    "2026-12-06/moatless": "moatless",
    "2026-12-06/nemo-relay-atif": "atif",
    "2026-12-06/otel-llm-bakeoff": "otel-genai",
}
# Files that hold no run (policies, task lists, a raw log the tool wrote next to the run,
# the raw MCP captures the derived sessions come from): expected refusals.
NO_RUN = (
    "*/policies*/*",
    "*/per_task_policies*/*",
    "2026-11/agentdojo/traces/allowed_tools_by_suite.json",
    "2026-11/agentdojo/traces/*/allowed_tools.json",
    "2026-11/tau-bench/traces/gold_actions.json",
    "2026-11/tau-bench/traces/*/gold*.json",
    "2026-12-06/harbor-atif/raw/*.debug.json",
    "2026-12/mcp/raw/*",
)
_NOT_RUNS = {"PROVENANCE.txt", "README.md", "LICENSE", "LICENSE.agentdojo"}


def read_as(path: Path) -> tuple[str, list[Trace]]:
    """The format `auto` reads a file as (its traces' source; `refused` when no trace),
    and the traces."""
    traces: list[Trace] = []
    sources: set[str] = set()
    for item in iter_traces([str(path)]):
        if isinstance(item, Loaded):
            traces.append(item.trace)
            sources.add(item.trace.source or "arh")
    return (",".join(sorted(sources)) or REFUSED), traces


def fixture_cases() -> Iterator[tuple[str, Path]]:
    for folder in sorted(p for p in FIXTURES.iterdir() if p.is_dir()):
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            rel = path.relative_to(FIXTURES).as_posix()
            yield (REFUSED if rel in FIXTURE_REFUSALS else folder.name), path


def real_cases() -> Iterator[tuple[str, Path]]:
    """(expected format or `refused`, file) for every file of the sources in the table."""
    for source, own in REAL_SOURCES.items():
        root = REAL / source
        paths = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in paths:
            rel = path.relative_to(REAL).as_posix()
            if path.name in _NOT_RUNS:
                continue
            no_run = any(fnmatch(rel, pattern) for pattern in NO_RUN)
            yield (REFUSED if no_run or own not in BY_NAME else own), path


def unknown_sources() -> list[str]:
    """Real-runs source folders the table does not map (skipped, with their names)."""
    known = tuple(REAL_SOURCES)
    found = []
    for month in sorted(p for p in REAL.iterdir() if p.is_dir()):
        for source in sorted(p for p in month.iterdir() if p.is_dir()):
            rel = source.relative_to(REAL).as_posix()
            nested = [p for p in source.iterdir() if p.is_dir() and p.name not in ("raw",)]
            candidates = [f"{rel}/{p.name}" for p in nested] if rel == "2026-11/more" else [rel]
            found += [c for c in candidates if not any(k.startswith(c) for k in known)]
    return found


def matrix(cases: Iterator[tuple[str, Path]]) -> tuple[Counter[tuple[str, str]], list[str]]:
    cells: Counter[tuple[str, str]] = Counter()
    wrong: list[str] = []
    for own, path in cases:
        got, _ = read_as(path)
        cells[(own, got)] += 1
        if got not in (own, REFUSED):
            wrong.append(f"{path}: expected {own}, read as {got}")
    return cells, wrong


def shown(cells: Counter[tuple[str, str]]) -> str:
    """The matrix as text: one row per expected format, one column per outcome."""
    rows = sorted({own for own, _ in cells})
    columns = [*sorted({got for _, got in cells} - {REFUSED}), REFUSED]
    width = max(len(c) for c in [*rows, *columns, "expected \\ read as"])
    lines = ["expected \\ read as".ljust(width) + " " + " ".join(c[:8].rjust(8) for c in columns)]
    for own in rows:
        counts = " ".join(str(cells[(own, got)] or ".").rjust(8) for got in columns)
        lines.append(own.ljust(width) + " " + counts)
    return "\n".join(lines)


def test_no_fixture_is_read_as_another_format() -> None:
    cells, wrong = matrix(fixture_cases())
    assert not wrong, "\n".join([*wrong, shown(cells)])
    assert sum(cells.values()) > 100


@pytest.mark.skipif(not REAL.is_dir(), reason="no ../shared/real-runs here")
def test_no_real_run_is_read_as_another_format() -> None:
    cells, wrong = matrix(real_cases())
    assert not wrong, "\n".join([*wrong, shown(cells)])


@pytest.mark.skipif(not REAL.is_dir(), reason="no ../shared/real-runs here")
def test_every_real_source_folder_is_in_the_table_or_skipped_with_its_name() -> None:
    unknown = unknown_sources()
    if unknown:
        pytest.skip(f"real-runs sources not in REAL_SOURCES (add a row): {', '.join(unknown)}")


# --- Run totals: ARH's equal the file's own ------------------------------------------


def _atif(path: Path) -> dict[str, float] | None:
    value = json.loads(path.read_text(encoding="utf-8"))
    metrics = value.get("final_metrics") if isinstance(value, dict) else None
    if not isinstance(metrics, dict):
        return None
    names = {
        "input_tokens": "total_prompt_tokens",
        "output_tokens": "total_completion_tokens",
        "cost_usd": "total_cost_usd",
    }
    found = {ours: metrics[theirs] for ours, theirs in names.items() if theirs in metrics}
    # A run that never reached the model records zeros: nothing to reconcile.
    return found if any(found.values()) else None


# A format -> what a file of it records as its run totals (None: none recorded).
RECORDED: dict[str, Callable[[Path], dict[str, float] | None]] = {"atif": _atif}
# Figures of a format its adapter does not reconcile yet, with why (left out, not failed).
PENDING: dict[tuple[str, str], str] = {
    ("atif", "cost_usd"): "issue 30: Harbor's mini-swe-agent runs: the steps' costs sum to "
    "more than final_metrics.total_cost_usd (the ATIF work reconciles them)",
}


def run_totals(traces: list[Trace]) -> dict[str, float]:
    totals = {"input_tokens": 0.0, "output_tokens": 0.0, "cost_usd": 0.0}
    for trace in traces:
        for step in trace.steps:
            for name in totals:
                totals[name] += getattr(step, name) or 0
    return totals


def reconciled_steps_add_up(traces: list[Trace]) -> list[str]:
    """Where ARH completed a step from the file's totals, the steps now sum to them."""
    problems = []
    for trace in traces:
        sums = run_totals([trace])
        for step in trace.steps:
            added = (step.metadata or {}).get("arh_recorded_totals")
            for name, record in (added or {}).items():
                if abs(sums[name] - record["file"]) > 1e-6 * max(1.0, record["file"]):
                    problems.append(f"{trace.trace_id}: {name} {sums[name]} != {record}")
    return problems


def _claimed_files() -> Iterator[tuple[str, Path]]:
    yield from ((own, p) for own, p in fixture_cases() if own != REFUSED)
    if REAL.is_dir():
        yield from ((own, p) for own, p in real_cases() if own != REFUSED)


def test_reconciled_steps_add_up_to_the_files_totals() -> None:
    problems: list[str] = []
    for _, path in _claimed_files():
        _, traces = read_as(path)
        problems += [f"{path}: {p}" for p in reconciled_steps_add_up(traces)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("fmt", sorted(RECORDED))
def test_run_totals_equal_the_totals_the_file_records(fmt: str) -> None:
    checked = 0
    problems: list[str] = []
    for own, path in _claimed_files():
        recorded = RECORDED[fmt](path) if own == fmt else None
        if recorded is None:
            continue
        got, traces = read_as(path)
        ours = run_totals(traces)
        checked += 1
        for name, figure in recorded.items():
            if (fmt, name) in PENDING:
                continue
            if got == fmt and abs(ours[name] - figure) > 1e-6 * max(1.0, figure):
                problems.append(f"{path}: {name}: ARH {ours[name]}, the file {figure}")
    assert not problems, "\n".join(problems)
    assert checked or pytest.skip(f"no {fmt} file records run totals here")
