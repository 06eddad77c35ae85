"""Policy warnings end to end: stderr, the `policy_warnings` run section of every report,
and `--strict` / `strict=True` turning them into the load error (policy v1.1 section 2)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agent_reliability_harness import api
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.errors import PolicyError
from agent_reliability_harness.models.policy import load_policy
from agent_reliability_harness.models.policy_warnings import (
    POLICY_WARNINGS,
    policy_warnings,
    warning_text,
)
from helpers import ROOT, SAMPLES, make_trace, response

TRACES = str(SAMPLES / "traces")
TYPO = {"policy_id": "p", "allow_unlisted_tools": True, "sequence": {"forbiden_tools": ["x"]}}
WARNING = "policy sequence.forbiden_tools: unknown key (did you mean 'forbidden_tools'?)"


def run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO(b"")))
    return code, out.getvalue(), err.getvalue()


def write(path: Path, value: Any) -> str:
    path.write_text(json.dumps(value), encoding="utf-8")
    return str(path)


def test_validate_prints_each_warning_and_puts_it_in_the_report(tmp_path: Path) -> None:
    policy = write(tmp_path / "p.json", TYPO)
    report = tmp_path / "r.json"
    code, _, err = run(["validate", "--policy", policy, "--json-out", str(report), TRACES])
    assert code == 0  # a warning alone never fails a run
    assert err.splitlines()[0] == f"warning: {policy}: {WARNING}"
    data = json.loads(report.read_text(encoding="utf-8"))
    assert list(data)[-1] == POLICY_WARNINGS
    assert data[POLICY_WARNINGS] == [
        {
            "source": policy,
            "path": "sequence.forbiden_tools",
            "message": "unknown key (did you mean 'forbidden_tools'?)",
            "policy_ids": ["p"],
        }
    ]
    schema = json.loads((ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema)


def test_a_run_without_warnings_has_no_section(tmp_path: Path) -> None:
    policy = write(tmp_path / "p.json", {"policy_id": "p", "allow_unlisted_tools": True})
    report = tmp_path / "r.json"
    _, _, err = run(["validate", "--policy", policy, "--json-out", str(report), TRACES])
    assert err == "" and POLICY_WARNINGS not in json.loads(report.read_text(encoding="utf-8"))


@pytest.mark.parametrize("command", ["validate", "compare"])
def test_strict_turns_warnings_into_the_load_error(tmp_path: Path, command: str) -> None:
    policy = write(tmp_path / "p.json", TYPO)
    baseline = write(tmp_path / "b.json", {"schema_version": "1", "reports": []})
    args = ["validate"] if command == "validate" else ["compare", "--baseline", baseline]
    code, out, err = run([*args, "--strict", "--policy", policy, TRACES])
    assert code == 1 and out == ""
    assert err.splitlines()[-1] == f"error: invalid policy {policy}: {WARNING}"


def test_compare_saves_the_warnings_with_the_candidate(tmp_path: Path) -> None:
    policy = write(tmp_path / "p.json", TYPO)
    saved = tmp_path / "c.json"
    baseline = write(tmp_path / "b.json", {"schema_version": "1", "reports": []})
    args = ["--policy", policy, "--candidate-json-out", str(saved), "--quiet", "--fail-on"]
    code, _, err = run(["compare", "--baseline", baseline, *args, "never", TRACES])
    assert code == 0 and err == f"warning: {policy}: {WARNING}\n"
    assert json.loads(saved.read_text(encoding="utf-8"))[POLICY_WARNINGS][0]["policy_ids"] == ["p"]


def test_a_base_warning_is_named_by_its_file_and_listed_once(tmp_path: Path) -> None:
    (tmp_path / "base").mkdir()
    base = write(tmp_path / "base" / "b.json", {"budgets": {"max_total_tokns": 5}})
    for name in ("a", "b"):
        write(tmp_path / f"{name}.json", {"policy_id": name, "extends": "base/b.json"})
    code, _, err = run(["validate", "--policy", str(tmp_path), "--quiet", TRACES])
    line = f"warning: {base}: policy budgets.max_total_tokns: unknown key"
    assert err.count(line) == 1, err
    run_report = api.validate_paths(
        [TRACES], [load_policy(tmp_path / "a.json"), load_policy(tmp_path / "b.json")]
    )
    assert [e["policy_ids"] for e in policy_warnings(run_report.sections)] == [["a", "b"]]
    code, _, err = run(["check-policy", str(tmp_path / "a.json")])
    assert code == 0 and err.startswith(f"warning: {base}: policy budgets.max_total_tokns")


def test_unknown_type_names_warn_at_load_and_stay_sch_006() -> None:
    policy = {
        "policy_id": "p",
        "allowed_tools": {"t": {"required_arguments": {"a": "strng"}}},
    }
    trace = make_trace(
        {"step_id": "s1", "type": "tool_call", "tool_name": "t", "arguments": {"a": 1}}
    )
    run_report = api.validate([trace], policy)
    assert [f.rule_id for f in run_report.reports[0].findings] == ["ARH-SCH-006"]
    assert [warning_text(e) for e in policy_warnings(run_report.sections)] == [
        "policy allowed_tools.t.required_arguments.a: unknown type 'strng' (did you mean 'string'?)"
    ]


def test_the_api_reports_warnings_and_refuses_them_under_strict() -> None:
    trace = make_trace(response("r", "done"))
    run_report = api.validate([trace], TYPO)
    assert [warning_text(e) for e in policy_warnings(run_report.sections)] == [WARNING]
    assert json.loads(api.report_json(run_report))[POLICY_WARNINGS][0]["source"] is None
    with pytest.raises(PolicyError, match="forbiden_tools"):
        api.validate([trace], TYPO, strict=True)
    with pytest.raises(PolicyError, match="forbiden_tools"):
        api.validate_trace(trace, TYPO, strict=True)
    compiled = api.policy_from_dict(TYPO)  # a compiled Policy carries no warnings
    assert api.validate([trace], compiled).sections == ()
