"""Issue 31, the property: for random policies, traces and plugins (hostile ones too:
a rule that mutates what it is given, quotes integers beyond 64 bits, or returns NaN),
a plain run, a cached run (cold and warm), a `--jobs 2` run and a streamed run (every
file read a chunk of steps at a time) write the same bytes: exit code, console, error
lines, JSON and SARIF reports.

Each example runs the five modes in one child process (plugins are imported there,
never in the test process), so the example count stays small."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import ROOT
from policy_strategies import valid_policies
from strategies import traces

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rule_plugins"))
from plugin_helpers import fake_plugin

HEAD = "from agent_reliability_harness.rules import *\n\n"
_DECLARE = "@rule('HOST-SAF-001', Category.SAFETY, Severity.WARNING, title='t', remediation='r')\n"
PLUGINS: dict[str, str] = {
    "findings": HEAD + _DECLARE + "def check(ctx):\n"
    "    hits = [Hit(i, f'call {i}', expected={'n': i}, step_id=s.step_id)\n"
    "            for i, s in enumerate(ctx.facts.steps) if s.is_tool_call]\n"
    "    return RuleResult(checks=len(hits) + 1, failed=len(hits) // 2, hits=hits)\n",
    "mutates": HEAD + _DECLARE + "class Mutate(RuleState):\n"
    "    def scan(self, ctx):\n"
    "        for step in ctx.facts.steps:\n"
    "            if step.arguments is not None:\n"
    "                step.arguments.clear()\n"
    "                step.arguments['x'] = 1\n"
    "        self.result.checks += 1\n",
    "big": HEAD + _DECLARE + "def check(ctx):\n"
    "    return RuleResult(checks=1, failed=1, hits=[Hit(None, 'big', observed=2**70)])\n",
    "nan": HEAD + _DECLARE + "def check(ctx):\n"
    "    return RuleResult(checks=1, failed=1, hits=[Hit(None, 'nan', observed=float('nan'))])\n",
}

DRIVER = """
import hashlib, io, json, sys
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.pipeline import cache, documents

policy, inputs, work = sys.argv[1], sys.argv[2:-1], sys.argv[-1]

def run(tag, *extra):
    out, err = io.StringIO(), io.StringIO()
    args = ["validate", "--policy", policy, *inputs, "--show", "all",
            "--json-out", f"{work}/{tag}.json", "--sarif-out", f"{work}/{tag}.sarif", *extra]
    code = main(args, Streams(out, err, io.BytesIO()))
    console = "".join(x for x in out.getvalue().splitlines(True) if not x.startswith("cache: "))
    files = []
    for suffix in ("json", "sarif"):
        try:
            files.append(hashlib.sha256(open(f"{work}/{tag}.{suffix}", "rb").read()).hexdigest())
        except OSError:
            files.append(None)
    return [code, console, err.getvalue(), *files]

got = {"plain": run("plain")}
got["cold"] = run("cold", "--cache", f"{work}/cache")
got["warm"] = run("warm", "--cache", f"{work}/cache")
got["jobs"] = run("jobs", "--jobs", "2")
documents.STREAM_MIN_BYTES = cache.STREAM_MIN_BYTES = 0  # every file streamed
got["streamed"] = run("streamed")
print(json.dumps(got))
"""


def _modes(policy: dict[str, Any], trace_list: list[dict[str, Any]], plugin: str | None) -> Any:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        site = work / "site"
        site.mkdir()
        if plugin is not None:
            fake_plugin(site, "host", "host_rules", PLUGINS[plugin])
            policy = {**policy, "schema_version": "1.2", "plugins": ["host"]}
        (work / "policy.json").write_text(json.dumps(policy))
        folder = work / "files"
        folder.mkdir()
        for n, trace in enumerate(trace_list):
            (folder / f"trace-{n}.json").write_text(json.dumps(trace))
        (work / "store.jsonl").write_text("".join(json.dumps(t) + "\n" for t in trace_list))
        (work / "driver.py").write_text(DRIVER)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT / "src")])}
        env.pop("PYTEST_ADDOPTS", None)
        args = ["driver.py", "policy.json", "files", "store.jsonl", str(work)]
        done = subprocess.run(
            [sys.executable, *args], cwd=work, env=env, capture_output=True, text=True,
            timeout=300, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.builds(dict, valid_policies()),
    st.lists(traces(), min_size=1, max_size=4),
    st.sampled_from([None, *sorted(PLUGINS)]),
)
def test_every_way_of_running_writes_the_same_bytes(
    policy: dict[str, Any], trace_list: list[dict[str, Any]], plugin: str | None
) -> None:
    policy.pop("applies_to", None)  # every trace judged
    got = _modes({"policy_id": "p", **policy}, trace_list, plugin)
    assert "internal error" not in got["plain"][2]
    for mode in ("cold", "warm", "jobs", "streamed"):
        assert got[mode] == got["plain"], mode
