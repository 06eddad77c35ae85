"""Issue 31: hostile plugins. A plugin upgrade or code edit invalidates the cache; a
package plugin gets only its own rules; a plugin rule sees a copy of the trace; any
fault of a plugin's code (raising, or returning what is no RuleResult) is one plugin
error naming it. Every plugin runs in a subprocess (plugin_helpers)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from plugin_helpers import arh, fake_plugin, policy, refund_trace, run, write_json

HEAD = "from agent_reliability_harness.rules import *\n\n"


def _rule(
    body: str, rule_id: str = "ACME-SAF-001", severity: str = "ERROR", category: str = "SAFETY"
) -> str:
    return (
        f"{HEAD}@rule({rule_id!r}, Category.{category}, Severity.{severity}, title='t', "
        f"remediation='r')\n{body}"
    )


FIRES = "def check(ctx):\n    return RuleResult(checks=1, failed=1, hits=[Hit(None, 'bad')])\n"
QUIET = "def check(ctx):\n    return RuleResult(checks=1)\n"


def _bump(site: Path, module: str, version: str) -> None:
    """The fake distribution of `module` re-installed as `version`."""
    [info] = site.glob(f"{module}-*.dist-info")
    target = site / f"{module}-{version}.dist-info"
    shutil.move(info, target)
    meta = target / "METADATA"
    meta.write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: {version}\n")


def _cached_run(site: Path, tmp: Path) -> tuple[int, str]:
    args = ["validate", "--policy", "policy.json", "trace.json", "--cache", "cache"]
    done = arh([*args, "--json-out", "r.json"], site, tmp)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout


def test_a_plugin_upgrade_or_code_edit_invalidates_the_cache(tmp_path: Path) -> None:
    """The entry point's name ('limits') is not its distribution's ('acme_limits')."""
    site = tmp_path / "site"
    fake_plugin(site, "limits", "acme_limits", _rule(FIRES))
    write_json(tmp_path / "policy.json", policy(["limits"]))
    write_json(tmp_path / "trace.json", refund_trace(10))
    assert _cached_run(site, tmp_path)[0] == 1
    # Upgraded: the rule no longer fires.
    (site / "acme_limits.py").write_text(_rule(QUIET))
    _bump(site, "acme_limits", "0.2")
    code, out = _cached_run(site, tmp_path)
    assert code == 0, out
    assert "cache: 0 of 1" in out
    # Edited in place, same version: fires again.
    (site / "acme_limits.py").write_text(_rule(FIRES))
    code, out = _cached_run(site, tmp_path)
    assert code == 1, out
    assert "cache: 0 of 1" in out
    assert "cache: 1 of 1" in _cached_run(site, tmp_path)[1]


def test_a_package_plugin_gets_only_its_own_rules(tmp_path: Path) -> None:
    """`outer` = pkg (a package), `inner` = pkg.inner: whichever is imported first, the
    rule of pkg.inner is inner's only."""
    site = tmp_path / "site"
    package = site / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(_rule(QUIET, "OUT-SAF-001"))
    (package / "inner.py").write_text(_rule(FIRES, "INN-SAF-001"))
    info = site / "pkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[arh.rules]\nouter = pkg\ninner = pkg.inner\n")
    script = (
        "from agent_reliability_harness.rules.plugins import plugin_rules\n"
        "import sys\n"
        "for name in sys.argv[1:]:\n"
        "    print(name, [r.rule_id for r in plugin_rules(name)])\n"
    )
    (tmp_path / "probe.py").write_text(script)
    for order in (["inner", "outer"], ["outer", "inner"]):
        done = run(["probe.py", *order], site, tmp_path)
        assert done.returncode == 0, done.stderr
        lines = sorted(done.stdout.splitlines())
        assert lines == ["inner ['INN-SAF-001']", "outer ['OUT-SAF-001']"], order


MUTATES = {
    "check": "def check(ctx):\n"
    "    for step in ctx.trace.steps:\n"
    "        if step.arguments:\n"
    "            step.arguments.clear()\n"
    "    ctx.trace.outcome['success'] = True\n"
    "    return RuleResult()\n",
    "state": "class Mutate(RuleState):\n"
    "    def scan(self, ctx):\n"
    "        for step in ctx.facts.steps:\n"
    "            if step.arguments:\n"
    "                step.arguments['amount'] = 1\n"
    "    def finish(self, ctx):\n"
    "        ctx.trace.steps[1].arguments['amount'] = 1\n"
    "        return self.result\n",
}


