"""Microsoft's SARIF validator (npm @microsoft/sarif-multitool, installed in .tools/ by make setup).

Skipped only when the tool is missing outside CI; under CI=true a missing tool fails.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from agent_reliability_harness.models.report import RunReport, Section
from agent_reliability_harness.render import RenderOptions, sarif
from helpers import IN_CI

TOOL = (
    Path(__file__).resolve().parent.parent
    / ".tools/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
)
# Notes (never errors or warnings) we accept, and why:
ACCEPTED_NOTES = {
    "SARIF2002",  # message ids + arguments instead of text: findings carry measured values
    "SARIF2003",  # versionControlProvenance: output must not depend on the machine or checkout
    "SARIF2009",  # rule ids like "CS2001": ARH-XXX-NNN IDs are a published contract
    "SARIF2010",  # region snippets: we do not copy trace content (it may be sensitive)
    "SARIF2011",  # context regions: same reason as snippets
}

# SARIF2006 (every URI reachable over HTTP) is switched off: the test machine has no
# network, so the rule could only say "unreachable", after seconds of DNS lookups.
CONFIG = """<?xml version="1.0" encoding="utf-8"?>
<Properties>
  <Properties Key="SARIF2006.UrisShouldBeReachable.Options" Type="PropertiesDictionary">
    <Property Key="RuleEnabled" Value="Disabled" Type="Driver.RuleEnabledState" />
  </Properties>
</Properties>
"""


def _validate(paths: list[Path], out: Path) -> list[dict[str, Any]]:
    if not TOOL.exists():
        if IN_CI:
            pytest.fail(f"{TOOL} is missing: `make setup` installs it into .tools/")
        pytest.skip("sarif-multitool is not installed (make setup installs it into .tools/)")
    env = {**os.environ, "DOTNET_CLI_TELEMETRY_OPTOUT": "1"}
    config = out.with_name("multitool-config.xml")
    config.write_text(CONFIG, encoding="utf-8")
    command = [str(TOOL), "validate", *map(str, paths), "--output", str(out)]
    command += ["--config", str(config)]
    command += [
        "--rule-kind",
        "Sarif;Gh",
        "--level",
        "Error;Warning;Note",
        "--log",
        "ForceOverwrite",
    ]
    done = subprocess.run(
        command, check=False, capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    log = json.loads(out.read_text(encoding="utf-8-sig"))
    return [r for run in log["runs"] for r in run.get("results", [])]


def _with_extras(run: RunReport) -> RunReport:
    """What v1 runs lack: policy warnings, several policies, inputs read by URL."""
    warnings = [
        {"source": "policies/a.json", "path": "sequence.forbiden_tools", "message": "unknown key"},
        {"source": None, "path": "", "message": "a policy given as an object"},
    ]
    reports = tuple(
        replace(r, policy_id=f"p{n % 2}", source_path=f"s3://bucket/traces/{n} x.json")
        for n, r in enumerate(run.reports)
    )
    return replace(
        run, policy_id="p0, p1", reports=reports, sections=(Section("policy_warnings", warnings),)
    )


def test_validator_accepts_our_sarif(report_of: Callable[[str], RunReport], tmp_path: Path) -> None:
    paths = []
    runs = {name: report_of(name) for name in ("samples", "mixed", "live")}
    runs["extras"] = _with_extras(runs["mixed"])
    for name, run in runs.items():
        path = tmp_path / f"{name}.sarif"
        path.write_text(sarif.render_run(run, RenderOptions("1.0.0")), "utf-8")
        paths.append(path)
    results = _validate(paths, tmp_path / "validation.sarif")
    serious = [r for r in results if r.get("level", "warning") in {"error", "warning"}]
    assert serious == [], json.dumps(serious, indent=2)[:4000]
    notes = {r["ruleId"] for r in results}
    assert notes <= ACCEPTED_NOTES, notes - ACCEPTED_NOTES


def test_validator_catches_a_broken_log(tmp_path: Path) -> None:
    broken = tmp_path / "broken.sarif"
    broken.write_text(json.dumps({"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]}))
    results = _validate([broken], tmp_path / "validation.sarif")
    assert any(r.get("level", "warning") == "error" for r in results)
