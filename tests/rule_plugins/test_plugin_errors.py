"""A plugin that cannot be used is a policy load error (`error: invalid policy <file>:
policy plugins[i]: ...`, exit 1), in `arh validate` and `arh check-policy` alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plugin_helpers import arh, fake_plugin, policy, refund_trace, rule_source, write_json

PREFIX = "error: invalid policy policy.json: policy plugins[0]: "


def _load_error(site: Path, tmp: Path, plugins: list[str]) -> str:
    write_json(tmp / "policy.json", policy(plugins))
    write_json(tmp / "trace.json", refund_trace(10))
    done = arh(["validate", "--policy", "policy.json", "trace.json"], site, tmp)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout == ""
    checked = arh(["check-policy", "policy.json"], site, tmp)
    assert checked.returncode == 1
    assert checked.stderr == done.stderr
    assert "Traceback" not in done.stderr
    return done.stderr


def test_a_plugin_that_is_not_installed(tmp_path: Path) -> None:
    fake_plugin(tmp_path / "site", "other", "other_rules", rule_source("ACME-SAF-001"))
    assert _load_error(tmp_path / "site", tmp_path, ["refund-limitz"]) == (
        f"{PREFIX}plugin 'refund-limitz' is not installed (no 'arh.rules' entry point "
        "of that name; installed: other)\n"
    )


@pytest.mark.parametrize(
    ("rule_id", "category", "why"),
    [
        ("acme-1", "SAFETY", "malformed rule ID 'acme-1' (a plugin rule ID looks like "
         "ACME-SAF-001)"),
        ("ACME-SAF-01", "SAFETY", "malformed rule ID 'ACME-SAF-01'"),
        ("ACME-XYZ-001", "SAFETY", "rule ID ACME-XYZ-001: XYZ is not a category"),
        ("ACME-SAF-001", "FLOW", "rule ACME-SAF-001 declared in category flow"),
        ("ARH-SAF-001", "SAFETY", "rule ID ARH-SAF-001 is already used or retired"),
        ("ARH-SAF-900", "SAFETY", "rule ID ARH-SAF-900: IDs starting with ARH- are ARH's own"),
    ],
)  # fmt: skip
def test_a_bad_rule_id(tmp_path: Path, rule_id: str, category: str, why: str) -> None:
    fake_plugin(tmp_path / "site", "acme", "acme_rules", rule_source(rule_id, category))
    error = _load_error(tmp_path / "site", tmp_path, ["acme"])
    assert error.startswith(f"{PREFIX}plugin 'acme' (acme_rules): {why}"), error


def test_an_id_two_plugins_declare(tmp_path: Path) -> None:
    site = tmp_path / "site"
    fake_plugin(site, "first", "first_rules", rule_source("ACME-SAF-001"))
    fake_plugin(site, "second", "second_rules", rule_source("ACME-SAF-001"))
    error = _load_error(site, tmp_path, ["first", "second"])
    assert error == (
        "error: invalid policy policy.json: policy plugins[1]: plugin 'second' "
        "(second_rules): rule ID ACME-SAF-001 is already declared by first_rules\n"
    )


def test_an_import_error(tmp_path: Path) -> None:
    fake_plugin(tmp_path / "site", "broken", "broken_rules", "import no_such_module_here\n")
    assert _load_error(tmp_path / "site", tmp_path, ["broken"]) == (
        f"{PREFIX}plugin 'broken' (broken_rules) could not be imported: "
        "ModuleNotFoundError: No module named 'no_such_module_here'\n"
    )


def test_a_plugin_without_rules(tmp_path: Path) -> None:
    fake_plugin(tmp_path / "site", "empty", "empty_rules", "VALUE = 1\n")
    assert _load_error(tmp_path / "site", tmp_path, ["empty"]) == (
        f"{PREFIX}plugin 'empty' (empty_rules) declares no rule: declare them with @rule "
        "in empty_rules or its submodules\n"
    )


def test_plugins_must_be_names(tmp_path: Path) -> None:
    for value, why in (
        ("acme", "policy plugins: must be an array of plugin names (got string)"),
        ([" "], "policy plugins[0]: must be a plugin's entry point name (got ' ')"),
        ([1], "policy plugins[0]: must be a string (got number)"),
    ):
        write_json(tmp_path / "policy.json", {**policy(), "plugins": value})
        done = arh(["check-policy", "policy.json"], None, tmp_path)
        assert done.stderr == f"error: invalid policy policy.json: {why}\n"


def test_a_typo_in_the_key_is_flagged(tmp_path: Path) -> None:
    write_json(tmp_path / "policy.json", {**policy(), "plugin": ["acme"]})
    done = arh(["check-policy", "policy.json"], None, tmp_path)
    assert "plugin: unknown key (did you mean 'plugins'?)" in done.stderr


def test_listing_reports_a_plugin_that_cannot_be_imported(tmp_path: Path) -> None:
    site = tmp_path / "site"
    fake_plugin(site, "good", "good_rules", rule_source("ACME-SAF-001"))
    fake_plugin(site, "broken", "broken_rules", "raise RuntimeError('no')\n")
    done = arh(["rules", "--plugins"], site, tmp_path)
    assert done.returncode == 1
    assert (
        done.stdout
        == "plugin good (good_rules):\n  ACME-SAF-001  safety      error          after       t\n"
    )
    assert done.stderr == (
        "error: plugin 'broken' (broken_rules) could not be imported: RuntimeError: no\n"
    )


HELPED = """
from agent_reliability_harness.rules import Category, Hit, RuleResult, Severity, rule

