"""Issue 18 item 7: reads are bounded. /dev/zero as a trace, policy or baseline is refused
up front (a device, FIFO or socket is read only as `-`, standard input); a FIFO with no
writer never blocks; an input larger than the input limit (--max-input-bytes, or
ARH_MAX_INPUT_BYTES; default 1 GiB) is one clean error, and memory stays flat."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import measure  # benchmarks/ (on the path via conftest)
import pytest
from faultkit import arh, assert_clean, cli, good_trace, open_policy, write_json

from agent_reliability_harness.reading import DEFAULT_MAX_INPUT_BYTES

DEVICE = "cannot read: a character device, not a regular file"
FIFO = "cannot read: a FIFO, not a regular file"


def _validate(tmp_path: Path, *paths: str, extra: tuple[str, ...] = ()) -> tuple[int, str, str]:
    policy = str(open_policy(tmp_path))
    return cli(["validate", "--policy", policy, *paths, "--quiet", "--json-out", "-", *extra])


def _traces(out: str) -> list[str]:
    return [r["trace_id"] for r in json.loads(out)["reports"]]


def test_dev_zero_as_a_trace_is_refused_and_the_rest_is_read(tmp_path: Path) -> None:
    good = good_trace(tmp_path)
    code, out, err = _validate(tmp_path, "/dev/zero", str(good))
    assert_clean(err, code)
    assert err.startswith(f"error: /dev/zero: {DEVICE} (redirect it to standard input")
    assert _traces(out) == ["good"]


def test_dev_zero_as_a_policy_or_a_baseline_is_refused(tmp_path: Path) -> None:
    good = str(good_trace(tmp_path))
    code, out, err = cli(["validate", "--policy", "/dev/zero", good])
    assert_clean(err, code)
    assert out == "" and err.startswith(f"error: invalid policy /dev/zero: {DEVICE}")
    for args in (["--candidate", good], ["--policy", str(open_policy(tmp_path)), good]):
        code, out, err = cli(["compare", "--baseline", "/dev/zero", *args])
        assert_clean(err, code)
        assert err.startswith(f"error: /dev/zero: {DEVICE}")
    report = tmp_path / "report.json"
    cli(["validate", "--policy", str(open_policy(tmp_path)), good, "--json-out", str(report)])
    code, _, err = cli(["compare", "--baseline", str(report), "--candidate", "/dev/zero"])
    assert_clean(err, code)
    assert err.startswith(f"error: /dev/zero: {DEVICE}")
    code, _, err = cli(["convert", "/dev/zero"])
    assert_clean(err, code)


def test_a_fifo_with_no_writer_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "runs.jsonl"
    os.mkfifo(fifo)
    good = str(good_trace(tmp_path))
    policy = str(open_policy(tmp_path))
    runs = [
        ["validate", "--policy", policy, str(fifo), good, "--quiet"],
        ["validate", "--policy", str(fifo), good],
        ["compare", "--baseline", str(fifo), "--candidate", good],
        ["convert", str(fifo)],
        ["check-policy", str(fifo)],
    ]
    for args in runs:  # a real process: a hang would be the failure (faultkit.HANG_S)
        done = arh(args)
        err = done.stderr.decode()
        assert_clean(err, done.returncode)
        assert FIFO in err, err


def test_special_files_inside_a_directory_are_reported(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    traces.mkdir()
    good_trace(traces)
    os.mkfifo(traces / "pipe.json")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(traces / "sock.jsonl"))
        code, out, err = _validate(tmp_path, str(traces))
    assert_clean(err, code)
    assert err.splitlines() == [
        f"error: {traces}/pipe.json: {FIFO} (redirect it to standard input and give - to read it)",
        f"error: {traces}/sock.jsonl: cannot read: a socket, not a regular file "
        "(redirect it to standard input and give - to read it)",
    ]
    assert _traces(out) == ["good"]


def test_standard_input_may_be_a_pipe(tmp_path: Path) -> None:
    trace = good_trace(tmp_path).read_bytes()
    code, out, err = _validate(tmp_path, "-", extra=())
    assert (code, err) == (1, "error: <stdin>: invalid JSON: Expecting value (line 1, column 1)\n")
    code, out, err = cli(
        ["validate", "--policy", str(open_policy(tmp_path)), "-", "--quiet", "--json-out", "-"],
        stdin=trace,
    )
    assert (code, err, _traces(out)) == (0, "", ["good"])


def test_an_input_over_the_limit_is_one_clean_error(tmp_path: Path) -> None:
    good = good_trace(tmp_path)
    big = write_json(tmp_path / "big.json", {"trace_id": "big", "pad": "x" * 5000})
    code, out, err = _validate(tmp_path, str(big), str(good), extra=("--max-input-bytes", "4K"))
    assert_clean(err, code)
    assert err == (
        f"error: {big}: cannot read: larger than the input limit of 4096 bytes "
        "(raise it with --max-input-bytes or ARH_MAX_INPUT_BYTES)\n"
    )
    assert _traces(out) == ["good"]


def test_the_limit_applies_to_policies_reports_and_standard_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = str(good_trace(tmp_path))
    policy = write_json(tmp_path / "p.json", {"policy_id": "p", "x-pad": "x" * 3000})
    code, _, err = cli(["validate", "--policy", str(policy), good, "--max-input-bytes", "2K"])
    assert_clean(err, code)
    assert "cannot read: larger than the input limit of 2048 bytes" in err
    monkeypatch.setenv("ARH_MAX_INPUT_BYTES", "100")
    code, _, err = cli(["compare", "--baseline", good, "--candidate", good])
    assert_clean(err, code)
    assert "larger than the input limit of 100 bytes" in err
    code, _, err = cli(
        ["validate", "--policy", str(open_policy(tmp_path)), "-", "--max-input-bytes", "1M"],
        stdin=b" " * 2000 + b"{}",
    )
    assert "larger than the input limit" not in err  # the option wins over the variable
    monkeypatch.setenv("ARH_MAX_INPUT_BYTES", "lots")
    code, _, err = cli(["validate", "--policy", str(policy), good])
    assert (code, err) == (
        2,
        "error: ARH_MAX_INPUT_BYTES: not a size: 'lots' (e.g. 1073741824, 512M or 2G)\n",
    )


def test_a_jsonl_line_over_the_limit_fails_alone(tmp_path: Path) -> None:
    line = json.dumps(json.loads(good_trace(tmp_path).read_text()))
    lines = tmp_path / "runs.jsonl"
    lines.write_text(
        line + "\n" + '{"pad": "' + "x" * 9000 + '"}\n' + line.replace("good", "g3") + "\n"
    )
    for jobs in ("1", "2"):
        code, out, err = _validate(
            tmp_path, str(lines), extra=("--max-input-bytes", "8K", "--jobs", jobs)
        )
        assert_clean(err, code)
        assert err == (
            f"error: {lines}:2: cannot read: a line longer than the input limit of 8192 "
            "bytes (raise it with --max-input-bytes or ARH_MAX_INPUT_BYTES)\n"
        )
        assert _traces(out) == ["good", "g3"]


def test_the_default_limit_is_documented() -> None:
    assert DEFAULT_MAX_INPUT_BYTES == 1 << 30
    done = arh(["validate", "--help"])
    assert b"--max-input-bytes SIZE" in done.stdout and b"default 1G" in done.stdout


def test_memory_stays_flat_on_inputs_over_the_limit(tmp_path: Path) -> None:
    """A 2 GiB sparse file is refused from its size alone; a 64 MiB line without a newline
    is read past in pieces: neither is ever held."""
    policy = str(open_policy(tmp_path))
    sparse = tmp_path / "huge.json"
    with open(sparse, "wb") as handle:
        handle.truncate(2 << 30)
    one_line = tmp_path / "one-line.jsonl"
    with open(one_line, "wb") as handle:
        for _ in range(64):
            handle.write(b"x" * (1 << 20))
    small = good_trace(tmp_path)
    args = ["validate", "--policy", policy, "--quiet", "--jobs", "1", "--max-input-bytes", "1M"]
    base = measure.run_arh([*args, str(small)], cwd=tmp_path).peak_rss
    for path in (sparse, one_line):
        run = measure.run_arh([*args, str(path)], cwd=tmp_path)
        assert run.code == 1 and "the input limit" in run.stderr, run.stderr
        assert run.peak_rss - base < 24 << 20, (path.name, run.peak_rss - base)


def test_a_directory_given_as_a_file_input_is_an_error(tmp_path: Path) -> None:
    code, _, err = cli(["compare", "--baseline", str(tmp_path), "--candidate", str(tmp_path)])
    assert_clean(err, code)
    assert err.startswith(f"error: {tmp_path}: cannot read: Is a directory")


def test_line_ranges_cut_around_a_line_over_the_limit(tmp_path: Path) -> None:
    """What a process pool reads: ranges cut by the parent, lines read by the workers."""
    from agent_reliability_harness.inputs import line_ranges, read_line_range  # noqa: PLC0415
    from agent_reliability_harness.io import Failure  # noqa: PLC0415

    path = tmp_path / "runs.jsonl"
    lines = [b'{"n": %d}\n' % n for n in range(40)]
    lines[7] = b'{"pad": "' + b"x" * 5000 + b'"}\n'
    lines[30] = b"y" * 3000  # no newline: the last line read past
    path.write_bytes(b"".join(lines[:31]))
    got: list[tuple[int | None, bytes | str]] = []
    for unit in line_ranges(str(path), "runs.jsonl", 64, lambda a, b: False, limit=1000):
        assert not isinstance(unit, Failure)
        for part in read_line_range(unit, 1000):
            got.append((part.line, part.message if isinstance(part, Failure) else part.data))
    expected: list[tuple[int | None, bytes | str]] = [
        (n + 1, raw) for n, raw in enumerate(lines[:30]) if n != 7
    ]
    too_long = "cannot read: a line longer than the input limit of 1000 bytes"
    assert [(n, v) for n, v in got if isinstance(v, bytes)] == expected
    assert [(n, v[: len(too_long)]) for n, v in got if isinstance(v, str)] == [
        (8, too_long),
        (31, too_long),
    ]
