"""Issue 18, the minor items, each through the CLI: outputs are checked before the run;
a dangling symlink inside a directory is reported; symlinks are followed only within the
directory given (one that leads outside is reported, not read); an empty path is an
error, not the working directory; standard input is read once; NaN, nesting and
out-of-range errors name line and column (TRACE-SPEC.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from faultkit import assert_clean, cli, good_trace, open_policy, write_json

from helpers import SAMPLES

OUTSIDE = "(symlinks are followed only within the directory given)"


def _validate(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    return cli(["validate", "--policy", str(open_policy(tmp_path)), *args])


@pytest.mark.parametrize(
    "flag", ["--json-out", "--md-out", "--sarif-out", "--junit-out", "--html-out"]
)
def test_outputs_are_checked_before_anything_is_validated(flag: str, tmp_path: Path) -> None:
    missing = tmp_path / "nodir" / "x.json"
    code, out, err = cli(
        [
            "validate",
            "--policy",
            str(SAMPLES / "policy.json"),
            str(SAMPLES / "traces"),
            flag,
            str(missing),
        ]
    )
    assert (code, out) == (1, "")  # nothing was validated: no console output
    assert err == f"error: {missing}: cannot write: No such file or directory\n"


def test_compare_outputs_are_checked_before_the_baseline_is_read(tmp_path: Path) -> None:
    missing = tmp_path / "nodir" / "x.md"
    code, out, err = cli(
        ["compare", "--baseline", "/dev/zero", "--candidate", "/dev/zero", "--md-out", str(missing)]
    )
    assert (code, out) == (1, "")
    assert err == f"error: {missing}: cannot write: No such file or directory\n"


def test_a_dangling_symlink_inside_a_directory_is_reported(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    traces.mkdir()
    good_trace(traces)
    (traces / "gone.json").symlink_to(traces / "never-there.json")
    code, out, err = _validate(tmp_path, str(traces), "--quiet", "--json-out", "-")
    assert_clean(err, code)
    assert err == f"error: {traces}/gone.json: no such file or directory (a dangling symlink)\n"
    assert [r["trace_id"] for r in json.loads(out)["reports"]] == ["good"]
    # Given directly, it is reported the same way as before.
    code, _, err = _validate(tmp_path, str(traces / "gone.json"), "--quiet")
    assert (code, err) == (1, f"error: {traces}/gone.json: no such file or directory\n")


def test_symlinks_are_followed_only_within_the_directory(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    good_trace(elsewhere, "secret")
    traces = tmp_path / "traces"
    (traces / "sub").mkdir(parents=True)
    good_trace(traces / "sub", "inside")
    (traces / "out.json").symlink_to(elsewhere / "secret.json")
    (traces / "dir").symlink_to(elsewhere)
    (traces / "in.json").symlink_to(traces / "sub" / "inside.json")
    (traces / "loop").symlink_to(traces)
    code, out, err = _validate(tmp_path, str(traces), "--quiet", "--json-out", "-")
    assert_clean(err, code)
    assert err.splitlines() == [
        f"error: {traces}/dir: not read: a symlink to a directory outside {traces}/ {OUTSIDE}",
        f"error: {traces}/out.json: not read: a symlink to a file outside {traces}/ {OUTSIDE}",
    ]
    # The symlink within the directory is read (the file it names is also read as itself).
    assert [r["trace_id"] for r in json.loads(out)["reports"]] == ["inside", "inside"]
    # A symlink given directly is the user's own choice: it is read.
    code, out, err = _validate(tmp_path, str(traces / "out.json"), "--quiet", "--json-out", "-")
    assert (code, err) == (0, "")


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "--policy", "{policy}", ""],
        ["validate", "--policy", "", "{trace}"],
        ["compare", "--baseline", "", "--candidate", "{trace}"],
        ["convert", ""],
        ["check-policy", ""],
    ],
)
def test_an_empty_path_is_an_error_not_the_working_directory(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    good_trace(work)  # what a walk of the working directory would find
    write_json(work / "policy.json", {"policy_id": "cwd", "allow_unlisted_tools": True})
    policy, trace = str(open_policy(tmp_path)), str(good_trace(tmp_path, "given"))
    monkeypatch.chdir(work)
    filled = [a.format(policy=policy, trace=trace) for a in args]
    code, out, err = cli(filled)
    assert_clean(err, code)
    assert "''" in err.splitlines()[0]
    assert "good" not in out and "cwd" not in out + err


def test_an_empty_output_path_is_an_error(tmp_path: Path) -> None:
    code, out, err = _validate(tmp_path, str(good_trace(tmp_path)), "--json-out", "")
    assert (code, out, err) == (1, "", "error: '': cannot write: empty path\n")


@pytest.mark.parametrize("command", ["validate", "convert"])
def test_standard_input_is_read_once(command: str, tmp_path: Path) -> None:
    args = (
        [command, "-", "-"]
        if command == "convert"
        else ["validate", "--policy", str(open_policy(tmp_path)), "-", "-"]
    )
    code, out, err = cli(args, stdin=good_trace(tmp_path).read_bytes())
    assert (code, out, err) == (2, "", "error: standard input (-) can be read only once\n")


def test_standard_output_is_written_once(tmp_path: Path) -> None:
    code, out, err = _validate(
        tmp_path, str(good_trace(tmp_path)), "--json-out", "-", "--md-out", "-"
    )
    assert (code, out, err) == (
        2,
        "",
        "error: only one output can be written to standard output (-)\n",
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"trace_id": "x",\n "n": NaN}',
            "NaN is not valid JSON, only finite numbers are allowed (line 2, column 7)",
        ),
        (
            '{"trace_id": "x",\n "n": -Infinity}',
            "-Infinity is not valid JSON, only finite numbers are allowed (line 2, column 7)",
        ),
        (
            '{"trace_id": "x",\n  "n": [1, 1e999]}',
            "number 1e999 is out of range (line 2, column 12)",
        ),
        (
            '{"n":\n' + "9" * 5000 + "}",
            "a number has too many digits, more than 4300 (line 2, column 1)",
        ),
        (
            '{"s": "ok",\n "t": "a\\ud800b"}',
            "a string contains a lone surrogate \\ud800 (line 2, column 9)",
        ),
        (
            '{"a":\n  ' + "[" * 600 + "]" * 600 + "}",
            "nesting is too deep, more than 512 levels (line 2, column 514)",
        ),
    ],
)
def test_json_refusals_name_line_and_column(text: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(text)
    code, _, err = _validate(tmp_path, str(path), "--quiet")
    assert (code, err) == (1, f"error: {path}: invalid JSON: {message}\n")
    lines = tmp_path / "t.jsonl"
    lines.write_text('{"trace_id": "ok"}\n' + text.replace("\n", " ") + "\n")
    code, _, err = _validate(tmp_path, str(lines), "--quiet", "--format", "arh")
    assert (
        f"error: {lines}:2: invalid JSON: {message.split(' (line', maxsplit=1)[0]} (line 1, column "
        in err
    )


def test_bad_utf8_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(b'{"trace_id": "x",\n "s": "caf\xc3\xa9 \xff"}')
    code, _, err = _validate(tmp_path, str(path), "--quiet")
    assert (code, err) == (
        1,
        f"error: {path}: not valid UTF-8: byte 0xff at offset 31 (line 2, column 13)\n",
    )


def test_a_policy_and_a_baseline_name_the_position_too(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"policy_id": "p",\n "x": NaN}')
    _, _, err = cli(["check-policy", str(bad)])
    assert (
        err
        == f"error: invalid policy {bad}: invalid JSON: NaN is not valid JSON, only finite numbers are allowed (line 2, column 7)\n"
    )
    _, _, err = cli(["compare", "--baseline", str(bad), "--candidate", str(bad)])
    assert (
        err
        == f"error: {bad}: invalid JSON: NaN is not valid JSON, only finite numbers are allowed (line 2, column 7)\n"
    )
