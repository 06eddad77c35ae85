"""The `tasks` section of `arh validate` (policy v1.1 section 7) on the generated corpus
with seeded nondeterminism: per task the runs, passes, pass@k / pass^k and per-rule firing
rates the seeds imply; on automatically with repeated runs, forced by --repeated, absent
(v1 bytes) otherwise; --task-id-from; every format shows it."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path

import jsonschema
import pytest
from rep_helpers import cli, expected_task, repeated, write_policy

from agent_reliability_harness.api import validate, validate_paths
from agent_reliability_harness.models.policy import parse_policy
from agent_reliability_harness.render import RenderOptions, get_renderer
from agent_reliability_harness.render.markdown import BUDGET
from helpers import ROOT, make_trace, response, tool_call

SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text())
PLANS = (
    repeated.TaskPlan("flaky", 8, (("f_enum", 2), ("f_undeclared", 5))),
    repeated.TaskPlan("solid", 8, ()),
    repeated.TaskPlan("broken", 5, (("f_range", 5), ("f_forbidden", 2))),
    repeated.TaskPlan("single", 1, (("f_pattern", 1),)),
)


@pytest.fixture
def corpus(tmp_path: Path) -> tuple[Path, Path, dict[str, repeated.Expected]]:
    runs = tmp_path / "runs.jsonl"
    expected = repeated.write_runs(runs, 3, PLANS)
    return write_policy(tmp_path), runs, expected


def _report(policy: Path, *args: str) -> dict[str, object]:
    code, out, err = cli(["validate", "--policy", str(policy), "--quiet", "--json-out", "-", *args])
    assert err == "" and code in (0, 1), err
    report: dict[str, object] = json.loads(out)
    return report


def test_firing_rates_and_pass_hat_k_are_what_the_seeds_imply(
    corpus: tuple[Path, Path, dict[str, repeated.Expected]],
) -> None:
    policy, runs, expected = corpus
    report = _report(policy, str(runs))
    assert report["tasks"] == [expected_task(t, expected[t]) for t in sorted(expected)]
    by_id = {t["task_id"]: t for t in report["tasks"]}  # type: ignore[attr-defined]
    # By hand: "flaky" passes in 6 of 8 runs: pass^2 = C(6,2)/C(8,2) = 15/28.
    assert expected["flaky"].passed == 6
    assert by_id["flaky"]["pass_hat_k"]["2"] == round(15 / 28, 6)
    assert [r["flaky"] for r in by_id["flaky"]["rules"]] == [True, True]
    assert by_id["broken"]["pass_hat_k"] == {str(k): 0.0 for k in range(1, 6)}
    assert [(r["rule_id"], r["flaky"]) for r in by_id["broken"]["rules"]] == [
        ("ARH-SCH-009", False),  # in every run: a constant failure, not a flaky one
        ("ARH-SEQ-002", True),
    ]
    summary = report["summary"]
    hat_1 = sum(Fraction(e.passed, e.runs) for e in expected.values()) / 4
    assert summary["tasks"] == 4 and summary["k_min"] == 1  # type: ignore[index]
    assert summary["mean_pass_hat_1"] == round(float(hat_1), 6)  # type: ignore[index]
    assert summary["mean_pass_hat_k_min"] == summary["mean_pass_hat_1"]  # type: ignore[index]
    jsonschema.Draft202012Validator(SCHEMA).validate(report)


def test_one_run_per_task_keeps_the_v1_bytes_and_repeated_forces_the_section(
    tmp_path: Path,
) -> None:
    policy = write_policy(tmp_path)
    runs = tmp_path / "once.jsonl"
    repeated.write_runs(runs, 4, [repeated.TaskPlan(f"t{i}", 1) for i in range(3)])
    unlabelled = tmp_path / "plain.jsonl"
    repeated.write_runs(unlabelled, 4, [repeated.TaskPlan(f"t{i}", 1) for i in range(3)], False)
    md = tmp_path / "once.md"
    base = ["validate", "--policy", str(policy), "--quiet", "--json-out", "-", "--md-out", str(md)]
    once = cli([*base, str(runs)])
    plain = cli([*base, str(unlabelled)])
    assert "tasks" not in json.loads(once[1]) and "Repeated runs" not in md.read_text()
    assert "Repeated runs" not in cli(["validate", "--policy", str(policy), str(runs)])[1]
    # The only difference a task id makes in one-run-per-task output: the reports carry it.
    assert (
        once[1]
        .replace(',\n      "task_id": "t0"', "")
        .replace(',\n      "task_id": "t1"', "")
        .replace(',\n      "task_id": "t2"', "")
        .replace(str(runs), str(unlabelled))
        == plain[1]
    )
    forced = _report(policy, str(runs), "--repeated")
    assert [t["runs"] for t in forced["tasks"]] == [1, 1, 1]  # type: ignore[attr-defined]
    nothing = _report(policy, str(unlabelled), "--repeated")
    assert nothing["tasks"] == []
    assert {k: nothing["summary"][k] for k in ("tasks", "k_min", "mean_pass_hat_1")} == {  # type: ignore[index]
        "tasks": 0,
        "k_min": None,
        "mean_pass_hat_1": None,
    }
    jsonschema.Draft202012Validator(SCHEMA).validate(nothing)


def test_task_id_from_groups_by_a_group_of_the_trace_id(
    corpus: tuple[Path, Path, dict[str, repeated.Expected]],
    tmp_path: Path,
) -> None:
    policy, runs, _ = corpus
    plain = tmp_path / "plain.jsonl"
    repeated.write_runs(plain, 3, PLANS, labelled=False)
    labelled = _report(policy, str(runs))
    derived = _report(policy, str(plain), "--task-id-from", r"^(.+)-run-[0-9]+$")
    assert derived["tasks"] == labelled["tasks"]
    assert derived["summary"] == labelled["summary"]
    # The pattern wins over the trace's own task id wherever it matches.
    renamed = _report(policy, str(runs), "--task-id-from", r"^(fl|br)")
    assert [t["task_id"] for t in renamed["tasks"]] == ["br", "fl", "single", "solid"]  # type: ignore[attr-defined]
    for bad, why in ((r"^.+-run", "exactly one capturing group"), ("(", "not a valid")):
        code, out, err = cli(
            ["validate", "--policy", str(policy), str(runs), "--task-id-from", bad]
        )
        assert code == 2 and out == "" and why in err  # argparse's message, on the streams given


def test_api_takes_the_same_options(
    corpus: tuple[Path, Path, dict[str, repeated.Expected]],
) -> None:
    policy_path, runs, expected = corpus
    policy = parse_policy(json.loads(policy_path.read_text()))
    run = validate_paths([str(runs)], policy)
    (section,) = run.sections
    assert section.key == "tasks" and len(section.value) == len(expected)
    traces = [json.loads(line) for line in runs.read_text().splitlines()]
    for trace in traces:
        del trace["task_id"]
    again = validate(traces, policy, task_id_from=r"^(.+)-run-[0-9]+$")
    assert again.sections == run.sections
    single = validate([make_trace(tool_call("s1", "x"), response("s2"))], {"policy_id": "p"})
    assert single.sections == ()
    forced = validate([make_trace(response("s1"))], {"policy_id": "p"}, repeated=True)
    assert forced.sections[0].value == []


def test_console_markdown_junit_and_html_show_the_tasks(
    corpus: tuple[Path, Path, dict[str, repeated.Expected]], tmp_path: Path
) -> None:
    policy, runs, expected = corpus
    md, xml, html = tmp_path / "r.md", tmp_path / "r.xml", tmp_path / "r.html"
    code, out, _ = cli(
        [
            "validate",
            "--policy",
            str(policy),
            str(runs),
            "--md-out",
            str(md),
            "--junit-out",
            str(xml),
            "--html-out",
            str(html),
        ]
    )
    assert code == 1
    table = out[out.index("Repeated runs: 4 tasks") :].splitlines()
    assert table[1].split() == [
        "task",
        "runs",
        "passed",
        "pass^1",
        "pass^n",
        "flaky",
        "rules",
        "(fired/runs)",
    ]
    # Worst first: broken (0/5), single (0/1), flaky (6/8), solid (8/8).
    assert [line.split()[0] for line in table[2:6]] == ["broken", "single", "flaky", "solid"]
    assert table[4].split()[1:5] == ["8", "6", "0.750", "0.000"]
    assert "ARH-SCH-005 5/8, ARH-SCH-007 2/8" in table[4]
    text = md.read_text()
    assert "### Repeated runs: 4 tasks, k_min 1; mean pass^1 " in text
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert [row.split("|")[1].strip() for row in rows[:4]] == [
        "`broken`",
        "`single`",
        "`flaky`",
        "`solid`",
    ]
    suites = ET.parse(xml).getroot()
    assert suites.get("tests") == str(sum(e.runs for e in expected.values()))
    named = {s.get("name"): s for s in suites.iter("testsuite")}
    flaky = named[f"arh {json.loads(policy.read_text())['policy_id']} task flaky"]
    assert (flaky.get("tests"), flaky.get("failures")) == ("8", "2")
    props = {p.get("name"): p.get("value") for p in flaky.iter("property")}
    assert props["arh.passed"] == "6" and props["arh.pass_hat_2"] == repr(round(15 / 28, 6))
    assert {c.get("classname") for c in flaky.iter("testcase")} == {"support-copilot.refund.flaky"}
    assert "ARH-SCH-007: fired in 2 of 8 runs (flaky" in (flaky.findtext("system-out") or "")
    first = suites.find("testsuite")
    assert first is not None and first.get("tests") == "0"  # every run belongs to a task
    page = html.read_text()
    assert "Repeated runs: pass^k per task" in page and "Flaky rules" in page


def test_markdown_stays_in_budget_with_many_tasks(tmp_path: Path) -> None:
    long_id = "x" * 300 + "|`*_<@>"
    traces = [
        make_trace(response("s1"), trace_id=f"{i}-{j}", task_id=f"{long_id}{i}")
        for i in range(400)
        for j in range(2)
    ]
    run = validate(traces, {"policy_id": "p"})
    text = get_renderer("run", "md").render(run, RenderOptions())
    assert len(text.encode("utf-8")) <= BUDGET
    assert "_...and 350 more tasks (see the JSON report)._" in text


def test_the_samples_are_what_the_generator_writes(tmp_path: Path) -> None:
    expected = repeated.write_scenario(tmp_path)
    for name in ("policy.json", "baseline.jsonl", "candidate.jsonl"):
        assert (tmp_path / name).read_bytes() == (ROOT / "samples" / "repeated" / name).read_bytes()
    for side in ("baseline", "candidate"):
        report = _report(tmp_path / "policy.json", str(tmp_path / f"{side}.jsonl"))
        tasks = expected[side]
        assert report["tasks"] == [expected_task(t, tasks[t]) for t in sorted(tasks)]
    passed = [
        (e.passed, f.passed)
        for e, f in zip(expected["baseline"].values(), expected["candidate"].values(), strict=True)
    ]
    assert passed == [(7, 2), (5, 4), (4, 1)]  # the acceptance scenario of issue 16


def test_junit_task_suites_name_several_policies_as_the_run_suite_does() -> None:
    from agent_reliability_harness.api import validate  # noqa: PLC0415
    from agent_reliability_harness.render import RenderOptions, junit  # noqa: PLC0415

    policies = [
        {"policy_id": p, "allow_unlisted_tools": True, "applies_to": {"workflow": [p]}}
        for p in ("wa", "wb")
    ]
    runs = [
        {"trace_id": f"r{i}", "agent_name": "a", "workflow": "wa", "task_id": "k", "steps": []}
        for i in range(2)
    ]
    xml = junit.render_run(validate(runs, policies), RenderOptions())
    names = re.findall(r'<testsuite name="([^"]*)"', xml)
    assert names == ["arh policies wa, wb", "arh policies wa, wb task k"]
