"""Every executor gives the same bytes: in-process, a process pool, and a Dask cluster
(a LocalCluster started here, on 127.0.0.1), over local paths and fsspec URLs."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from agent_reliability_harness import api
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.pipeline import ProcessPool, dask_executor, executors
from agent_reliability_harness.pipeline.dask_executor import DaskExecutor
from agent_reliability_harness.render import file_renderers
from helpers import SAMPLES

distributed = pytest.importorskip("distributed")


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def _outputs(policy: Path, paths: list[str], how: list[str], out_dir: Path) -> tuple[object, ...]:
    """Exit code, console, stderr and every report format of one run."""
    out_dir.mkdir()
    targets = [(f"--{r.name}-out", out_dir / f"report.{r.name}") for r in file_renderers("run")]
    args = ["validate", "--policy", str(policy), *paths, *how]
    for flag, target in targets:
        args += [flag, str(target)]
    code, out, err = _cli(args)
    return code, out, err, {flag: target.read_bytes() for flag, target in targets}


@pytest.fixture
def inputs(tmp_path: Path, bench_corpus: tuple[Path, Path]) -> list[str]:
    """The generated corpus, the samples, and broken inputs of several kinds."""
    _, traces = bench_corpus
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "nan.json").write_text('{"trace_id": NaN}')
    lines = traces.read_text().splitlines()
    (bad / "mixed.jsonl").write_text("\n".join([*lines[:20], "{oops", *lines[20:40]]) + "\n")
    return [str(traces), str(SAMPLES / "traces"), str(bad), str(tmp_path / "missing.json")]


def test_dask_cluster_gives_the_bytes_of_jobs_1(
    scheduler: str,
    inputs: list[str],
    bench_corpus: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    policy, _ = bench_corpus
    one = _outputs(policy, inputs, ["--jobs", "1"], tmp_path / "one")
    monkeypatch.setattr(executors, "CHUNK_BYTES", 50_000)  # many tasks, many ranges
    monkeypatch.setattr(executors, "CHUNK_UNITS", 7)
    dask = _outputs(policy, inputs, ["--dask", scheduler], tmp_path / "dask")
    pool = _outputs(policy, inputs, ["--jobs", "2"], tmp_path / "pool")
    assert dask == one
    assert pool == one
    code, _, err, reports = one
    assert code == 1 and "error: " in str(err)
    assert isinstance(reports, dict)
    assert json.loads(reports["--json-out"])["summary"]["total_traces"] > 300


def test_urls_read_through_fsspec_on_every_executor(
    scheduler: str, bench_corpus: tuple[Path, Path], tmp_path: Path
) -> None:
    policy, traces = bench_corpus
    store = tmp_path / "bucket" / "traces"
    store.mkdir(parents=True)
    lines = traces.read_text().splitlines(keepends=True)
    for part in range(3):
        (store / f"part-{part}.jsonl").write_text("".join(lines[part * 100 : part * 100 + 100]))
    url = f"file://{store}/*.jsonl"
    one = _outputs(policy, [url], ["--jobs", "1"], tmp_path / "one")
    dask = _outputs(policy, [url], ["--dask", scheduler], tmp_path / "dask")
    assert dask == one
    report = json.loads(one[3]["--json-out"])  # type: ignore[index]
    assert report["summary"]["total_traces"] == 300
    assert report["reports"][0]["source_path"] == f"file://{store}/part-0.jsonl"
    # The same traces read as local files: the same verdicts.
    local = api.validate_paths([str(traces)], api.load_policy(str(policy)))
    assert [r["score"] for r in report["reports"]] == [r.score for r in local.reports]


def test_api_takes_an_executor(scheduler: str, bench_corpus: tuple[Path, Path]) -> None:
    policy_path, traces = bench_corpus
    policy = api.load_policy(str(policy_path))
    alone = api.validate_paths([str(traces)], policy)
    text = api.report_json(alone)
    assert api.report_json(api.validate_paths([str(traces)], policy, jobs=2)) == text
    assert (
        api.report_json(api.validate_paths([str(traces)], policy, executor=ProcessPool(2))) == text
    )
    with distributed.Client(scheduler, set_as_default=False) as client:
        on_cluster = api.validate_paths([str(traces)], policy, executor=DaskExecutor(client=client))
    assert api.report_json(on_cluster) == text


def test_unreachable_scheduler_is_an_error_line(
    bench_corpus: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dask_executor, "CONNECT_TIMEOUT_S", 0.5)
    policy, traces = bench_corpus
    code, _, err = _cli(
        ["validate", "--policy", str(policy), str(traces), "--quiet", "--dask", "tcp://127.0.0.1:9"]
    )
    assert code == 1
    assert err.startswith("error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")


def test_jobs_and_dask_together_is_misuse(bench_corpus: tuple[Path, Path]) -> None:
    policy, traces = bench_corpus
    args = ["validate", "--policy", str(policy), str(traces), "--jobs", "2", "--dask", "x"]
    code, _, err = _cli(args)
    assert code == 2 and err == "error: give --jobs or --dask, not both\n"


def test_compare_policy_runs_on_every_executor(
    scheduler: str, inputs: list[str], bench_corpus: tuple[Path, Path], tmp_path: Path
) -> None:
    policy, traces = bench_corpus
    baseline = tmp_path / "baseline.json"
    _cli(["validate", "--policy", str(policy), str(traces), "--quiet", "--json-out", str(baseline)])
    paths = [inputs[0], inputs[1], inputs[3]]  # the corpus, the samples, a missing file
    compare = ["compare", "--baseline", str(baseline), "--policy", str(policy), *paths]
    outputs = []
    for number, how in enumerate((["--jobs", "1"], ["--jobs", "2"], ["--dask", scheduler])):
        target = tmp_path / f"candidate-{number}.json"
        code, out, err = _cli(
            [*compare, *how, "--json-out", "-", "--candidate-json-out", str(target)]
        )
        outputs.append((code, out, err, target.read_bytes()))
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]
    code, out, err, candidate = outputs[0]
    assert code == 1 and err.endswith("missing.json: no such file or directory\n")
    assert json.loads(candidate)["summary"]["total_traces"] == 309  # 300 + the 9 samples
    assert "added" in out
