"""`arh compare` end to end, in-process: exit codes, error lines, outputs and saved baselines."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from cmp_helpers import DATA, cli, finding, report, trace

import agent_reliability_harness as arh

# Frozen copies of the samples: the counts asserted below do not move when samples are added.
POLICY = str(DATA / "policy.json")
TRACES = str(DATA / "baseline")
CANDIDATE = str(DATA / "candidate")


def _write(path: Path, data: Any) -> str:
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


@pytest.fixture
def baseline(tmp_path: Path) -> str:
    target = tmp_path / "baseline.json"
    code, _, err = cli("validate", "--policy", POLICY, TRACES, "--json-out", str(target), "--quiet")
    assert code == 1 and err == ""  # the samples fail on purpose
    return str(target)


def test_identical_run_passes(baseline: str) -> None:
    code, out, err = cli("compare", "--baseline", baseline, "--policy", POLICY, TRACES)
    assert (code, err) == (0, "")
    assert out.startswith("GATE: PASS (--fail-on regressions)\n")
    assert "9 traces with no change" in out


def test_report_against_itself(baseline: str) -> None:
    code, out, _ = cli("compare", "--baseline", baseline, "--candidate", baseline)
    assert code == 0 and out.startswith("GATE: PASS")


def test_regressions_fail_with_every_reason(baseline: str) -> None:
    code, out, err = cli("compare", "--baseline", baseline, "--policy", POLICY, CANDIDATE)
    assert (code, err) == (1, "")
    head = out.splitlines()
    assert head[0] == "GATE: FAIL (--fail-on regressions; 5 reasons)"
    assert "passed in the baseline and fails now" in head[1]
    assert "added trace 'escalation-0010' fails" in head[5]


def test_never_reports_only(baseline: str) -> None:
    code, out, _ = cli(
        "compare", "--baseline", baseline, "--policy", POLICY, CANDIDATE, "--fail-on", "never"
    )
    assert code == 0 and out.startswith("GATE: PASS (--fail-on never: report only)")


def test_failures_mode_fails_on_old_failures(baseline: str) -> None:
    code, out, _ = cli(
        "compare", "--baseline", baseline, "--candidate", baseline, "--fail-on", "failures"
    )
    assert code == 1 and out.startswith("GATE: FAIL (--fail-on failures; 7 reasons)")


def test_fail_under_changes_the_candidate_verdicts(baseline: str) -> None:
    code, out, _ = cli(
        "compare", "--baseline", baseline, "--policy", POLICY, TRACES, "--fail-under", "100"
    )
    assert code == 0  # the two passing samples score 100
    code, out, _ = cli(
        "compare",
        "--baseline",
        baseline,
        "--policy",
        POLICY,
        str(DATA / "baseline" / "retry-ok.json"),
        "--fail-under",
        "100",
        "--max-score-drop",
        "0",
    )
    assert code == 0 and "8 removed" in out


def test_max_score_drop(tmp_path: Path) -> None:
    base = _write(tmp_path / "b.json", report(trace("a", score=90.0, passed=True)))
    cand = _write(tmp_path / "c.json", report(trace("a", score=79.5, passed=True)))
    assert cli("compare", "--baseline", base, "--candidate", cand)[0] == 0
    code, out, _ = cli("compare", "--baseline", base, "--candidate", cand, "--max-score-drop", "10")
    assert code == 1
    assert "score of trace 'a' fell by 10.50 (90.00 -> 79.50), more than the allowed 10" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--candidate", "c.json", "--policy", "p.json", "x"], "give exactly one of"),
        ([], "give exactly one of"),
        (["--policy", "p.json"], "--policy needs at least one trace PATH"),
        (["--candidate", "c.json", "extra"], "trace PATHs are validated only with --policy"),
        (["--candidate", "-", "--policy", "p.json", "x"], "give exactly one of"),
        (["--candidate", "-", "-"], "trace PATHs are validated only with --policy"),
        (["--policy", "p.json", "-"], "standard input (-) can be read only once"),
    ],
)
def test_misuse_exits_2(args: list[str], message: str) -> None:
    baseline = "-" if "p.json" in args and "-" in args else "b.json"
    code, out, err = cli("compare", "--baseline", baseline, *args)
    assert code == 2 and out == ""
    assert err.startswith(f"error: {message}") and err.count("\n") == 1


@pytest.mark.parametrize(
    "args",
    [
        ["--fail-on", "sometimes"],
        ["--max-score-drop", "-1"],
        ["--max-score-drop", "abc"],
        ["--fail-under", "101"],
    ],
)
def test_bad_option_values_exit_2(args: list[str]) -> None:
    code, _, err = cli("compare", "--baseline", "b.json", "--candidate", "c.json", *args)
    assert code == 2 and "Traceback" not in err


def test_missing_baseline_option_exits_2() -> None:
    assert cli("compare", "--candidate", "c.json")[0] == 2


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not json", "invalid JSON"),
        (b"\xc3\x28", "not valid UTF-8"),
        (b"[" * 50_000, "invalid JSON"),
        (json.dumps(report(trace("a"), trace("a"))).encode(), "duplicate trace_id 'a'"),
        (
            json.dumps(report(trace("a", [finding(severity="fatal")]))).encode(),
            "reports[0].findings[0].severity: must be one of error, warning, info (got 'fatal')",
        ),
        (json.dumps({"results": []}).encode(), "reports: is required"),
    ],
)
def test_invalid_reports_exit_1_with_one_error_line(
    tmp_path: Path, content: bytes, message: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    good = _write(tmp_path / "good.json", report(trace("a")))
    for args in (
        ["--baseline", str(bad), "--candidate", good],
        ["--baseline", good, "--candidate", str(bad)],
    ):
        code, out, err = cli("compare", *args)
        assert (code, out) == (1, "")
        assert err.count("\n") == 1 and err.startswith("error: ") and message in err
        assert "bad.json: " in err


def test_missing_file_and_bad_policy_exit_1(tmp_path: Path) -> None:
    good = _write(tmp_path / "good.json", report(trace("a")))
    code, _, err = cli("compare", "--baseline", str(tmp_path / "none.json"), "--candidate", good)
    assert code == 1 and "none.json: cannot read" in err
    policy = _write(tmp_path / "policy.json", {"allowed_tools": {}})
    code, _, err = cli("compare", "--baseline", good, "--policy", policy, TRACES)
    assert code == 1 and err.startswith("error: invalid policy")


def test_duplicate_trace_ids_among_candidate_traces(tmp_path: Path, baseline: str) -> None:
    traces = tmp_path / "traces"
    traces.mkdir()
    shutil.copy(DATA / "baseline" / "refund-ok.json", traces / "a.json")
    shutil.copy(DATA / "baseline" / "refund-ok.json", traces / "b.json")
    code, out, err = cli("compare", "--baseline", baseline, "--policy", POLICY, str(traces))
    assert (code, out) == (1, "")
    assert "b.json: duplicate trace_id 'refund-ok-0001' (also in " in err


def test_unreadable_candidate_trace_fails_even_with_never(tmp_path: Path, baseline: str) -> None:
    traces = tmp_path / "traces"
    shutil.copytree(DATA / "baseline", traces)
    (traces / "broken.json").write_text("{")
    code, out, err = cli(
        "compare", "--baseline", baseline, "--policy", POLICY, str(traces), "--fail-on", "never"
    )
    assert code == 1
    assert "broken.json: invalid JSON" in err and out.startswith("GATE: PASS")


def test_candidate_json_out_equals_validate_json_out(tmp_path: Path, baseline: str) -> None:
    saved = tmp_path / "next.json"
    validated = tmp_path / "validated.json"
    cli("validate", "--policy", POLICY, CANDIDATE, "--json-out", str(validated), "--quiet")
    cli(
        "compare",
        "--baseline",
        baseline,
        "--policy",
        POLICY,
        CANDIDATE,
        "--quiet",
        "--candidate-json-out",
        str(saved),
    )
    assert saved.read_bytes() == validated.read_bytes()
    # Promoting it: the next compare is clean.
    code, out, _ = cli("compare", "--baseline", str(saved), "--policy", POLICY, CANDIDATE)
    assert code == 0 and out.startswith("GATE: PASS")


def test_candidate_json_out_copies_a_candidate_report(tmp_path: Path) -> None:
    data = report(trace("a"), extra_key={"kept": True})
    cand = _write(tmp_path / "c.json", data)
    saved = tmp_path / "saved.json"
    cli("compare", "--baseline", cand, "--candidate", cand, "--candidate-json-out", str(saved))
    assert saved.read_bytes() == Path(cand).read_bytes()


def test_outputs_and_quiet(tmp_path: Path, baseline: str) -> None:
    js, md = tmp_path / "c.json", tmp_path / "c.md"
    code, out, err = cli(
        "compare",
        "--baseline",
        baseline,
        "--policy",
        POLICY,
        CANDIDATE,
        "--quiet",
        "--json-out",
        str(js),
        "--md-out",
        str(md),
    )
    assert (code, out, err) == (1, "", "")
    assert json.loads(js.read_text())["gate"]["passed"] is False
    assert md.read_text().startswith("## ARH regression gate: FAIL\n")


def test_unwritable_output_exits_1(tmp_path: Path, baseline: str) -> None:
    code, _, err = cli(
        "compare",
        "--baseline",
        baseline,
        "--candidate",
        baseline,
        "--json-out",
        str(tmp_path / "missing-dir" / "x.json"),
    )
    assert code == 1 and "cannot write" in err


def test_json_to_stdout_is_deterministic(baseline: str) -> None:
    args = ("compare", "--baseline", baseline, "--policy", POLICY, CANDIDATE, "--quiet")
    first = cli(*args, "--json-out", "-")[1]
    second = cli(*args, "--json-out", "-")[1]
    assert first == second and json.loads(first)["schema_version"] == "1"


def test_candidate_traces_from_stdin(baseline: str) -> None:
    data = (DATA / "baseline" / "refund-ok.json").read_bytes()
    code, out, _ = cli("compare", "--baseline", baseline, "--policy", POLICY, "-", stdin=data)
    assert code == 0 and "8 removed" in out


def test_no_color_unless_terminal(baseline: str) -> None:
    out = cli("compare", "--baseline", baseline, "--policy", POLICY, CANDIDATE)[1]
    assert "\033[" not in out


def test_empty_candidate_fails_unless_allowed(tmp_path: Path, baseline: str) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    args = ["compare", "--baseline", baseline, "--policy", POLICY, str(empty)]
    code, out, err = cli(*args)
    assert code == 1 and "9 removed" in out
    assert err.startswith("error: no traces found in the given paths")
    code, out, err = cli(*args, "--allow-empty")
    assert code == 0 and "9 removed" in out
    assert err.startswith("warning: no traces found")


def test_python_api(baseline: str) -> None:
    policy = arh.load_policy(POLICY)
    candidate = arh.validate_paths([CANDIDATE], policy)
    result = arh.compare_reports(arh.load_report(baseline), candidate, arh.GateOptions())
    assert isinstance(result, arh.Comparison) and not result.gate.passed
    assert arh.compare_reports(candidate, candidate).gate.passed
    assert arh.compare.GateMode is arh.GateMode  # the subpackage is still reachable


@pytest.mark.parametrize(
    ("args", "warning"),
    [
        (["--fail-under", "50"], "--fail-under has no effect with --candidate"),
        (["--format", "auto"], "--format has no effect with --candidate"),
        (["--jobs", "2"], "--jobs has no effect with --candidate"),
        (["--fail-on", "never", "--max-score-drop", "3"], "--max-score-drop has no effect"),
    ],
)
def test_options_without_effect_are_warned_about(
    tmp_path: Path, args: list[str], warning: str
) -> None:
    good = _write(tmp_path / "good.json", report(trace("a")))
    code, out, err = cli("compare", "--baseline", good, "--candidate", good, *args)
    assert code == 0 and out.startswith("GATE: PASS")
    assert err.startswith(f"warning: {warning}") and err.count("\n") == 1


def test_reports_from_stdin(tmp_path: Path) -> None:
    base = json.dumps(report(trace("a"))).encode()
    cand = _write(tmp_path / "c.json", report(trace("a", [finding()])))
    code, out, _ = cli("compare", "--baseline", "-", "--candidate", cand, stdin=base)
    assert code == 1 and "new error ARH-SCH-003" in out
    code, _, err = cli("compare", "--baseline", cand, "--candidate", "-", stdin=b"{")
    assert code == 1 and err.startswith("error: <stdin>: invalid JSON")
