"""The `arh` command line end to end: outputs, exit codes and bad input."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness import __version__
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from helpers import ROOT, SAMPLES, make_trace, response, tool_call

POLICY = str(SAMPLES / "policy.json")
OPEN_POLICY = {"policy_id": "open", "allow_unlisted_tools": True}


def run(args: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO(stdin)))
    return code, out.getvalue(), err.getvalue()


def write(path: Path, value: Any) -> str:
    path.write_text(json.dumps(value), encoding="utf-8")
    return str(path)


@pytest.fixture
def open_policy(tmp_path: Path) -> str:
    return write(tmp_path / "policy.json", OPEN_POLICY)


def test_samples_console_and_exit_code() -> None:
    code, out, err = run(["validate", "--policy", POLICY, str(SAMPLES / "traces")])
    assert code == 1 and err == ""
    assert "[PASS] refund-ok-0001" in out and "[FAIL] schema-fail-0003" in out
    assert out.rstrip().splitlines()[-1].startswith("9 traces: 2 passed, 7 failed")


def test_samples_json_report_is_deterministic(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for target in (first, second):
        code, _, _ = run(
            [
                "validate",
                "--policy",
                POLICY,
                "--quiet",
                "--json-out",
                str(target),
                str(SAMPLES / "traces"),
            ]
        )
        assert code == 1
    assert first.read_bytes() == second.read_bytes()
    report = json.loads(first.read_text(encoding="utf-8"))
    assert report["summary"]["total_traces"] == 9
    assert {r["source_path"] for r in report["reports"]} >= {"samples/traces/batch.jsonl"} or all(
        not Path(r["source_path"]).is_absolute() for r in report["reports"]
    )


def test_passing_run_exits_zero_and_quiet_prints_nothing(tmp_path: Path, open_policy: str) -> None:
    trace = write(tmp_path / "t.json", make_trace(tool_call("s1", "x"), response("s2")))
    assert run(["validate", "--policy", open_policy, trace])[0] == 0
    code, out, err = run(["validate", "--policy", open_policy, "--quiet", trace])
    assert (code, out, err) == (0, "", "")


def test_fail_under_turns_a_low_score_into_a_failure(tmp_path: Path) -> None:
    policy = write(tmp_path / "p.json", {"policy_id": "p", "allow_unlisted_tools": True})
    trace = write(tmp_path / "t.json", make_trace(response("s1", requires_grounding=True)))
    assert run(["validate", "--policy", policy, "--fail-under", "0", trace])[0] == 0
    assert run(["validate", "--policy", policy, trace])[0] == 1


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "--policy", POLICY],
        ["validate", "--policy", POLICY, "--fail-under", "101", "x.json"],
        ["validate", "--policy", POLICY, "--fail-under", "abc", "x.json"],
        ["validate", "--policy", POLICY, "--bogus", "x.json"],
        ["frobnicate"],
        [],
    ],
)
def test_misuse_exits_two(args: list[str]) -> None:
    assert run(args)[0] == 2


def test_invalid_policy_is_one_line_and_reads_no_trace(tmp_path: Path) -> None:
    policy = write(
        tmp_path / "bad.json",
        {"policy_id": "p", "allowed_tools": {"issue_refund": {"min_calls": 3, "max_calls": 1}}},
    )
    code, out, err = run(["validate", "--policy", policy, str(SAMPLES / "traces")])
    assert code == 1 and out == ""
    assert err == (
        f"error: invalid policy {policy}: policy tool 'issue_refund': "
        "min_calls (3) exceeds max_calls (1)\n"
    )


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b"{not json", "invalid JSON"),
        (b"\xff\xfe{}", "not valid UTF-8"),
        (b"[" * 200_000 + b"]" * 200_000, "nesting is too deep"),
        (b'{"n": ' + b"9" * 5000 + b"}", "too many digits"),
        (b'{"n": NaN}', "NaN is not valid JSON"),
        (b'{"n": -Infinity}', "-Infinity is not valid JSON"),
        (b'{"n": 1e999}', "out of range"),
        (b'{"s": "\\ud800"}', "lone surrogate"),
        (json.dumps(make_trace(schema_version="2")).encode(), "unsupported schema_version '2'"),
        (
            json.dumps(
                make_trace({"step_id": "s1", "type": "tool_call", "latency_ms": -5})
            ).encode(),
            "step 's1' (steps[0]): field 'latency_ms' must be a finite number >= 0",
        ),
        (b"42", "unrecognised input format"),
        (b"", "invalid JSON"),
    ],
)
def test_bad_input_is_one_clean_error_and_loses_nothing(
    tmp_path: Path, open_policy: str, content: bytes, fragment: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    good = write(tmp_path / "good.json", make_trace(tool_call("s1", "x"), trace_id="good"))
    report = tmp_path / "report.json"
    code, out, err = run(
        ["validate", "--policy", open_policy, "--json-out", str(report), str(bad), good]
    )
    assert code == 1
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {bad}: ") and fragment in lines[0]
    data = json.loads(report.read_text(encoding="utf-8"))
    assert [r["trace_id"] for r in data["reports"]] == ["good"]
    assert data["input_errors"][0]["source_path"] == str(bad)
    assert "Traceback" not in out + err


def test_jsonl_bad_line_fails_alone(tmp_path: Path, open_policy: str) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes(
        json.dumps(make_trace(trace_id="a")).encode()
        + b"\n"
        + b'{"trace_id": "b", broken\n'
        + b"\n"
        + json.dumps(make_trace(trace_id="c")).encode()
        + b"\n"
        + b'{"trace_id": "d", "agent_name": "x", "workflow": "w", "steps": [{"step_id": "s"}]}\n'
    )
    code, out, err = run(["validate", "--policy", open_policy, str(path)])
    assert code == 1
    assert [": ".join(line.split(": ")[:2]) for line in err.splitlines()] == [
        f"error: {path}:2",
        f"error: {path}:5",
    ]
    assert "[PASS] a" in out and "[PASS] c" in out


def test_array_element_errors_name_the_index(tmp_path: Path, open_policy: str) -> None:
    path = write(
        tmp_path / "many.json",
        [make_trace(trace_id="a"), {"trace_id": "b"}, make_trace(trace_id="c")],
    )
    code, out, err = run(["validate", "--policy", open_policy, path])
    assert code == 1
    assert err == f"error: {path}: [1]: trace 'b': field 'agent_name' is required\n"
    assert "[PASS] a" in out and "[PASS] c" in out


def test_missing_paths_and_empty_directories(tmp_path: Path, open_policy: str) -> None:
    (tmp_path / "empty").mkdir()
    code, _, err = run(
        ["validate", "--policy", open_policy, str(tmp_path / "nope.json"), str(tmp_path / "empty")]
    )
    assert code == 1
    assert "no such file or directory" in err and "contains no *.json" in err


def test_directory_walk_is_recursive_and_sorted(tmp_path: Path, open_policy: str) -> None:
    root = tmp_path / "runs"
    (root / "b").mkdir(parents=True)
    (root / "a").mkdir()
    write(root / "b" / "x.json", make_trace(trace_id="third"))
    write(root / "a" / "z.json", make_trace(trace_id="second"))
    write(root / "0.json", make_trace(trace_id="first"))
    (root / "notes.txt").write_text("ignored")
    code, out, _ = run(["validate", "--policy", open_policy, str(root)])
    assert code == 0
    order = [line.split()[1] for line in out.splitlines() if line.startswith("[PASS]")]
    assert order == ["first", "second", "third"]


def test_stdin_object_and_jsonl(open_policy: str) -> None:
    one = json.dumps(make_trace(trace_id="solo"), indent=2).encode()
    code, out, _ = run(["validate", "--policy", open_policy, "-"], stdin=one)
    assert code == 0 and "[PASS] solo" in out and "<stdin>" in out
    lines = b"\n".join(json.dumps(make_trace(trace_id=t)).encode() for t in ("x", "y"))
    code, out, _ = run(["validate", "--policy", open_policy, "-"], stdin=lines)
    assert code == 0 and "[PASS] x" in out and "[PASS] y" in out


def test_catastrophic_patterns_run_in_linear_time(tmp_path: Path) -> None:
    """`(a+)+$` against 50,000 characters, as unsafe pattern and as argument pattern."""
    policy = write(
        tmp_path / "p.json",
        {
            "policy_id": "redos",
            "unsafe_patterns": ["(a+)+$", "(x|x)*y"],
            "allowed_tools": {
                "t": {"required_arguments": {"a": {"type": "str", "pattern": "(a+)+$"}}}
            },
        },
    )
    text = "a" * 50_000 + "!"
    trace = write(
        tmp_path / "t.json",
        make_trace(tool_call("s1", "t", {"a": text}), response("s2", "x" * 50_000)),
    )
    proc = subprocess.run(
        [sys.executable, "-m", "agent_reliability_harness", "validate", "--policy", policy, trace],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert "ARH-SCH-008" in proc.stdout and "ARH-SAF-001" not in proc.stdout


def test_module_entry_point_and_version() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "agent_reliability_harness", "--version"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert proc.stdout.startswith("arh ")


def test_version_is_single_sourced_and_light() -> None:
    """`arh --version` reads the one version and imports none of the pipeline."""
    assert version("arh-harness") == __version__  # the distribution name (pyproject.toml)
    code = (
        "import sys; from agent_reliability_harness.cli import main; main(['--version']); "
        "print(sorted(m for m in sys.modules if m.startswith('agent_reliability_harness.')))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = proc.stdout.splitlines()[-1]
    assert proc.stdout.startswith(f"arh {__version__}")
    for heavy in ("api", "engine", "rules", "adapters", "render", "re2", "msgspec"):
        assert f"agent_reliability_harness.{heavy}'" not in loaded, loaded
