"""Metamorphic and property tests: what must never change findings, and determinism."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_reliability_harness import validate_trace
from agent_reliability_harness.models import Policy, TraceReport
from agent_reliability_harness.render.json_ import dumps
from helpers import SAMPLES
from strategies import traces

POLICY_DICT: dict[str, Any] = json.loads((SAMPLES / "policy.json").read_text(encoding="utf-8"))
POLICY = Policy.from_dict(POLICY_DICT)
SETTINGS = settings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _findings(report: TraceReport) -> list[dict[str, Any]]:
    return [f.to_dict() for f in report.findings]


def _shuffled(value: Any, rng: random.Random) -> Any:
    """The same JSON value with every object's keys in a random order."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {k: _shuffled(v, rng) for k, v in items}
    if isinstance(value, list):
        return [_shuffled(v, rng) for v in value]
    return value


@SETTINGS
@given(traces(), st.integers(0, 2**32))
def test_key_order_never_changes_findings(trace: dict[str, Any], seed: int) -> None:
    rng = random.Random(seed)
    base = validate_trace(trace, POLICY)
    other = validate_trace(_shuffled(trace, rng), Policy.from_dict(_shuffled(POLICY_DICT, rng)))
    assert _findings(other) == _findings(base)
    assert other.score == base.score and other.passed == base.passed


@SETTINGS
@given(traces(), st.text(min_size=1, max_size=12))
def test_renamed_trace_and_extra_metadata_change_nothing(trace: dict[str, Any], name: str) -> None:
    base = validate_trace(trace, POLICY)
    changed = dict(
        trace, trace_id=name, metadata={"run": name, "nested": {"a": [1]}}, unknown_key=True
    )
    changed["steps"] = [dict(s, metadata={"model": "m"}, extra_field=1) for s in trace["steps"]]
    other = validate_trace(changed, POLICY)
    assert _findings(other) == _findings(base)
    assert (other.score, other.passed, other.category_scores) == (
        base.score,
        base.passed,
        base.category_scores,
    )


@SETTINGS
@given(traces())
def test_reports_are_deterministic_and_well_formed(trace: dict[str, Any]) -> None:
    first = validate_trace(trace, POLICY)
    second = validate_trace(json.loads(json.dumps(trace)), POLICY)
    assert dumps(first.to_dict()) == dumps(second.to_dict())
    assert 0 <= first.score <= 100
    keys = [f.sort_key() for f in first.findings]
    assert keys == sorted(keys)
    if any(f.severity.value == "error" for f in first.findings):
        assert not first.passed


@SETTINGS
@given(traces())
def test_every_finding_points_at_a_real_step(trace: dict[str, Any]) -> None:
    report = validate_trace(trace, POLICY)
    ids = {s["step_id"] for s in trace["steps"]}
    for finding in report.findings:
        assert finding.step_id is None or finding.step_id in ids
