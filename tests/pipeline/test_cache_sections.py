"""`--cache` with run sections that read the trace (`--coverage`): each trace's summary
is kept in its entry and replayed on a hit, so every output (JSON with its coverage
section, Markdown, HTML, SARIF, JUnit, OTLP, console) is byte-identical with and without
the cache, on every executor; a policy edit that changes the section invalidates."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from agent_reliability_harness import api
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.models.trace import parse_trace
from agent_reliability_harness.pipeline import (
    Needs,
    RunOptions,
    RunResult,
    SectionSpec,
    cache,
    documents,
    executors,
)
from agent_reliability_harness.pipeline import run as pipeline_run
from agent_reliability_harness.pipeline.cache_store import open_store
from agent_reliability_harness.pipeline.coverage import CoverageAccumulator, summarise
from agent_reliability_harness.pipeline.partial import Tally
from agent_reliability_harness.pipeline.plan import TraceView
from agent_reliability_harness.pipeline.tasks import TaskAccumulator
from agent_reliability_harness.pipeline.tasks import summarise as tasks_summarise
from agent_reliability_harness.render import file_renderers
from helpers import SAMPLES, make_trace, report, response, tool_call

CACHE_LINE = "cache: "
STREAMED = 20_000  # files of this size or more are read a chunk of steps at a time


def _big_trace(target: Path) -> None:
    """A trace file read a chunk of steps at a time (its coverage is not counted)."""
    steps = [tool_call(f"c{i}", "lookup_order", {"order_id": "ORD-1042"}) for i in range(200)]
    target.write_text(json.dumps(make_trace(*steps, response("end"), trace_id="big")))
    assert target.stat().st_size > STREAMED


@pytest.fixture
def inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setattr(documents, "STREAM_MIN_BYTES", STREAMED)
    monkeypatch.setattr(cache, "STREAM_MIN_BYTES", STREAMED)
    big = tmp_path / "big"
    big.mkdir()
    _big_trace(big / "big.json")
    repeated = SAMPLES / "repeated"
    return [str(SAMPLES / "traces"), str(repeated / "candidate.jsonl"), str(big)]


def _policy(tmp_path: Path, optional: dict[str, str] | None = None) -> Path:
    """The samples' policy (with more optional arguments of search_kb when given)."""
    data = json.loads((SAMPLES / "policy.json").read_text())
    if optional is not None:
        data["allowed_tools"]["search_kb"]["optional_arguments"].update(optional)
    target = tmp_path / "policy.json"
    target.write_text(json.dumps(data))
    return target


def _outputs(
    policy: Path, inputs: list[str], how: list[str], out_dir: Path, sarif: bool = True
) -> tuple[int, str, str, dict[str, bytes]]:
    """Exit code, console, stderr and every report format (OTLP too) of one run; without
    SARIF (which needs line positions) a big trace file is read a chunk at a time."""
    out_dir.mkdir()
    names = [r.name for r in file_renderers("run") if sarif or r.name != "sarif"]
    targets = [(f"--{name}-out", out_dir / f"report.{name}") for name in {*names, "otlp"}]
    args = ["validate", "--policy", str(policy), *inputs, "--coverage", "--repeated", *how]
    for flag, target in sorted(targets):
        args += [flag, str(target)]
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue(), {f: t.read_bytes() for f, t in targets}


def _hits(console: str) -> tuple[int, int]:
    [line] = [x for x in console.splitlines() if x.startswith(CACHE_LINE)]
    words = line.split()
    return int(words[1]), int(words[3])


def _same(run: tuple[int, str, str, dict[str, bytes]], plain: tuple[object, ...]) -> None:
    console = "".join(x for x in run[1].splitlines(keepends=True) if not x.startswith(CACHE_LINE))
    assert (run[0], console, run[2], run[3]) == plain


def _coverage(run: tuple[int, str, str, dict[str, bytes]]) -> dict[str, Any]:
    value = json.loads(run[3]["--json-out"])["coverage"]
    assert isinstance(value, dict)
    return value


def test_a_coverage_run_is_cached_with_the_bytes_of_a_run_without(
    inputs: list[str], tmp_path: Path
) -> None:
    policy = _policy(tmp_path)
    cached = ["--cache", str(tmp_path / "cache")]
    for sarif in (True, False):
        plain = _outputs(policy, inputs, [], tmp_path / f"plain{sarif}", sarif)
        assert _coverage(plain).get("traces_not_counted") == (None if sarif else 1)
        assert json.loads(plain[3]["--json-out"]).get("tasks")  # a report_only section too
        first = _outputs(policy, inputs, cached, tmp_path / f"first{sarif}", sarif)
        again = _outputs(policy, inputs, cached, tmp_path / f"again{sarif}", sarif)
        assert "cannot be cached" not in first[2]
        total = json.loads(plain[3]["--json-out"])["summary"]["total_traces"]
        for run, hits in ((first, 0), (again, total)):
            _same(run, plain)
            assert _hits(run[1]) == (hits, total)
    # Without --coverage the entries are others (their keys hold no section summary).
    code, out, _ = _plain_hits(policy, inputs, cached)
    assert code == 1 and _hits(out) == (0, total)


