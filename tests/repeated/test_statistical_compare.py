"""`arh compare` on repeated runs (policy v1.1 section 7), at the CLI: a task regresses
only on a significant drop (one-sided Fisher exact test, p < --alpha), a rule only on a
significant rise; worse but not significant is "inconclusive: too few runs to tell"; one
run per task keeps the v1 compare byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from rep_helpers import cli, repeated, write_policy

from helpers import ROOT

SCHEMA = json.loads((ROOT / "schemas" / "compare.schema.json").read_text())
SAY = "inconclusive: too few runs to tell"


def _side(tmp_path: Path, name: str, seed: int, plans: list[repeated.TaskPlan]) -> Path:
    path = tmp_path / f"{name}.jsonl"
    repeated.write_runs(path, seed, plans)
    return path


def _baseline(tmp_path: Path, policy: Path, runs: Path) -> Path:
    report = tmp_path / "baseline.json"
    code, _, err = cli(
        ["validate", "--policy", str(policy), str(runs), "--quiet", "--json-out", str(report)]
    )
    assert code in (0, 1) and err == ""
    return report


def _compare(tmp_path: Path, before: int, after: int, *extra: str) -> tuple[int, str, dict, str]:
    """Task `t` with `before`/8 then `after`/8 passing runs (the failures: a seeded enum
    fault, ARH-SCH-007), compared at the CLI."""
    policy = write_policy(tmp_path)
    base = _side(tmp_path, "base", 1, [repeated.TaskPlan("t", 8, (("f_enum", 8 - before),))])
    cand = _side(tmp_path, "cand", 2, [repeated.TaskPlan("t", 8, (("f_enum", 8 - after),))])
    report = _baseline(tmp_path, policy, base)
    md = tmp_path / "cmp.md"
    code, out, err = cli(
        [
            "compare",
            "--baseline",
            str(report),
            "--policy",
            str(policy),
            str(cand),
            "--json-out",
            str(tmp_path / "cmp.json"),
            "--md-out",
            str(md),
            *extra,
        ]
    )
    assert err == ""
    comparison = json.loads((tmp_path / "cmp.json").read_text())
    jsonschema.Draft202012Validator(SCHEMA).validate(comparison)
    return code, out, comparison, md.read_text()


def test_a_significant_drop_fails_the_gate(tmp_path: Path) -> None:
    code, out, comparison, md = _compare(tmp_path, 7, 2)
    assert code == 1
    assert comparison["task_changes"] == [
        {
            "task_id": "t",
            "baseline": {"runs": 8, "passed": 7},
            "candidate": {"runs": 8, "passed": 2},
            "p_value": 0.02028,  # 261/12870
            "verdict": "regressed",
        }
    ]
    (rule,) = comparison["rule_changes"]
    assert rule["rule_id"] == "ARH-SCH-007" and rule["verdict"] == "regressed"
    assert (rule["baseline"], rule["candidate"]) == (
        {"runs": 8, "fired_runs": 1},
        {"runs": 8, "fired_runs": 6},
    )
    gate = comparison["gate"]
    assert gate["alpha"] == 0.05 and [r["kind"] for r in gate["reasons"]] == [
        "task_regressed",
        "rule_regressed",
    ]
    assert gate["reasons"][0]["task_id"] == "t" and gate["reasons"][0]["trace_id"] is None
    assert "task 't' passes less often: 7/8 -> 2/8 runs (one-sided Fisher exact p = 0.0203" in out
    assert "[REGRESSED]     task 't'  passed 7/8 -> 2/8  p = 0.0203" in out
    assert "| regressed | `t` | (pass rate) | 7/8 | 2/8 | 0.0203 |  |" in md
    assert SAY not in out
    # The runs are judged by task, never trace by trace (t-run-1 on both sides pairs nothing).
    assert "[PASS->FAIL]" not in out and "8 traces of the compared tasks are judged by task" in out


@pytest.mark.parametrize(
    ("before", "after", "p_value", "shown"), [(5, 4, 0.5, "0.5"), (4, 1, 0.141026, "0.141")]
)
def test_a_drop_that_is_not_significant_is_inconclusive_and_says_so(
    tmp_path: Path, before: int, after: int, p_value: float, shown: str
) -> None:
    code, out, comparison, md = _compare(tmp_path, before, after)
    assert code == 0 and comparison["gate"]["passed"]
    (task,) = comparison["task_changes"]
    assert (task["p_value"], task["verdict"]) == (p_value, "inconclusive")
    line = f"[INCONCLUSIVE]  task 't'  passed {before}/8 -> {after}/8  p = {shown}  ({SAY})"
    assert line in out
    assert f"| inconclusive | `t` | (pass rate) | {before}/8 | {after}/8 | {shown} | {SAY} |" in md
    assert "GATE: PASS (--fail-on regressions, --alpha 0.05)" in out


def test_alpha_sets_the_level_and_improvements_pass(tmp_path: Path) -> None:
    code, out, comparison, _ = _compare(tmp_path, 4, 1, "--alpha", "0.2")
    assert code == 1 and comparison["gate"]["alpha"] == 0.2
    assert comparison["task_changes"][0]["verdict"] == "regressed"
    up = tmp_path / "up"
    up.mkdir()
    code, out, comparison, _ = _compare(up, 2, 7)
    assert code == 0 and comparison["task_changes"][0]["verdict"] == "improved"
    assert comparison["rule_changes"][0]["verdict"] == "improved"
    assert "[IMPROVED]      task 't'  passed 2/8 -> 7/8  p = 0.999" in out


@pytest.mark.parametrize("alpha", ["0", "1", "-0.1", "x", "1/0"])
def test_alpha_must_lie_strictly_between_0_and_1(tmp_path: Path, alpha: str) -> None:
    code, _, err = cli(
        ["compare", "--baseline", "b.json", "--candidate", "c.json", "--alpha", alpha]
    )
    assert code == 2 and "--alpha" in err  # argparse's message, on the streams given


def test_alpha_without_the_regressions_gate_is_warned_about(tmp_path: Path) -> None:
    _code, _out, err = cli(
        [
            "compare",
            "--baseline",
            "b.json",
            "--candidate",
            "c.json",
            "--fail-on",
            "never",
            "--alpha",
            "0.1",
        ]
    )
    assert "warning: --alpha has no effect with --fail-on never" in err


def _strip_tasks(path: Path) -> Path:
    stripped = path.with_name(path.stem + "-plain.jsonl")
    lines = []
    for line in path.read_text().splitlines():
        trace = json.loads(line)
        trace.pop("task_id", None)
        lines.append(json.dumps(trace) + "\n")
    stripped.write_text("".join(lines))
    return stripped


def _all_outputs(tmp_path: Path, base: Path, cand: Path, *extra: str) -> tuple[object, ...]:
    policy = write_policy(tmp_path)
    report = _baseline(tmp_path, policy, base)
    # (The HTML page is left out: its trace index shows each run's task by design.)
    files = [tmp_path / f"out.{fmt}" for fmt in ("json", "md")]
    outputs = ["--json-out", str(files[0]), "--md-out", str(files[1])]
    code, out, err = cli(
        ["compare", "--baseline", str(report), "--policy", str(policy), str(cand), *outputs, *extra]
    )
    return code, out, err, *(f.read_text() for f in files)


def test_one_run_per_task_keeps_the_v1_compare_byte_for_byte(tmp_path: Path) -> None:
    plans = [repeated.TaskPlan(f"t{i}", 1, (("f_enum", i % 2),)) for i in range(6)]
    flipped = [repeated.TaskPlan(f"t{i}", 1, (("f_enum", 1 - i % 2),)) for i in range(6)]
    base, cand = _side(tmp_path, "b", 1, plans), _side(tmp_path, "c", 1, flipped)
    labelled = _all_outputs(tmp_path, base, cand)
    plain = _all_outputs(tmp_path, _strip_tasks(base), _strip_tasks(cand))
    assert labelled[0] == 1 and "task_changes" not in str(labelled[3])
    assert labelled == plain
    # --repeated compares them statistically all the same (1/1 -> 0/1: p = 1/2).
    forced = _all_outputs(tmp_path, base, cand, "--repeated")
    changes = json.loads(str(forced[3]))["task_changes"]
    assert [c["verdict"] for c in changes] == ["inconclusive", "improved"] * 3  # p = 1/2
    assert forced[0] == 0


def test_traces_outside_the_compared_tasks_keep_the_trace_gate(tmp_path: Path) -> None:
    base = _side(tmp_path, "b", 1, [repeated.TaskPlan("t", 4)])
    cand = _side(
        tmp_path, "c", 2, [repeated.TaskPlan("t", 4), repeated.TaskPlan("new", 2, (("f_enum", 1),))]
    )
    loose = json.loads(cand.read_text().splitlines()[-1])
    del loose["task_id"]
    loose["trace_id"] = "loose"
    loose["steps"][0]["tool_name"] = "wire_transfer"  # ARH-SCH-001: fails
    with cand.open("a") as handle:
        handle.write(json.dumps(loose) + "\n")
    code, _out, _err, report, *_ = _all_outputs(tmp_path, base, cand)
    comparison = json.loads(str(report))
    # Only task t is on both sides; the runs of "new" and the loose trace are judged alone.
    assert [c["task_id"] for c in comparison["task_changes"]] == ["t"]
    reasons = comparison["gate"]["reasons"]
    assert {r["kind"] for r in reasons} == {"added_failing_trace", "new_error_finding"}
    assert {r["trace_id"].split("-run-")[0] for r in reasons} == {"loose", "new"}
    assert code == 1


def test_reports_without_task_ids_compare_by_task_id_from(tmp_path: Path) -> None:
    policy = write_policy(tmp_path)
    sides = []
    for name, seed, faulty in (("b", 1, 1), ("c", 2, 6)):
        runs = tmp_path / f"{name}.jsonl"
        repeated.write_runs(runs, seed, [repeated.TaskPlan("t", 8, (("f_enum", faulty),))], False)
        side = tmp_path / name
        side.mkdir()
        sides.append(_baseline(side, policy, runs))
    plain = cli(
        [
            "compare",
            "--baseline",
            str(sides[0]),
            "--candidate",
            str(sides[1]),
            "--json-out",
            "-",
            "--quiet",
        ]
    )
    assert "task_changes" not in plain[1]
    html = tmp_path / "cmp.html"
    code, out, err = cli(
        [
            "compare",
            "--baseline",
            str(sides[0]),
            "--candidate",
            str(sides[1]),
            "--task-id-from",
            "^(t)-run-",
            "--json-out",
            "-",
            "--quiet",
            "--html-out",
            str(html),
        ]
    )
    assert code == 1 and err == ""
    assert [c["verdict"] for c in json.loads(out)["task_changes"]] == ["regressed"]
    page = html.read_text()
    assert "Repeated runs: task changes" in page and "Repeated runs: rule changes per task" in page


def test_the_schema_documents_every_key_of_a_repeated_comparison(tmp_path: Path) -> None:
    _, _, comparison, _ = _compare(tmp_path, 7, 2)
    # `coverage` is written only when both reports carry one (--coverage, policy v1.2 §6).
    schema_keys = set(SCHEMA["properties"]) - {"coverage"}
    assert set(comparison) == schema_keys  # task_changes and rule_changes included
    gate = SCHEMA["properties"]["gate"]["properties"]
    assert set(comparison["gate"]) == set(gate)
    reason = SCHEMA["$defs"]["reason"]["properties"]
    assert all(set(r) == set(reason) for r in comparison["gate"]["reasons"])
    for key, definition in (("task_changes", "task_change"), ("rule_changes", "rule_change")):
        keys = set(SCHEMA["$defs"][definition]["properties"])
        assert all(set(change) == keys for change in comparison[key])
