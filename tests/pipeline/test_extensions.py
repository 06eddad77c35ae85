"""The extension points of the pipeline, used as wave-2 features will use them: a run-level
section from a mergeable accumulator (per-task statistics), a per-trace piece made in the
workers for a sink (an HTML-style report that needs each trace's body), and a file output
streamed through its own sink. None of them touches an executor; every executor gives
the same bytes."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, TextIO

import jsonschema
import pytest

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.models.report import Section
from agent_reliability_harness.pipeline import (
    Accumulator,
    Needs,
    OutputContext,
    Partial,
    PieceSpec,
    RunResult,
    SectionSpec,
    TraceView,
    documents,
    executors,
    plan,
    sinks,
)
from agent_reliability_harness.render import RENDERERS, Renderer
from helpers import ROOT, make_trace, response, tool_call


class TaskStats:
    """Per task: runs, passed runs, and how many runs each rule fired in (issue 16's input)."""

    def __init__(self) -> None:
        self.tasks: dict[str, list[Any]] = {}

    def add(self, view: TraceView) -> None:
        report = view.report
        if report.task_id is None:
            return
        runs, passed, fired = self.tasks.setdefault(report.task_id, [0, 0, {}])
        self.tasks[report.task_id][:2] = [runs + 1, passed + report.passed]
        for rule in sorted({f.rule_id for f in report.findings if f.rule_id}):
            fired[rule] = fired.get(rule, 0) + 1

    def merge(self, later: Accumulator) -> None:
        assert isinstance(later, TaskStats)
        for task, (runs, passed, fired) in later.tasks.items():
            mine = self.tasks.setdefault(task, [0, 0, {}])
            mine[0] += runs
            mine[1] += passed
            for rule, count in fired.items():
                mine[2][rule] = mine[2].get(rule, 0) + count

    def finish(self) -> Section | None:
        if not self.tasks:
            return None  # a run without task ids keeps its bytes
        rows = [
            {"task_id": t, "runs": r, "passed": p, "rules": dict(sorted(f.items()))}
            for t, (r, p, f) in sorted(self.tasks.items())
        ]
        return Section("per_task", rows, (("per_task_count", len(rows)),))


def _body(view: TraceView) -> str:
    return "streamed" if view.trace is None else f"{view.trace.trace_id}:{len(view.trace.steps)}"


class BodySink:
    """What an HTML report sink looks like: it asks the workers for each trace's body."""

    def __init__(self, target: str, out: TextIO) -> None:
        self.target = target
        self.rows: list[str] = []
        self.needs = Needs(pieces=(PieceSpec("body", _body),), keep_reports=True)

    def add(self, partial: Partial) -> None:
        bodies = partial.pieces["body"]
        assert len(bodies) == len(partial.reports)
        self.rows += [f"{r.trace_id} {b}\n" for r, b in zip(partial.reports, bodies, strict=True)]

    def finish(self, result: RunResult) -> bool:
        Path(self.target).write_text("".join(self.rows) + f"{result.summary.total_traces}\n")
        return True


def _body_output(renderer: Renderer, target: str, context: OutputContext) -> BodySink:
    return BodySink(target, context.out)


@pytest.fixture
def extended(monkeypatch: pytest.MonkeyPatch) -> None:
    # Next to the real `tasks` section (registered by pipeline/tasks.py), under its own key.
    monkeypatch.setitem(plan._SECTIONS, "per_task", SectionSpec("per_task", TaskStats))
    monkeypatch.setitem(sinks._OUTPUTS, "bodies", _body_output)
    unused = Renderer("bodies", ".txt", "run", "trace bodies", lambda run, options: "")
    monkeypatch.setitem(RENDERERS["run"], "bodies", unused)


@pytest.fixture
def traces(tmp_path: Path) -> Path:
    path = tmp_path / "runs.jsonl"
    rows = []
    for n in range(12):
        steps = [tool_call("s1", "forbidden" if n % 3 == 0 else "ok"), response("s2")]
        extra = {"task_id": f"task-{n % 4}"} if n < 10 else {}
        if n == 5:
            extra["outcome"] = {"success": False, "reward": 0.25}
        rows.append(make_trace(*steps, trace_id=f"t{n}", **extra))
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def _run(traces: Path, tmp_path: Path, *how: str) -> tuple[object, ...]:
    policy = tmp_path / "p.json"
    policy.write_text(json.dumps({"policy_id": "p", "allowed_tools": {"ok": {}}}))
    bodies = tmp_path / f"bodies{len(how)}{how[-1] if how else ''}.txt".replace("/", "_")
    args = ["validate", "--policy", str(policy), str(traces), "--quiet", "--json-out", "-"]
    code, out, err = _cli([*args, "--bodies-out", str(bodies), *how])
    return code, out, err, bodies.read_text()


@pytest.mark.usefixtures("extended")
def test_extensions_give_the_same_bytes_on_every_executor(
    traces: Path, tmp_path: Path, local_scheduler: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = _run(traces, tmp_path, "--jobs", "1")
    code, out, err, bodies = one
    assert (code, err) == (1, "")
    report = json.loads(str(out))
    assert report["summary"]["per_task_count"] == 4
    assert report["per_task"][0] == {
        "task_id": "task-0",
        "runs": 3,  # t0, t4, t8
        "passed": 2,
        "rules": {"ARH-SCH-001": 1},  # t0 calls a tool the policy does not allow
    }
    assert list(report)[-2:] == ["tasks", "per_task"]  # sections follow the arrays
    assert [t["runs"] for t in report["tasks"]] == [3, 3, 2, 2]
    labelled = report["reports"][5]
    assert list(labelled)[10:13] == ["source_path", "task_id", "outcome"]
    assert labelled["outcome"] == {"success": False, "reward": 0.25}
    assert "task_id" not in report["reports"][11]
    assert str(bodies).splitlines()[:2] == ["t0 t0:2", "t1 t1:2"]
    schema = json.loads((ROOT / "schemas" / "report.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(report)
    monkeypatch.setattr(executors, "CHUNK_UNITS", 2)
    monkeypatch.setattr(executors, "CHUNK_BYTES", 300)
    assert _run(traces, tmp_path, "--jobs", "2") == one
    assert _run(traces, tmp_path, "--dask", local_scheduler) == one


@pytest.mark.usefixtures("extended")
def test_a_streamed_trace_has_no_body(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "STREAM_MIN_BYTES", 0)
    trace = tmp_path / "big.json"
    trace.write_text(json.dumps(make_trace(tool_call("s1", "ok"), response("s2"))))
    assert _run(trace, tmp_path)[3] == "t1 streamed\n1\n"


def test_without_task_ids_a_registered_section_says_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(make_trace(response("s1"))) + "\n")
    policy = tmp_path / "p.json"
    policy.write_text(json.dumps({"policy_id": "p"}))
    args = ["validate", "--policy", str(policy), str(path), "--quiet", "--json-out", "-"]
    plain = _cli(args)
    monkeypatch.setitem(plan._SECTIONS, "per_task", SectionSpec("per_task", TaskStats))
    assert _cli(args) == plain
