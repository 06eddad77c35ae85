"""Coverage in `arh compare` (policy v1.2 section 6): shown when both reports have a
coverage section, gated only with --max-coverage-drop; the comparison's JSON keeps its v1
bytes otherwise and validates against schemas/compare.schema.json."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from helpers import ROOT, make_trace, response, tool_call

POLICY = {"policy_id": "p", "allowed_tools": {"a": {"required_arguments": {"x": "str"}},
          "b": {}, "c": {}, "d": {}}}  # fmt: skip


def cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, None))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    both = make_trace(tool_call("s1", "a", {"x": "1"}), tool_call("s2", "b", {}), response("s3"))
    fewer = make_trace(tool_call("s1", "a", {"x": "1"}), response("s3"))
    paths = {
        "policy": tmp_path / "p.json",
        "base": tmp_path / "b.json",
        "cand": tmp_path / "c.json",
    }
    paths["policy"].write_text(json.dumps(POLICY))
    paths["base"].write_text(json.dumps(both))
    paths["cand"].write_text(json.dumps(fewer))
    for name, coverage in (("base", True), ("plain", False)):
        report = tmp_path / f"{name}-report.json"
        extra = ["--coverage"] if coverage else []
        cli(["validate", "--policy", str(paths["policy"]), str(paths["base"]), "--quiet",
             "--json-out", str(report), *extra])  # fmt: skip
        paths[f"{name}-report"] = report
    return paths


def _compare(files: dict[str, Path], baseline: str, *more: str) -> tuple[int, str, str]:
    return cli(["compare", "--baseline", str(files[baseline]), "--policy", str(files["policy"]),
                str(files["cand"]), *more])  # fmt: skip


def test_a_drop_is_shown_and_not_gated(files: dict[str, Path]) -> None:
    code, out, err = _compare(files, "base-report")
    assert (code, err) == (0, "")
    assert "tool coverage: 50% -> 25% (down 25 points; no longer called: b)\n" in out


def test_the_gate_fails_only_when_asked(files: dict[str, Path]) -> None:
    code, out, _ = _compare(files, "base-report", "--max-coverage-drop", "25")
    assert code == 0
    code, out, _ = _compare(files, "base-report", "--max-coverage-drop", "10", "--md-out", "-",
                            "--quiet")  # fmt: skip
    assert code == 1
    assert "- tool coverage dropped 25 points (more than --max-coverage-drop 10)" in out


def test_json_has_the_change_only_with_coverage_on_both_sides(
    files: dict[str, Path], tmp_path: Path
) -> None:
    schema = json.loads((ROOT / "schemas/compare.schema.json").read_text())
    target = tmp_path / "cmp.json"
    _compare(files, "base-report", "--json-out", str(target), "--quiet")
    document: dict[str, Any] = json.loads(target.read_text())
    Draft202012Validator(schema).validate(document)
    assert document["coverage"] == {
        "baseline_tool_coverage": 50.0,
        "candidate_tool_coverage": 25.0,
        "baseline_argument_coverage": 100.0,
        "candidate_argument_coverage": 100.0,
        "drop": 25.0,
        "no_longer_called": ["b"],
        "newly_called": [],
    }
    _compare(files, "plain-report", "--json-out", str(target), "--quiet")
    assert "coverage" not in json.loads(target.read_text())
    report = tmp_path / "cand.json"
    cli(["validate", "--policy", str(files["policy"]), str(files["cand"]), "--quiet",
         "--json-out", str(report)])  # fmt: skip
    code, out, _ = cli(["compare", "--baseline", str(files["base-report"]), "--candidate",
                        str(report)])  # fmt: skip
    assert code == 0 and "tool coverage" not in out


def test_a_report_with_a_bad_coverage_key_is_refused(
    files: dict[str, Path], tmp_path: Path
) -> None:
    document = json.loads(files["base-report"].read_text())
    document["coverage"] = []
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    code, _, err = cli(["compare", "--baseline", str(bad), "--candidate", str(bad)])
    assert code == 1 and "coverage: must be an object (got array)" in err


@pytest.mark.parametrize(
    ("tools", "problem"),
    [
        (5, "coverage.tools: must be an array (got number)"),
        (["a"], "coverage.tools[0]: must be an object (got string)"),
        ([{"calls": 1}], "coverage.tools[0].tool: must be a string"),
        ([{"tool": "a", "calls": "1"}], "coverage.tools[0].calls: must be an integer >= 0"),
    ],
)
def test_a_report_with_a_bad_coverage_row_is_one_error(
    files: dict[str, Path], tmp_path: Path, tools: Any, problem: str
) -> None:
    document = json.loads(files["base-report"].read_text())
    document["coverage"]["tools"] = tools
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    code, _, err = cli(["compare", "--baseline", str(bad), "--candidate", str(bad)])
    assert (code, err) == (1, f"error: {bad}: {problem}\n")
