"""`--jobs N` on a JSONL file: byte ranges cut at line starts, read by the workers, with the
same units, line numbers and output as reading the file line by line in one process."""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path

import pytest

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.inputs import Entry, LineRange, RawUnit, line_ranges, read_line_range
from agent_reliability_harness.inputs.units import _jsonl_units, _newlines
from agent_reliability_harness.io import Failure
from agent_reliability_harness.pipeline import Reader, executors, lines_joined
from agent_reliability_harness.render import file_renderers
from test_stream_exports import FIX, _split

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def _never(before: bytes, after: bytes) -> bool:
    return False


def _marked(before: bytes, after: bytes) -> bool:
    return b"X" in before and b"X" in after


def _lines_of(ranges: list[LineRange | Failure]) -> list[tuple[int | None, bytes | None]]:
    out: list[tuple[int | None, bytes | None]] = []
    for unit in ranges:
        assert isinstance(unit, LineRange)
        for part in read_line_range(unit):
            assert isinstance(part, RawUnit)
            out.append((part.line, part.data))
    return out


def _reference(path: Path) -> list[tuple[int | None, bytes | None]]:
    units = _jsonl_units(Entry("f", str(path)), None)
    return [(u.line, u.data) for u in units if isinstance(u, RawUnit)]


CONTENTS = {
    "plain": b"".join(b'{"n": %d}\n' % i for i in range(50)),
    "crlf": b"".join(b'{"n": %d}\r\n' % i for i in range(50)),
    "no-final-newline": b"\n".join(b'{"n": %d}' % i for i in range(50)),
    "blank-lines": b"\n\n  \n" + b"\n \t\n".join(b'{"n": %d}' % i for i in range(40)) + b"\n\n",
    "long-lines": b"".join(b'{"n": "%s"}\n' % (b"y" * (i * 37 % 300)) for i in range(40)),
    "lone-cr": b'{"a": 1}\r{"b": 2}\n{"c": 3}\n' * 10,
    "blank-only": b"\n \n\r\n",
    "empty": b"",
}