def _plain_hits(policy: Path, inputs: list[str], how: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    args = ["validate", "--policy", str(policy), *inputs, "--show", "summary", *how]
    code = main(args, Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def test_a_policy_edit_that_changes_coverage_invalidates(inputs: list[str], tmp_path: Path) -> None:
    cached = ["--cache", str(tmp_path / "cache")]
    policy = _policy(tmp_path)
    before = _outputs(policy, inputs, cached, tmp_path / "before")
    policy = _policy(tmp_path, {"language": "str"})  # one more declared argument
    plain = _outputs(policy, inputs, [], tmp_path / "plain")
    after = _outputs(policy, inputs, cached, tmp_path / "after")
    assert _coverage(after) != _coverage(before)
    assert _coverage(after)["arguments_declared"] == _coverage(before)["arguments_declared"] + 1
    assert _hits(after[1])[0] == 0
    _same(after, plain)
    again = _outputs(policy, inputs, cached, tmp_path / "again")
    assert _hits(again[1])[0] == _hits(again[1])[1]
    _same(again, plain)


def test_every_executor_reads_and_writes_one_coverage_cache(
    inputs: list[str], tmp_path: Path, scheduler: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(executors, "CHUNK_UNITS", 3)  # counts split across partials
    monkeypatch.setattr(executors, "CHUNK_BYTES", 20_000)
    policy = _policy(tmp_path)
    cached = ["--cache", str(tmp_path / "cache")]
    plain = _outputs(policy, inputs[:2], ["--jobs", "1"], tmp_path / "plain")
    pooled = _outputs(policy, inputs[:2], ["--jobs", "2", *cached], tmp_path / "pooled")
    dask = _outputs(policy, inputs[:2], ["--dask", scheduler, *cached], tmp_path / "dask")
    alone = _outputs(policy, inputs[:2], ["--jobs", "1", *cached], tmp_path / "alone")
    total = json.loads(plain[3]["--json-out"])["summary"]["total_traces"]
    for run, hits in ((pooled, 0), (dask, total), (alone, total)):
        _same(run, plain)
        assert _hits(run[1]) == (hits, total)


def test_a_summary_adds_what_the_trace_adds() -> None:
    steps = [
        tool_call("a", "search_kb", {"query": "x", "top_k": 2}),
        tool_call("b", "search_kb", {"query": "y"}),
        tool_call("c", "unlisted", {}),
        tool_call("d", "unlisted", {"z": 1}),
        response("e"),
    ]
    policy = {"allow_unlisted_tools": False, "allowed_tools": {"search_kb": {}}}
    judged = report(steps, policy)
    assert any(f.step_id == "c" for f in judged.findings)
    view = TraceView(judged, parse_trace(make_trace(*steps)))
    direct, replayed = CoverageAccumulator(), CoverageAccumulator()
    for _ in range(2):
        direct.add(view)
        replayed.add_summary(summarise(view))
    assert direct.tools == replayed.tools and direct.traces == replayed.traces == 2
    assert direct.tools["unlisted"].rules and direct.tools["unlisted"].traces == 2
    assert summarise(view) == summarise(TraceView(judged, parse_trace(make_trace(*steps))))
    replayed.add_summary(summarise(TraceView(judged, None)))
    assert replayed.not_counted == 1


class _ReadsTraces:
    """A section that reads the trace and has no summary: a run with it is not cached."""

    def add(self, view: TraceView) -> None:
        return None

    def merge(self, later: object) -> None:
        return None

    def finish(self) -> None:
        return None


class _Sink:
    needs = Needs(sections=(SectionSpec("reads-traces", _ReadsTraces),))

    def add(self, partial: object) -> None:
        return None

    def finish(self, result: RunResult) -> bool:
        return True


def test_a_section_without_summary_runs_without_the_cache(tmp_path: Path) -> None:
    policy = api.load_policy(str(SAMPLES / "policy.json"))
    options = RunOptions(coverage=True, cache=api.CacheOptions(str(tmp_path / "c")))
    traces = [str(SAMPLES / "traces")]
    with pytest.warns(RuntimeWarning, match="report sections cannot be cached"):
        pipeline_run(traces, [policy], [_Sink()], options=options)  # type: ignore[list-item]
    assert not (tmp_path / "c").exists()
    result = pipeline_run(traces, [policy], [], options=options)  # coverage alone: cached
    assert [s.key for s in result.sections] == ["coverage"]
    assert open_store(str(tmp_path / "c")).stats().entries > 0


def test_a_task_summary_adds_what_the_report_adds() -> None:
    """The `tasks` section is fed a cached trace's summary (its report is not decoded):
    the same section, with task ids, without, passed and failed."""
    steps = [tool_call("a", "search_kb", {"query": "x"}), tool_call("c", "unlisted", {})]
    policy = {
        "allow_unlisted_tools": False,
        "allowed_tools": {"search_kb": {"optional_arguments": {"query": {}}}},
    }
    failing = report([*steps, response("e")], policy)
    passing = report([steps[0], response("e")], policy)
    views = []
    for judged, task in ((failing, "t1"), (passing, "t1"), (failing, None), (passing, "t2")):
        views.append(TraceView(msgspec.structs.replace(judged, task_id=task), None))
    assert views[1].report.passed and not views[0].report.passed
    direct, replayed = TaskAccumulator(), TaskAccumulator()
    for view in views:
        direct.add(view)
        replayed.add_summary(tasks_summarise(view))
    assert tasks_summarise(views[2]) == b""
    made, again = direct.finish(), replayed.finish()
    assert made is not None and made == again


def test_a_tally_counts_what_the_report_counts() -> None:
    steps = [tool_call("a", "search_kb", {"query": "x"}), tool_call("c", "unlisted", {})]
    judged = report([*steps, response("e")], {"allow_unlisted_tools": False})
    tally = Tally.of(judged)
    assert (tally.passed, tally.score) == (judged.passed, judged.score)
    assert sum(tally.severities.values()) == len(judged.findings) > 0
    assert list(tally.categories) == list(dict.fromkeys(f.category for f in judged.findings))
