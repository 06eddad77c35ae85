"""Runs every data-driven rule case in tests/cases/<RULE-ID>/*.json.

A case states only what differs from the default policy and trace (tests/helpers.py:
`policy`, and `steps` or `trace`), the exact multiset of expected (severity, rule_id,
step_id) findings, and optionally the score and verdict. A finding of a policy v1.2
agent entry is expected as (severity, rule_id, step_id, agent); three items mean a
finding that carries no agent.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from helpers import report

CASES = Path(__file__).parent / "cases"
CASE_FILES = sorted(CASES.glob("*/*.json"))
KEYS = {"description", "policy", "steps", "trace", "expected", "score", "passed"}


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_rule_case(path: Path) -> None:
    case = _load(path)
    assert set(case) <= KEYS, path
    trace = dict(case.get("trace", {}))
    if "steps" in case:
        trace["steps"] = case["steps"]
    got = report(trace, case.get("policy"))
    found = Counter((f.severity.value, f.rule_id, f.step_id, f.agent) for f in got.findings)
    wanted = Counter((*item, None) if len(item) == 3 else tuple(item) for item in case["expected"])
    assert found == wanted, case["description"]
    if "score" in case:
        assert got.score == pytest.approx(case["score"], abs=0.01), case["description"]
    if "passed" in case:
        assert got.passed is case["passed"], case["description"]


def test_every_case_names_its_rule() -> None:
    """A fail_* case must raise the rule of its folder; a pass_* case must not."""
    for path in CASE_FILES:
        case = _load(path)
        rule_ids = {item[1] for item in case["expected"]}
        if path.stem.startswith("fail_"):
            assert path.parent.name in rule_ids, path
        else:
            assert path.stem.startswith("pass_"), path
            assert path.parent.name not in rule_ids, path