@pytest.mark.parametrize("name", sorted(CONTENTS))
@pytest.mark.parametrize("target", [1, 7, 40, 100, 1 << 20])
def test_ranges_give_the_lines_and_numbers_of_the_whole_file(
    tmp_path: Path, name: str, target: int
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(CONTENTS[name])
    ranges = list(line_ranges(path, "f", target, _never))
    assert _lines_of(ranges) == _reference(path)
    # Contiguous, cover the file, each starts at a line start with its line number.
    data = CONTENTS[name]
    offset = 0
    for unit in ranges:
        assert isinstance(unit, LineRange)
        assert unit.start == offset < unit.end
        assert unit.start == 0 or data[unit.start - 1 : unit.start] == b"\n"
        assert unit.line == data.count(b"\n", 0, unit.start) + 1
        offset = unit.end
    assert offset == len(data)
    if target == 1 and name == "plain":
        assert len(ranges) == 50


@pytest.mark.parametrize("target", [1, 4, 10])
def test_no_cut_between_joined_lines(tmp_path: Path, target: int) -> None:
    rows = [b"a", b"X1", b"", b"X2", b"X3", b"b", b"X4", b" ", b"c", b"X5", b"X6", b"", b"X7"]
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\n".join(rows) + b"\n")
    ranges = list(line_ranges(path, "f", target, _marked))
    assert _lines_of(ranges) == _reference(path)
    pieces = [[data for _, data in _lines_of([r])] for r in ranges]
    for before, after in itertools.pairwise(pieces):
        assert before and after
        assert not _marked(before[-1] or b"", after[0] or b"")
    assert len(ranges) > 1


def test_newline_count() -> None:
    for data in (b"", b"x", b"\n", b"a\nb", b"\n" * 1000, b"ab\n" * 300, b"z" * 5000 + b"\n"):
        assert _newlines(data) == data.count(b"\n")


def test_unreadable_file_is_a_failure(tmp_path: Path) -> None:
    (tmp_path / "d.jsonl").mkdir()
    assert list(line_ranges(tmp_path / "d.jsonl", "d.jsonl", 10, _never)) == [
        Failure("d.jsonl", "cannot read: Is a directory")
    ]


def test_span_export_batches_stay_in_one_unit(tmp_path: Path) -> None:
    """Ranges are cut only where each range, read by its own worker, gives what the
    whole file gives: batches of one span export are never split."""
    batch = (FIX / "otel-genai" / "retry.json").read_bytes().replace(b"\n", b"") + b"\n"
    plain = b'{"trace_id": "t", "agent_name": "a", "workflow": "w", "steps": []}\n'
    path = tmp_path / "t.jsonl"
    path.write_bytes(plain * 3 + batch * 5 + plain + batch * 2 + b"\n" + batch + plain)
    whole = list(Reader().items(_jsonl_units(Entry("f", str(path)), None)))
    for target in (1, 50, 100):
        ranged = []
        for unit in line_ranges(str(path), "f", target, lines_joined):
            assert isinstance(unit, LineRange)
            ranged.extend(Reader().items([unit]))
        assert ranged == whole
    assert len(whole) == 3 + 1 + 1 + 1 + 1  # three plain, a merged run, plain, merged, plain


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def messy_jsonl(tmp_path: Path, bench_corpus: tuple[Path, Path]) -> Path:
    """The corpus with CRLF, blank lines, bad lines (some far down) and no final newline."""
    _, traces = bench_corpus
    lines = traces.read_bytes().splitlines()
    rows = [
        *lines[:30],
        b"{bad",
        b"",
        b"   ",
        *(line + b"\r" for line in lines[30:60]),
        b'{"a": 1e400}',
        *lines[60:250],
        b"\xff\xfe not utf-8",
        b"",
        b"",
        *lines[250:299],
        b'"\\ud800"',
        lines[299],
    ]
    path = tmp_path / "messy.jsonl"
    path.write_bytes(b"\n".join(rows))
    return path


def _outputs(policy: Path, paths: list[str], jobs: str, out_dir: Path) -> tuple[object, ...]:
    out_dir.mkdir()
    targets = [(f"--{r.name}-out", out_dir / f"report.{r.name}") for r in file_renderers("run")]
    args = ["validate", "--policy", str(policy), *paths, "--jobs", jobs]
    for flag, target in targets:
        args += [flag, str(target)]
    code, out, err = _cli(args)
    return code, out, err, [target.read_bytes() for _, target in targets]


@pytest.mark.parametrize("chunk", [1, 5000, 1 << 20])
def test_jobs_2_output_is_jobs_1_output(
    chunk: int,
    messy_jsonl: Path,
    bench_corpus: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    policy, traces = bench_corpus
    paths = [str(messy_jsonl), str(SAMPLES / "traces"), str(traces)]
    one = _outputs(policy, paths, "1", tmp_path / "one")
    monkeypatch.setattr(executors, "CHUNK_BYTES", chunk)
    two = _outputs(policy, paths, "2", tmp_path / "two")
    assert two == one
    code, _, err, _ = one
    assert code == 1
    assert isinstance(err, str)
    lines = messy_jsonl.read_bytes().split(b"\n")
    bad = [n for n, line in enumerate(lines, 1) if line.startswith((b"{bad", b'{"a"', b"\xff"))]
    late = [n for n, line in enumerate(lines, 1) if line == b'"\\ud800"']
    for number in [*bad, *late]:
        assert f"messy.jsonl:{number}: " in err
    assert late[0] > 300


def test_json_report_of_ranges_names_late_lines(
    bench_corpus: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    policy, traces = bench_corpus
    path = tmp_path / "late.jsonl"
    path.write_bytes(traces.read_bytes() + b"\n\r\n{oops\n")
    monkeypatch.setattr(executors, "CHUNK_BYTES", 20_000)
    code, out, err = _cli(
        [
            "validate",
            "--policy",
            str(policy),
            str(path),
            "--quiet",
            "--json-out",
            "-",
            "--jobs",
            "2",
        ]
    )
    assert code == 1
    report = json.loads(out)
    assert [e["line"] for e in report["input_errors"]] == [303]
    assert err.startswith(f"error: {path}:303: invalid JSON")


def test_same_file_twice_keeps_export_groups_across_the_two(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "spans.jsonl"
    _split(FIX / "otel-genai" / "retry.json", path)
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"policy_id": "p", "allow_unlisted_tools": True}))
    args = ["validate", "--policy", str(policy), str(path), str(path), "--json-out", "-"]
    one = _cli([*args, "--jobs", "1"])
    monkeypatch.setattr(executors, "CHUNK_BYTES", 1)
    assert _cli([*args, "--jobs", "2"]) == one
