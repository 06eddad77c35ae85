"""Streamed outputs (JSON report, console) are byte-identical to the whole-run renderers,
and the one JSON writer lays out exactly what json.dumps(indent=2) would."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pytest
from hypothesis import given

from agent_reliability_harness import api
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.models.common import Severity
from agent_reliability_harness.models.report import (
    Finding,
    InputFailure,
    RunReport,
    TraceReport,
)
from agent_reliability_harness.pipeline import executors
from agent_reliability_harness.render import RENDERERS, console, json_
from agent_reliability_harness.render.base import Renderer, RenderOptions
from strategies import traces

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def _reference(run: RunReport) -> str:
    """The layout the writer must reproduce: the stdlib's, over the models' dicts."""
    return json.dumps(run.to_dict(), indent=2, ensure_ascii=False) + "\n"


def _streamed(run: RunReport, cut: int = 7) -> str:
    """The JSON report from array text spooled and read back in pieces of `cut` chars."""

    def pieces(text: str) -> list[str]:
        return [text[i : i + cut] for i in range(0, len(text), cut)]

    reports = "".join(json_.joined(json_.report_element(r) for r in run.reports))
    failures = "".join(json_.joined(json_.failure_element(f) for f in run.input_errors))
    return "".join(
        json_.run_pieces(
            run.policy_id, run.summary, run.sections, pieces(reports), pieces(failures)
        )
    )


def _odd_report(trace_id: str) -> TraceReport:
    odd = Finding(
        "ARH-SCH-009",
        Severity.ERROR,
        "schema",
        'line\nbreak "quoted" \\ é \u2028 \x00 \x1f \x7f',
        "s1",
        expected={"min": 1, "nested": [1.5, {"k": [True, False, None]}], "empty": {}, "e": []},
        observed=math.nan,
        remediation="fix",
    )
    weird = Finding(
        "ARH-SCH-007", Severity.WARNING, "schema", "m", None, expected={1: "int key"}, observed=-0.0
    )
    big = Finding(
        "ARH-BUD-004", Severity.INFO, "budget", "m", None, observed=10**30, expected=1e300
    )
    return TraceReport(
        trace_id,
        "agent",
        "wf",
        "p",
        12.5,
        False,
        1e-07,
        0.1,
        None,
        None,
        None,
        (odd, weird, big),
        {"schema": 0.0, "budget": 100.0},
    )


@pytest.mark.parametrize("failures", [0, 1, 3])
@pytest.mark.parametrize("reports", [0, 1, 2])
def test_json_fragments_match_renderer(reports: int, failures: int) -> None:
    run = RunReport.build(
        "pol",
        tuple(_odd_report(f"t{i}") for i in range(reports)),
        tuple(InputFailure(f"f{i}.json", f"bad é {i}", line=i or None) for i in range(failures)),
    )
    assert json_.render_run(run, RenderOptions()) == _reference(run)
    for cut in (1, 7, 1 << 20):
        assert _streamed(run, cut) == _reference(run)


def test_json_and_console_match_on_samples_and_corpus(bench_corpus: tuple[Path, Path]) -> None:
    policy_path, traces = bench_corpus
    for policy_file, paths in (
        (SAMPLES / "policy.json", [str(SAMPLES / "traces")]),
        (policy_path, [str(traces)]),
    ):
        run = api.validate_paths(paths, api.load_policy(str(policy_file)))
        assert _streamed(run, 4096) == json_.render_run(run, RenderOptions()) == _reference(run)
        for color in (False, True):
            options = RenderOptions(color=color)
            pieces = "".join(console.trace_text(r, options) for r in run.reports)
            pieces += console.summary_text(run.summary, len(run.input_errors))
            assert pieces == console.render_run(run, options)


def _cli(args: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO(stdin)))
    return code, out.getvalue(), err.getvalue()


def _whole_run(policy: Path, paths: list[str], tmp_path: Path) -> tuple[str, str, str]:
    """What the pre-streaming CLI printed: collected run, rendered whole."""
    run = api.validate_paths(paths, api.load_policy(str(policy)))
    errors = "".join(f"error: {e.location()}: {e.message}\n" for e in run.input_errors)
    return (
        console.render_run(run, RenderOptions()),
        errors,
        json_.render_run(run, RenderOptions()),
    )


@pytest.fixture
def messy_inputs(tmp_path: Path, bench_corpus: tuple[Path, Path]) -> list[str]:
    _, traces = bench_corpus
    good = (SAMPLES / "traces" / "refund-ok.json").read_text()
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "nan.json").write_text('{"trace_id": NaN}')
    (tmp_path / "d" / "deep.json").write_text("[" * 995 + "]" * 995)
    (tmp_path / "d" / "bom.json").write_bytes(b"\xef\xbb\xbf" + good.encode())
    (tmp_path / "d" / "arr.json").write_text(f'[{good}, {{"trace_id": 3}}, {good}]')
    (tmp_path / "d" / "empty.json").write_text("[]")
    lines = traces.read_text().splitlines()
    mixed = [*lines[:40], "{bad", "", '{"a": 1e400}', *lines[40:90], '"\\ud800"', *lines[90:]]
    (tmp_path / "d" / "mixed.jsonl").write_text("\n".join(mixed) + "\n")
    return [str(tmp_path / "d"), str(tmp_path / "missing.json"), str(SAMPLES / "traces")]


@pytest.mark.parametrize("jobs", ["1", "2", "3"])
def test_cli_streams_same_bytes_as_whole_run(
    jobs: str, messy_inputs: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(executors, "CHUNK_UNITS", 7)  # many chunks, so workers really interleave
    policy = SAMPLES / "policy.json"
    out_file = tmp_path / "r.json"
    code, out, err = _cli(
        [
            "validate",
            "--policy",
            str(policy),
            *messy_inputs,
            "--json-out",
            str(out_file),
            "--jobs",
            jobs,
        ]
    )
    expected_out, expected_err, expected_json = _whole_run(policy, messy_inputs, tmp_path)
    assert code == 1
    assert out == expected_out
    assert err == expected_err
    assert out_file.read_text() == expected_json


def test_json_to_stdout_and_quiet(bench_corpus: tuple[Path, Path], tmp_path: Path) -> None:
    policy, traces = bench_corpus
    code, out, err = _cli(
        [
            "validate",
            "--policy",
            str(policy),
            str(traces),
            "--quiet",
            "--json-out",
            "-",
            "--jobs",
            "2",
        ]
    )
    assert code == 1 and err == ""
    assert out == _whole_run(policy, [str(traces)], tmp_path)[2]
    assert json.loads(out)["summary"]["total_traces"] == 300


def test_unwritable_json_target_is_reported(tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "dir" / "r.json"
    code, _, err = _cli(
        [
            "validate",
            "--policy",
            str(SAMPLES / "policy.json"),
            str(SAMPLES / "traces" / "refund-ok.json"),
            "--json-out",
            str(target),
        ]
    )
    assert code == 1
    assert err.startswith(f"error: {target}: cannot write:")


def test_jobs_must_be_positive() -> None:
    code, _, err = _cli(["validate", "--policy", "p.json", "x.json", "--jobs", "0"])
    assert code == 2
    assert "argument --jobs: must be at least 1 (got 0)" in err


def _trace_ids(run: RunReport, options: RenderOptions) -> str:
    ids = ",".join(r.trace_id for r in run.reports)
    return f"{ids}|{len(run.input_errors)}|{run.summary.total_traces}\n"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_whole_run_renderer_gets_the_collected_run(
    jobs: str, messy_inputs: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(executors, "CHUNK_UNITS", 5)
    monkeypatch.setitem(
        RENDERERS["run"], "ids", Renderer("ids", ".txt", "run", "trace ids", _trace_ids)
    )
    policy = SAMPLES / "policy.json"
    target = tmp_path / "ids.txt"
    code, _, _ = _cli(
        [
            "validate",
            "--policy",
            str(policy),
            *messy_inputs,
            "--ids-out",
            str(target),
            "--quiet",
            "--jobs",
            jobs,
        ]
    )
    run = api.validate_paths(messy_inputs, api.load_policy(str(policy)))
    assert code == 1
    assert target.read_text() == _trace_ids(run, RenderOptions())


def _generic_fragment(report: TraceReport) -> str:
    """The element as json.dumps(indent=2) nests it two levels deep."""
    return "    " + json.dumps(report.to_dict(), indent=2, ensure_ascii=False).replace(
        "\n", "\n    "
    )


def test_report_element_lays_out_what_the_stdlib_encoder_does() -> None:
    odd = _odd_report("odd")
    empty = TraceReport("t", "a", "w", "p", 100, True, None, None, None, None, None, ())
    labelled = TraceReport(
        "t",
        "a",
        "w",
        "p",
        100,
        True,
        None,
        None,
        None,
        None,
        "f.json",
        (),
        task_id="task-1",
        outcome={"success": True, "reward": 0.5, "extra": [1, {}]},
    )
    for report in (odd, empty, labelled):
        assert json_.report_element(report) == _generic_fragment(report)
        json.loads(json_.report_element(report).replace("NaN", "0"))
    keys = list(labelled.to_dict())
    assert keys[keys.index("source_path") + 1 : keys.index("source_path") + 3] == [
        "task_id",
        "outcome",
    ]
    assert "task_id" not in empty.to_dict() and "outcome" not in empty.to_dict()


@given(traces())
def test_report_element_matches_on_generated_traces(trace: dict[str, object]) -> None:
    policy = api.load_policy(str(SAMPLES / "policy.json"))
    report = api.validate_trace(trace, policy)
    assert json_.report_element(report) == _generic_fragment(report)
