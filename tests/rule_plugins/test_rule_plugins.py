"""Policy v1.2 section 5 end to end: the example plugin, installed with pip, runs in
`arh validate` only for a policy that names it, in every report format."""

from __future__ import annotations

import json
from pathlib import Path

from plugin_helpers import EXAMPLE, arh, fake_plugin, policy, refund_trace, run, write_json

RULE = "SHOP-SAF-001"
OUTPUTS = {"json": "r.json", "sarif": "r.sarif", "md": "r.md", "junit": "r.xml", "html": "r.html"}


def _validate(site: Path, tmp: Path, plugins: list[str] | None, *extra: str) -> dict[str, str]:
    write_json(tmp / "policy.json", policy(plugins))
    write_json(tmp / "trace.json", refund_trace(55))
    outs = [a for key, name in OUTPUTS.items() for a in (f"--{key}-out", name)]
    done = arh(["validate", "--policy", "policy.json", "trace.json", *outs, *extra], site, tmp)
    got = {key: (tmp / name).read_text(encoding="utf-8") for key, name in OUTPUTS.items()}
    return {"rc": str(done.returncode), "console": done.stdout, "stderr": done.stderr, **got}


def test_the_example_installs_and_is_listed(example_site: Path, tmp_path: Path) -> None:
    done = arh(["rules", "--plugins"], example_site, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "plugin refund-limits (arh_refund_rules.rules):\n"
        "  SHOP-SAF-001  safety      error          after       Refund exceeds the order total\n"
    )
    # The built-in table is unchanged by an installed plugin.
    assert RULE not in arh(["rules"], example_site, tmp_path).stdout


def test_the_rule_fires_in_every_report_format(example_site: Path, tmp_path: Path) -> None:
    out = _validate(example_site, tmp_path, ["refund-limits"])
    assert out["rc"] == "1", out["stderr"]
    [report] = json.loads(out["json"])["reports"]
    [finding] = [f for f in report["findings"] if f["rule_id"] == RULE]
    assert finding["category"] == "safety"
    assert finding["severity"] == "error"
    assert finding["step_id"] == "s2"
    assert report["category_scores"]["safety"] == 0.0
    sarif = json.loads(out["sarif"])["runs"][0]
    catalogue = [r["id"] for r in sarif["tool"]["driver"]["rules"]]
    assert RULE in catalogue
    assert catalogue.index(RULE) < catalogue.index("ARH-GRD-001")  # in its category
    assert [r["ruleId"] for r in sarif["results"]] == [RULE]
    descriptor = sarif["tool"]["driver"]["rules"][catalogue.index(RULE)]
    assert "helpUri" not in descriptor  # the example declares no help page
    for key in ("console", "md", "junit", "html"):
        assert RULE in out[key], key
    assert f"[{RULE}]" not in out["md"]  # no link without a help page


def test_without_the_policy_naming_it_nothing_runs(example_site: Path, tmp_path: Path) -> None:
    out = _validate(example_site, tmp_path, None)
    assert out["rc"] == "0", out["stderr"]
    for key in OUTPUTS:
        assert RULE not in out[key], key


def test_byte_identical_to_a_run_without_plugins_installed(
    example_site: Path, tmp_path: Path
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with_site = _validate(example_site, tmp_path / "a", None)
    bare = _validate(tmp_path / "nothing", tmp_path / "b", None)
    assert with_site == bare


def test_no_plugin_is_imported_unless_a_policy_names_it(example_site: Path, tmp_path: Path) -> None:
    """One process: importing ARH imports no plugin; a run whose policy does not name
    one never imports it (a plugin that raises on import is installed too); after a run
    that named it, a run whose policy does not name it neither runs nor lists its rule."""
    site = tmp_path / "site"
    fake_plugin(site, "explodes", "explodes", "raise RuntimeError('imported')\n")
    script = f"""
import json, sys
sys.path.insert(0, {str(site)!r})
import agent_reliability_harness as arh
from agent_reliability_harness.render import sarif
from agent_reliability_harness.render.base import RenderOptions
assert not [m for m in sys.modules if m.startswith(("arh_refund", "explodes"))]
trace = json.loads(open("trace.json").read())
def check(plugins):
    p = {{"schema_version": "1.2", "policy_id": "p", "allow_unlisted_tools": True}}
    if plugins:
        p["plugins"] = plugins
    report = arh.validate([trace], p)
    ids = [f.rule_id for r in report.reports for f in r.findings]
    catalogue = sarif.sarif_log(report, RenderOptions("x"))["runs"][0]["tool"]["driver"]["rules"]
    return ids, [r["id"] for r in catalogue]
ids, catalogue = check(None)
assert "SHOP-SAF-001" not in ids and "SHOP-SAF-001" not in catalogue
assert "arh_refund_rules.rules" not in sys.modules
ids, catalogue = check(["refund-limits"])
assert ids == ["SHOP-SAF-001"] and "SHOP-SAF-001" in catalogue, (ids, catalogue)
ids, catalogue = check(None)
assert "SHOP-SAF-001" not in ids and "SHOP-SAF-001" not in catalogue
assert "explodes" not in sys.modules
print("ok")
"""
    write_json(tmp_path / "trace.json", refund_trace(55))
    done = run(["-c", script], example_site, tmp_path)
    assert done.stdout == "ok\n", done.stderr[-3000:]


def test_workers_import_the_plugins_of_the_policy_they_are_sent(
    example_site: Path, tmp_path: Path
) -> None:
    """The policy, not the plugin, is shipped to --jobs and Dask workers: a fresh
    interpreter given the pickled plan imports the plugin itself."""
    script = """
import pickle, sys
from agent_reliability_harness.models.policy import parse_policy
from agent_reliability_harness.pipeline import RunOptions, input_units, make_plan, ReportSink
from agent_reliability_harness.pipeline.executors import chunked
p = parse_policy({"policy_id": "p", "allow_unlisted_tools": True, "plugins": ["refund-limits"]})
plan = make_plan([p], RunOptions(), [ReportSink()])
[chunk] = chunked(input_units(["trace.json"], RunOptions()))
open("plan.pickle", "wb").write(pickle.dumps((plan, chunk)))
"""
    worker = """
import pickle, sys
plan, chunk = pickle.loads(open("plan.pickle", "rb").read())
assert "arh_refund_rules.rules" not in sys.modules
from agent_reliability_harness.pipeline import dask_executor, executors
found = [f.rule_id for r in dask_executor._work(plan, chunk).reports for f in r.findings]
assert found == ["SHOP-SAF-001"], found
executors._init_worker(plan)
found = [f.rule_id for r in executors._work(chunk).reports for f in r.findings]
assert found == ["SHOP-SAF-001"], found
print("ok")
"""
    write_json(tmp_path / "trace.json", refund_trace(55))
    shipped = run(["-c", script], example_site, tmp_path)
    assert shipped.returncode == 0, shipped.stderr[-3000:]
    done = run(["-c", worker], example_site, tmp_path)
    assert done.stdout == "ok\n", done.stderr[-3000:]


def test_the_examples_own_tests_pass(example_site: Path, tmp_path: Path) -> None:
    done = run(
        ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(EXAMPLE / "pyproject.toml"),
         "--rootdir", str(EXAMPLE), str(EXAMPLE / "tests")],
        example_site, tmp_path, timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "5 passed" in done.stdout