@rule("ACME-CMP-001", Category.COMPLETION, Severity.WARNING, title="Every trace is noted",
      remediation="None needed.", help_uri=HELP)
def check(ctx):
    return RuleResult(checks=1, hits=[Hit(None, "noted")])
"""


def test_a_help_page_is_linked_and_must_be_https(tmp_path: Path) -> None:
    site = tmp_path / "site"
    fake_plugin(site, "acme", "acme_rules", "HELP = 'https://acme.test/rules#cmp-001'" + HELPED)
    write_json(tmp_path / "policy.json", policy(["acme"]))
    write_json(tmp_path / "trace.json", refund_trace(10))
    args = ["validate", "--policy", "policy.json", "trace.json", "--md-out", "r.md"]
    done = arh([*args, "--sarif-out", "r.sarif"], site, tmp_path)
    assert done.returncode == 0, done.stderr  # a warning does not fail the trace
    markdown = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert "| warning | [ACME-CMP-001] | completion | (trace) | noted |" in markdown
    assert "[ACME-CMP-001]: https://acme.test/rules#cmp-001\n" in markdown
    sarif = json.loads((tmp_path / "r.sarif").read_text(encoding="utf-8"))
    [descriptor] = [r for r in sarif["runs"][0]["tool"]["driver"]["rules"] if "ACME" in r["id"]]
    assert descriptor["helpUri"] == "https://acme.test/rules#cmp-001"
    fake_plugin(tmp_path / "bad", "acme", "acme_rules", "HELP = 'http://x y'" + HELPED)
    error = _load_error(tmp_path / "bad", tmp_path, ["acme"])
    assert error == (
        f"{PREFIX}plugin 'acme' (acme_rules) could not be imported: ValueError: rule "
        "ACME-CMP-001: help_uri must be an https:// URL (got 'http://x y')\n"
    )


RAISING = {
    "check": (
        "from agent_reliability_harness.rules import Category, RuleResult, Severity, rule\n\n"
        "@rule('BOOM-SCH-001', Category.SCHEMA, Severity.ERROR, title='t', remediation='r')\n"
        "def check(ctx):\n    raise ZeroDivisionError('kaboom')\n"
    ),
    "state": (
        "from agent_reliability_harness.rules import Category, RuleState, Severity, rule\n\n"
        "@rule('BOOM-SCH-001', Category.SCHEMA, Severity.ERROR, title='t', remediation='r')\n"
        "class Scan(RuleState):\n"
        "    def scan(self, ctx):\n        raise ZeroDivisionError('kaboom')\n"
    ),
}


@pytest.mark.parametrize("kind", sorted(RAISING))
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_rule_that_raises_stops_the_run_with_one_error(
    tmp_path: Path, kind: str, jobs: str
) -> None:
    """A plugin's fault is named as the plugin's, one line and exit 1, on every executor."""
    fake_plugin(tmp_path / "site", "boom", "boom_rules", RAISING[kind])
    write_json(tmp_path / "policy.json", policy(["boom"]))
    write_json(tmp_path / "trace.json", refund_trace(10))
    args = ["validate", "--jobs", jobs, "--policy", "policy.json", "trace.json"]
    done = arh(args, tmp_path / "site", tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr == (
        "error: plugin 'boom': rule BOOM-SCH-001 raised ZeroDivisionError: kaboom on trace "
        "'t-1' (a fault of the plugin; the run is stopped)\n"
    )
