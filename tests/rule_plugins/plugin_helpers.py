"""Helpers for plugin tests: the example plugin installed into a directory of its own
(offline: the project's hatchling builds it), and plugins written by hand.

Every plugin is imported in a subprocess whose PYTHONPATH holds that directory, never in
the test process, so that the suite's registry stays the built-in one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "arh-refund-rules"


def run(
    args: list[str], site: Path | None, cwd: Path, timeout: int = 120
) -> subprocess.CompletedProcess[str]:
    """`python ARGS` with the site directory and this checkout's src on PYTHONPATH."""
    paths = [str(site)] if site is not None else []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*paths, str(ROOT / "src")])}
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=timeout, check=False,
    )  # fmt: skip


def arh(args: list[str], site: Path | None, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run(["-m", "agent_reliability_harness", *args], site, cwd)


def install_example(site: Path) -> None:
    """The example plugin, installed with pip as a user would (no network, no deps)."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation",
         "--no-deps", "--no-index", "--target", str(site), str(EXAMPLE)],
        capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert (site / "arh_refund_rules" / "rules.py").is_file()


def fake_plugin(site: Path, name: str, module: str, source: str) -> None:
    """An installed distribution declaring the entry point `name` = `module`."""
    site.mkdir(parents=True, exist_ok=True)
    (site / f"{module}.py").write_text(source, encoding="utf-8")
    info = site / f"{module}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(f"[arh.rules]\n{name} = {module}\n", encoding="utf-8")


def rule_source(rule_id: str, category: str = "SAFETY") -> str:
    """A plugin module declaring one check-function rule that never fires."""
    return (
        "from agent_reliability_harness.rules import Category, RuleResult, Severity, rule\n\n"
        f"@rule({rule_id!r}, Category.{category}, Severity.ERROR, title='t', remediation='r')\n"
        "def check(ctx):\n    return RuleResult()\n"
    )


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def policy(plugins: list[str] | None = None, policy_id: str = "refunds") -> dict[str, Any]:
    found: dict[str, Any] = {
        "schema_version": "1.2",
        "policy_id": policy_id,
        "allow_unlisted_tools": True,
    }
    if plugins is not None:
        found["plugins"] = plugins
    return found


def refund_trace(amount: float, trace_id: str = "t-1") -> dict[str, Any]:
    """Order A-1 totals 40; the agent refunds `amount` of it."""
    return {
        "schema_version": "1",
        "trace_id": trace_id,
        "agent_name": "support",
        "workflow": "refund",
        "steps": [
            {
                "step_id": "s1",
                "type": "tool_call",
                "tool_name": "lookup_order",
                "arguments": {"order_id": "A-1"},
                "output": {"order_id": "A-1", "total": 40},
            },
            {
                "step_id": "s2",
                "type": "tool_call",
                "tool_name": "issue_refund",
                "arguments": {"order_id": "A-1", "amount": amount},
            },
            {"step_id": "s3", "type": "model_response", "text": "Refunded."},
        ],
    }
