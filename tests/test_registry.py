"""Meta-tests over the rule registry: IDs, metadata, cases and the generated reference."""

from __future__ import annotations

import re
from pathlib import Path

from agent_reliability_harness.models.common import Category, Severity
from agent_reliability_harness.rules import REGISTRY, RETIRED_IDS, all_rules
from agent_reliability_harness.rules.base import rule
from agent_reliability_harness.rules.docs import rules_markdown

ROOT = Path(__file__).resolve().parent.parent
CONTRACT_IDS = (
    [f"ARH-SCH-{i:03d}" for i in range(1, 11)]
    + [f"ARH-BUD-{i:03d}" for i in range(1, 8)]
    + ["ARH-SAF-001", "ARH-GRD-001", "ARH-GRD-002", "ARH-GRD-003"]
    + [f"ARH-SEQ-{i:03d}" for i in range(1, 6)]
    + [f"ARH-FLW-{i:03d}" for i in range(1, 4)]
    + ["ARH-CMP-001", "ARH-CMP-002"]
)
# Default severities as the contract's rule table gives them.
NON_ERROR = {
    "ARH-SCH-005": Severity.WARNING,
    "ARH-SCH-006": Severity.INFO,
    "ARH-SCH-010": Severity.WARNING,
    "ARH-BUD-005": Severity.WARNING,
    "ARH-BUD-006": Severity.WARNING,
    "ARH-BUD-007": Severity.WARNING,
}


def test_registry_holds_exactly_the_contract_rules() -> None:
    assert sorted(REGISTRY) == sorted(CONTRACT_IDS)
    assert len(all_rules()) == 31


def test_ids_match_their_category() -> None:
    prefix = {
        "SCH": "schema",
        "BUD": "budget",
        "SAF": "safety",
        "GRD": "grounding",
        "SEQ": "sequence",
        "FLW": "flow",
        "CMP": "completion",
    }
    for r in all_rules():
        assert re.fullmatch(r"ARH-(SCH|BUD|SAF|GRD|SEQ|FLW|CMP)-\d{3}", r.rule_id)
        assert r.category.value == prefix[r.rule_id[4:7]]
        assert r.title.strip() and r.remediation.strip()
        assert r.rule_id not in RETIRED_IDS


def test_default_severities_follow_the_contract() -> None:
    for r in all_rules():
        assert r.severity is NON_ERROR.get(r.rule_id, Severity.ERROR), r.rule_id


def test_every_rule_has_pass_and_fail_cases() -> None:
    cases = ROOT / "tests" / "cases"
    for r in all_rules():
        names = [p.stem for p in (cases / r.rule_id).glob("*.json")]
        assert any(n.startswith("fail_") for n in names), r.rule_id
        assert any(n.startswith("pass_") for n in names), r.rule_id


def test_duplicate_and_miscategorised_ids_are_refused() -> None:
    for rule_id, category in (
        ("ARH-SCH-001", Category.SCHEMA),
        ("ARH-SCH-999", Category.FLOW),
        ("ARH-XYZ-001", Category.SCHEMA),
        ("arh-sch-011", Category.SCHEMA),
    ):
        try:
            rule(rule_id, category, Severity.ERROR, title="t", remediation="r")
        except ValueError:
            continue
        raise AssertionError(f"{rule_id} was accepted")


def test_rule_reference_is_current() -> None:
    """docs/rules.md is generated: regenerate with `arh rules --markdown > docs/rules.md`."""
    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == rules_markdown()
