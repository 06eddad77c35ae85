"""Big trace files are read and evaluated a chunk of steps at a time, with the same output.

`pipeline.UnitProcessor` streams a canonical `.json` file of `STREAM_MIN_BYTES` or more
(`models.trace_stream.TraceStream` + `Evaluator.start`). Here the threshold is lowered
to 0 so that every file takes that path, and the CLI's output is compared with a run
where no file does.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.models.trace_stream import TraceStream
from agent_reliability_harness.pipeline import documents, process

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import corpus  # noqa: E402

SAMPLES = ROOT / "samples"


class _Counting(TraceStream):
    streamed = 0
    chunks_seen = 0

    def chunks(self) -> Any:
        for chunk in super().chunks():
            _Counting.chunks_seen += 1
            yield chunk
        _Counting.streamed += 1


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out=out, err=err, stdin=io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def _run(args: list[str], tmp_path: Path, name: str) -> tuple[int, str, str, str]:
    report = tmp_path / f"{name}.json"
    code, out, err = _cli([*args, "--json-out", str(report), "--jobs", "1"])
    return code, out, err, report.read_text()


@pytest.fixture()
def trace_files(tmp_path: Path, bench_corpus: tuple[Path, Path]) -> Path:
    """A directory of single-trace files in several layouts, some of them broken."""
    folder = tmp_path / "traces"
    folder.mkdir()
    _, lines = bench_corpus
    for number, line in enumerate(lines.read_text().splitlines()[:120]):
        data = json.loads(line)
        if number % 3 == 0:
            text = json.dumps(data, indent=2)
        elif number % 3 == 1:
            text = json.dumps(data)
        else:  # steps first, the other top-level fields after the steps array
            text = json.dumps({"steps": data.pop("steps"), **data}, separators=(",", ":"))
        (folder / f"t{number:03d}.json").write_text("\n" + text + "\n")
    good = json.loads(lines.read_text().splitlines()[0])
    broken = {
        "unknown_top_key.json": json.dumps({**good, "extra": 1}),
        "unknown_step_key.json": json.dumps(
            {**good, "steps": [{**good["steps"][0], "surprise": True}, *good["steps"][1:]]}
        ),
        "second_steps_key.json": json.dumps(good)[:-1] + ', "steps": []}',
        "truncated.json": json.dumps(good)[:-40],
        "bad_step_type.json": json.dumps(
            {**good, "steps": [*good["steps"][:-1], {**good["steps"][-1], "type": "thought"}]}
        ),
        "no_trace_id.json": json.dumps({k: v for k, v in good.items() if k != "trace_id"}),
        "trailing_garbage.json": json.dumps(good) + " x",
    }
    for name, text in broken.items():
        (folder / name).write_text(text)
    return folder


def test_streamed_files_give_the_same_output(
    trace_files: Path,
    bench_corpus: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    policy, _ = bench_corpus
    args = ["validate", "--policy", str(policy), str(trace_files), str(SAMPLES / "traces")]
    whole = _run(args, tmp_path, "whole")
    monkeypatch.setattr(documents, "STREAM_MIN_BYTES", 0)
    monkeypatch.setattr(process, "TraceStream", _Counting)
    _Counting.streamed = 0
    streamed = _run(args, tmp_path, "streamed")
    assert streamed == whole
    # Unknown keys are ignored and a second "steps" key wins (as TRACE-SPEC.md and JSON
    # say); the other four broken files are errors, each named.
    assert whole[0] == 1 and whole[2].count("error: ") == 4
    # Every good canonical file took the stream (the samples hold a few that do not parse).
    assert _Counting.streamed >= 120


def test_a_long_trace_is_evaluated_in_many_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "long.json"
    path.write_text("".join(corpus.long_trace(20_000)))
    policy = tmp_path / "policy.json"
    long_policy = {**corpus.LONG_POLICY, "error_handling": {"max_attempts": 1}}
    policy.write_text(json.dumps(long_policy))
    args = ["validate", "--policy", str(policy), str(path), "--quiet"]
    whole = _run(args, tmp_path, "whole")
    monkeypatch.setattr(documents, "STREAM_MIN_BYTES", 0)
    monkeypatch.setattr(process, "TraceStream", _Counting)
    _Counting.streamed = _Counting.chunks_seen = 0
    assert _run(args, tmp_path, "streamed") == whole
    assert _Counting.streamed == 1 and _Counting.chunks_seen >= 4
    report = json.loads(whole[3])["reports"][0]
    assert report["total_latency_ms"] > 0


def test_small_files_are_read_whole(
    trace_files: Path, bench_corpus: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    policy, _ = bench_corpus
    monkeypatch.setattr(process, "TraceStream", _Counting)
    _Counting.streamed = 0
    _cli(["validate", "--policy", str(policy), str(trace_files), "--quiet", "--jobs", "1"])
    assert _Counting.streamed == 0
