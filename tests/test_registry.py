"""Meta-tests over the rule registry: IDs and severities from the contract table in
POLICY-SPEC.md, metadata, cases and the generated reference."""

from __future__ import annotations

import re
from pathlib import Path

from agent_reliability_harness.cli import main
from agent_reliability_harness.models.common import Category, Severity
from agent_reliability_harness.rules import REGISTRY, RETIRED_IDS, all_rules
from agent_reliability_harness.rules.base import rule
from agent_reliability_harness.rules.docs import rules_markdown

ROOT = Path(__file__).resolve().parent.parent
_ROW = re.compile(r"^\| (ARH-[A-Z]{3}-\d{3}) \| (error|warning|info)\b", re.MULTILINE)


def contract() -> dict[str, Severity]:
    """Rule ID -> default severity, as the rule table of POLICY-SPEC.md gives them."""
    text = (ROOT / "POLICY-SPEC.md").read_text(encoding="utf-8")
    rows = _ROW.findall(text)
    table = {rule_id: Severity(severity) for rule_id, severity in rows}
    assert len(table) == len(rows), "a rule is listed twice"
    return table


def test_registry_holds_exactly_the_contract_rules() -> None:
    assert sorted(REGISTRY) == sorted(contract())


def test_default_severities_follow_the_contract() -> None:
    table = contract()
    for r in all_rules():
        assert r.severity is table[r.rule_id], r.rule_id


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
        assert (r.check is None) != (r.state is None), r.rule_id


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


def test_only_functions_and_rule_states_are_declared() -> None:
    declare = rule("ARH-CMP-999", Category.COMPLETION, Severity.ERROR, title="t", remediation="r")
    try:
        declare(object)
    except TypeError:
        assert "ARH-CMP-999" not in REGISTRY
    else:
        raise AssertionError("a plain class was accepted")


def test_rules_command_lists_every_rule(capsys: object) -> None:
    assert main(["rules"]) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert [line.split()[0] for line in out.splitlines()] == [r.rule_id for r in all_rules()]


def test_rule_reference_is_current() -> None:
    """docs/rules.md is generated: regenerate with `arh rules --markdown > docs/rules.md`."""
    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == rules_markdown()