@pytest.mark.parametrize("kind", sorted(MUTATES))
def test_a_plugin_rule_cannot_change_a_built_in_verdict(tmp_path: Path, kind: str) -> None:
    site = tmp_path / "site"
    fake_plugin(
        site, "mutate", "mutate_rules", _rule(MUTATES[kind], "AAA-SCH-001", "INFO", "SCHEMA")
    )
    trace = refund_trace(10)
    trace["outcome"] = {"success": False}
    write_json(tmp_path / "trace.json", trace)
    amount = {"type": "number", "max": 5}
    strict = {
        "allowed_tools": {
            "lookup_order": {"required_arguments": {"order_id": "str"}},
            "issue_refund": {"required_arguments": {"order_id": "str", "amount": amount}},
        },
    }
    reports = []
    for plugins in ([], ["mutate"]):
        write_json(tmp_path / "policy.json", {**policy(plugins), **strict})
        args = ["validate", "--policy", "policy.json", "trace.json", "--json-out", "r.json"]
        done = arh(args, site, tmp_path)
        assert "Traceback" not in done.stderr, done.stderr
        [report] = json.loads((tmp_path / "r.json").read_text())["reports"]
        reports.append((report["passed"], report["score"], report["findings"]))
    assert reports[0] == reports[1]
    assert reports[0][0] is False


FAULTS = {
    "applies": (
        f"{HEAD}def no(policy):\n    raise KeyError('x')\n\n"
        "@rule('ACME-SAF-001', Category.SAFETY, Severity.ERROR, title='t', remediation='r', "
        "applies=no)\ndef check(ctx):\n    return RuleResult()\n",
        "rule ACME-SAF-001 raised KeyError: 'x' in applies",
    ),
    "compile": (
        f"{HEAD}def make(policy):\n    return 1 / 0\n\n"
        "@rule('ACME-SAF-001', Category.SAFETY, Severity.ERROR, title='t', remediation='r', "
        "compile=make)\nclass S(RuleState):\n    pass\n",
        "rule ACME-SAF-001 raised ZeroDivisionError: division by zero in compile",
    ),
    "finish None": (
        _rule("class S(RuleState):\n    def finish(self, ctx):\n        return None\n"),
        "rule ACME-SAF-001 returned a NoneType, not a RuleResult on trace 't-1'",
    ),
    "message not text": (
        _rule("def check(ctx):\n    return RuleResult(1, 1, [Hit(None, 42)])\n"),
        "rule ACME-SAF-001 returned a result whose hits[0].message is a int, not a string "
        "on trace 't-1'",
    ),
    "expected a set": (
        _rule("def check(ctx):\n    return RuleResult(1, 1, [Hit(None, 'm', expected={1})])\n"),
        "rule ACME-SAF-001 returned a result whose hits[0].expected is a set, not a JSON "
        "value on trace 't-1'",
    ),
    "NaN": (
        _rule(
            "def check(ctx):\n    return RuleResult(1, 1, [Hit(0, 'm', observed=[float('nan')])])\n"
        ),
        "rule ACME-SAF-001 returned a result whose hits[0].observed is nan, not a finite "
        "number on trace 't-1'",
    ),
    "negative checks": (
        _rule("def check(ctx):\n    return RuleResult(checks=-5)\n"),
        "rule ACME-SAF-001 returned a result whose checks is -5, not an integer >= 0 "
        "on trace 't-1'",
    ),
}


@pytest.mark.parametrize("kind", sorted(FAULTS))
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_plugin_fault_is_one_plugin_error(tmp_path: Path, kind: str, jobs: str) -> None:
    source, what = FAULTS[kind]
    fake_plugin(tmp_path / "site", "acme", "acme_rules", source)
    write_json(tmp_path / "policy.json", policy(["acme"]))
    write_json(tmp_path / "trace.json", refund_trace(10))
    args = ["validate", "--jobs", jobs, "--policy", "policy.json", "trace.json"]
    done = arh(args, tmp_path / "site", tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr == (
        f"error: plugin 'acme': {what} (a fault of the plugin; the run is stopped)\n"
    ), done.stderr
