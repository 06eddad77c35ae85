"""Safety (ARH-SAF-001): what a blob is, true counts, and screening that hides nothing."""

from __future__ import annotations

from agent_reliability_harness.engine import rule_result
from agent_reliability_harness.models.policy import Policy
from agent_reliability_harness.models.trace import Trace
from agent_reliability_harness.rules import REGISTRY
from helpers import findings, report, response, tool_call, with_defaults

SSN = {"unsafe_patterns": ["\\b\\d{3}-\\d{2}-\\d{4}\\b"]}


def _result(steps: list[dict[str, object]], policy: dict[str, object]) -> tuple[int, int]:
    trace, whole = with_defaults(steps, policy)
    result = rule_result(REGISTRY["ARH-SAF-001"], Trace.from_dict(trace), Policy.from_dict(whole))
    return result.checks, result.failed


def test_checks_are_the_blobs_and_failures_the_matches() -> None:
    steps = [
        response("r", "clean", error="boom"),
        tool_call("c", "t", {"a": "123-45-6789", "b": ["", "x", {"k": "y"}]}, output={"o": 1}),
    ]
    assert _result(steps, SSN) == (5, 1)  # text, error, a, b[1], b[2].k
    assert _result(steps, {"unsafe_patterns": ["zzz"]}) == (5, 0)
    got = report(steps, SSN)
    assert got.category_scores["safety"] == 80.0
    assert [(f.step_id, f.observed) for f in got.findings] == [("c", "arguments.a")]


def test_keys_metadata_and_empty_strings_are_not_blobs() -> None:
    step = tool_call("c", "t", {"123-45-6789": ""}, output="", metadata={"x": "123-45-6789"})
    assert _result([step], SSN) == (0, 0)
    assert "safety" not in report([step], SSN).category_scores  # no blob: not applicable


def test_one_finding_per_blob_and_pattern() -> None:
    policy = {"unsafe_patterns": ["secret", "sec"]}
    got = findings([response("r", "secret"), response("s", "a secret and a secret")], policy)
    assert got == [("ARH-SAF-001", "error", "r")] * 2 + [("ARH-SAF-001", "error", "s")] * 2


def test_a_long_trace_is_screened_in_windows_without_hiding_a_match() -> None:
    steps = [response(f"s{i}", f"step {i} 123-45-678") for i in range(9000)]
    for position in (0, 63, 64, 4095, 4096, 8999):
        steps[position]["text"] = 'my SSN is 123-45-6789 \\ "quoted"'
    got = report(steps, SSN)
    assert [f.step_id for f in got.findings] == [f"s{i}" for i in (0, 63, 64, 4095, 4096, 8999)]
    assert got.category_scores["safety"] == round(100.0 * (9000 - 6) / 9000, 2)
    assert _result(steps, SSN) == (9000, 6)


def test_dense_and_sparse_stretches_find_every_match() -> None:
    """Windows that mostly match are checked at once; clean ones send the scan back to
    screening: every match is found and every blob counted either way."""
    steps = [
        response(f"s{i}", f"SSN 123-45-{i % 10000:04d}" if i < 3000 or i % 500 == 7 else "ok")
        for i in range(6000)
    ]
    matched = [i for i in range(6000) if i < 3000 or i % 500 == 7]
    got = report(steps, SSN)
    assert [f.step_id for f in got.findings if f.step_id] == [f"s{i}" for i in matched[:1000]]
    assert got.findings[-1].observed == len(matched) - 1000
    assert _result(steps, SSN) == (6000, len(matched))


def test_scoped_patterns_count_every_blob_and_only_their_matches() -> None:
    policy = {
        "unsafe_patterns": [
            {"pattern": "secret", "in": ["text"]},
            {"pattern": "secret", "in": ["output"], "tools": ["vault"]},
        ]
    }
    steps = [
        response("r", "a secret"),
        tool_call("c", "vault", {"q": "secret"}, output="secret"),
        tool_call("d", "other", output="secret"),
    ]
    assert _result(steps, policy) == (4, 2)  # 4 blobs; r's text and c's output match
    got = report(steps, policy)
    assert [(f.step_id, f.observed) for f in got.findings] == [("r", "text"), ("c", "output")]
    assert got.category_scores["safety"] == 50.0
