"""The pytest plugin on a sample agent suite (pytester), with and without xdist, and
`assert_trace` on its own."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from agent_reliability_harness.errors import InputError
from agent_reliability_harness.testing import (
    TraceAssertionError,
    assert_trace,
    check_trace,
    failure_text,
)

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "samples" / "policy.json"
TRACES = ROOT / "samples" / "traces"
CHAT = ROOT / "tests" / "adapters" / "fixtures" / "openai-chat"
FAILING = {
    "schema-fail-0003",
    "budget-fail-0004",
    "safety-fail-0005",
    "grounding-fail-0006",
    "sequence-fail-0007",
    "flow-fail-0008",
    "completion-fail-0009",
}

SUITE = f"""
import json
import pytest
from agent_reliability_harness.testing import assert_trace

POLICY = {str(POLICY)!r}
TRACES = {str(TRACES)!r}
CHAT = {str(CHAT)!r}


def test_refund_run_passes():
    report = assert_trace(TRACES + "/refund-ok.json", POLICY)
    assert report.score == 100.0


def test_grounded_answer():
    assert_trace(TRACES + "/grounding-fail.json", POLICY)


def test_transcript_from_the_sdk(arh):
    with open(CHAT + "/clean.json") as handle:
        arh.assert_trace(json.load(handle))


def test_bad_tool_arguments(arh):
    arh.assert_trace(CHAT + "/bad-args.json", format="openai-chat")
"""


def _suite(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_agent=SUITE)
    _policy(pytester)
    pytester.makeini("[pytest]\narh_policy = policy.json\n")


def _policy(pytester: pytest.Pytester) -> str:
    # Inside the sandbox: a path argument elsewhere would move pytest's rootdir there.
    shutil.copy(POLICY, pytester.path / "policy.json")
    return "policy.json"


def test_assert_trace_in_a_test_suite_fails_readably(pytester: pytest.Pytester) -> None:
    _suite(pytester)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*TraceAssertionError: trace 'grounding-fail-0006' fails policy "
            "'refund-support-v1': 3 error findings",
            "*error (3)",
            "*ARH-GRD-001  grounding  Grounded response has no citations",
            "*step #2 s2: response requires grounding but has no citations",
            "*fix: Attach the sources the response relies on as citations.",
            "*ARH-GRD-003  grounding  Citation is not valid",
            "*observed: 'ftp://files.example.com/policy.txt'",
        ]
    )
    result.stdout.fnmatch_lines(["*ARH-SCH-003*", "*ARH-SEQ-001*"])
    # The helper's own frames are hidden: the failure points at the user's line.
    assert "def assert_trace(" not in result.stdout.str()


def _collected(result: pytest.RunResult) -> dict[str, str]:
    """Item name -> PASSED/FAILED, from the -v lines (with or without xdist prefixes)."""
    outcomes = {}
    for line in result.stdout.lines:
        words = line.split()
        verdict = next((w for w in words if w in ("PASSED", "FAILED")), None)
        node = next((w for w in words if "::" in w), None)
        if verdict and node:
            outcomes[node.rsplit("::", 1)[1]] = verdict
    return outcomes


def test_trace_files_become_test_items(pytester: pytest.Pytester) -> None:
    traces = pytester.path / "traces"
    shutil.copytree(TRACES, traces)
    (traces / "broken.jsonl").write_text('{"trace_id": "x"\n', encoding="utf-8")
    duplicate = json.loads((TRACES / "refund-ok.json").read_text(encoding="utf-8"))
    (traces / "again.json").write_text(json.dumps([duplicate, duplicate]), encoding="utf-8")
    args = ["--arh-policy", _policy(pytester), "--arh-traces", "traces", "-v"]
    args += ["-p", "no:cacheprovider"]
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=4, failed=8)
    outcomes = _collected(result)
    assert {k for k, v in outcomes.items() if v == "FAILED"} == FAILING | {"<1>"}
    assert {k for k, v in outcomes.items() if v == "PASSED"} == {
        "refund-ok-0001",
        "refund-ok-0001[2]",
        "retry-ok-0002",
    }
    text = result.stdout.str()
    assert "traces/sequence-flow-fail.json::flow-fail-0008 PASSED" not in text
    result.stdout.fnmatch_lines(
        [
            "*arh trace flow-fail-0008*",
            "trace 'flow-fail-0008' fails policy 'refund-support-v1': 2 error findings",
            "error (2)",
            "  ARH-FLW-001  flow  Failed tool call was not retried",
            "    step #4 s4: tool 'search_kb' failed and was never called again",
        ]
    )
    result.stdout.fnmatch_lines(["*broken.jsonl:1: *"])
    selected = pytester.runpytest(*args, "-k", "budget")
    selected.assert_outcomes(failed=1)


def test_missing_or_invalid_policy_is_a_usage_error(pytester: pytest.Pytester) -> None:
    shutil.copytree(TRACES, pytester.path / "traces")
    result = pytester.runpytest("--arh-traces", "traces")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ARH: give --arh-policy POLICY*"])
    bad = pytester.makefile(".json", policy='{"allowed_tools": []}')
    result = pytester.runpytest("--arh-traces", "traces", "--arh-policy", bad.name)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ARH: invalid policy*policy_id*"])


@pytest.mark.skipif(importlib.util.find_spec("xdist") is None, reason="pytest-xdist missing")
def test_works_with_xdist(pytester: pytest.Pytester) -> None:
    _suite(pytester)
    shutil.copytree(TRACES, pytester.path / "traces")
    result = pytester.runpytest_subprocess(
        "-n", "2", "-p", "no:cacheprovider", "--arh-traces", "traces", "-v"
    )
    result.assert_outcomes(passed=4, failed=9)
    outcomes = _collected(result)
    assert {k for k, v in outcomes.items() if v == "FAILED"} >= FAILING
    result.stdout.fnmatch_lines(["*2 workers*"])
    result.stdout.fnmatch_lines(["*ARH-FLW-001  flow  Failed tool call was not retried*"])


def test_assert_trace_returns_the_report_or_raises_with_it() -> None:
    report = assert_trace(TRACES / "refund-ok.json", POLICY)
    assert report.passed and report.trace_id == "refund-ok-0001"
    with pytest.raises(TraceAssertionError) as caught:
        assert_trace(TRACES / "grounding-fail.json", str(POLICY))
    assert caught.value.report.trace_id == "grounding-fail-0006"
    assert str(caught.value) == failure_text(caught.value.report)
    policy = json.loads(POLICY.read_text(encoding="utf-8"))
    trace = json.loads((TRACES / "refund-ok.json").read_text(encoding="utf-8"))
    assert assert_trace(trace, policy).score == 100.0


def test_score_under_the_bar_is_named_in_the_failure() -> None:
    with pytest.raises(TraceAssertionError) as caught:
        assert_trace(CHAT / "bad-args.json", POLICY, fail_under=80)
    assert "2 error findings, score 74.11 is under 80" in str(caught.value).splitlines()[0]
    assert check_trace(CHAT / "clean.json", POLICY, fail_under=100).passed


def test_inputs_that_are_not_one_trace_are_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="holds 3 traces"):
        assert_trace(TRACES / "sequence-flow-fail.json", POLICY)
    broken = tmp_path / "broken.json"
    broken.write_text('{"trace_id": ', encoding="utf-8")
    with pytest.raises(InputError, match=r"broken\.json"):
        assert_trace(broken, POLICY)
    with pytest.raises(InputError):
        assert_trace({"steps": "not a list"}, POLICY)
