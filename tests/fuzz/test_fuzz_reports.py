"""Fuzz target: report (baseline) loading. A report is read or refused with ReportError;
one that is read, written back by the JSON renderer, reads again as the same report (ARH's
own report is always a valid baseline), and compares with itself without a regression."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from fuzzing import ROOT, edited_json, fuzz, mutated_bytes, to_json
from hypothesis import given
from hypothesis import strategies as st

from agent_reliability_harness.api import load_policy, report_json, validate_paths
from agent_reliability_harness.compare import GateOptions, compare
from agent_reliability_harness.errors import ReportError
from agent_reliability_harness.models.baseline import read_report
from agent_reliability_harness.models.report import RunReport


@cache
def _reports() -> tuple[bytes, ...]:
    policy = load_policy(str(ROOT / "samples" / "policy.json"))
    runs = [
        validate_paths([str(ROOT / "samples" / "traces")], policy),
        validate_paths([str(ROOT / "tests" / "data" / "mixed")], policy),
    ]
    return tuple(report_json(run).encode() for run in runs)


@cache
def _report_values() -> tuple[Any, ...]:
    return tuple(json.loads(data) for data in _reports())


def _same(a: RunReport, b: RunReport) -> bool:
    return [r.to_dict() for r in a.reports] == [r.to_dict() for r in b.reports]


@fuzz()
@given(
    data=st.one_of(
        mutated_bytes(_reports()),
        st.builds(to_json, edited_json(_report_values())),
    )
)
def test_fuzz_report_loading(data: bytes) -> None:
    try:
        report = read_report(data, "fuzz.json")
    except ReportError:
        return
    again = read_report(report_json(report).encode(), "again.json")
    assert _same(report, again)
    assert compare(report, again, GateOptions()).gate.passed
