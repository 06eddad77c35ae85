"""`arh validate --coverage` (policy v1.2 section 6): the `coverage` section in the JSON
report (golden, the same on every executor, absent without the flag), its Markdown and HTML
renderings (golden), the Python API, and the `--min-tool-coverage` gate."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from agent_reliability_harness.api import validate, validate_paths
from agent_reliability_harness.cli import main, validate_cmd
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.models.policy import load_policy
from agent_reliability_harness.pipeline import executors
from agent_reliability_harness.render import RenderOptions, get_renderer
from helpers import make_trace, response, tool_call

GOLDEN = Path(__file__).resolve().parent / "golden"
OPTIONS = RenderOptions(tool_version="0.0.0-test")
POLICY, TRACES = "tests/data/samples/policy.json", "tests/data/samples/traces"

pytestmark = pytest.mark.usefixtures("at_repo_root")


def cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, None))
    return code, out.getvalue(), err.getvalue()


def _golden(name: str, data: bytes) -> None:
    path = GOLDEN / name
    if os.environ.get("ARH_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    assert data == path.read_bytes(), f"{path} is stale (ARH_UPDATE_GOLDEN=1)"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_json_section_is_golden_on_every_executor(
    jobs: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(executors, "CHUNK_UNITS", 2)  # several partials to merge
    target = tmp_path / "report.json"
    args = ["validate", "--policy", POLICY, TRACES, "--quiet", "--jobs", jobs]
    cli([*args, "--coverage", "--json-out", str(target)])
    _golden("json/coverage.json", target.read_bytes())
    schema = json.loads((GOLDEN.parent.parent / "schemas/report.schema.json").read_text())
    Draft202012Validator(schema).validate(json.loads(target.read_text()))
    plain = tmp_path / "plain.json"
    cli([*args, "--json-out", str(plain)])
    without = json.loads(target.read_text())
    del without["coverage"]
    assert "coverage" not in json.loads(plain.read_text())
    assert json.dumps(without, indent=2) == json.dumps(json.loads(plain.read_text()), indent=2)


def test_markdown_table_is_golden_and_the_api_gives_the_section() -> None:
    report = validate_paths([TRACES], load_policy(POLICY), coverage=True)
    [section] = [s for s in report.sections if s.key == "coverage"]
    assert section.value["allowed_tools"] == 4
    text = get_renderer("run", "md").render(report, OPTIONS)
    _golden("md/coverage.md", text.encode("utf-8"))
    assert "### Tool coverage:" not in get_renderer("run", "md").render(
        validate_paths([TRACES], load_policy(POLICY)), OPTIONS
    )


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_html_page_is_golden(jobs: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(validate_cmd, "__version__", OPTIONS.tool_version)
    monkeypatch.setattr(executors, "CHUNK_UNITS", 2)
    target = tmp_path / "page.html"
    args = ["validate", "--policy", POLICY, TRACES, "--coverage", "--jobs", jobs]
    cli([*args, "--html-out", str(target), "--quiet"])
    _golden("html/coverage.html", target.read_bytes())


POLICY_DOC: dict[str, Any] = {
    "policy_id": "p",
    "allowed_tools": {
        "a": {"required_arguments": {"x": "str"}, "optional_arguments": {"y": "int", "z": "int"}},
        "b": {},
        "c": {},
        "d": {},
    },
}


def _traces() -> list[dict[str, Any]]:
    return [
        make_trace(
            tool_call("s1", "a", {"x": "1", "y": "wrong"}),
            tool_call("s2", "a", {"x": "2"}),
            tool_call("s3", "zz", {}),
            response("s4", "done"),
            trace_id="t1",
        ),
        make_trace(tool_call("s1", "b", {}), response("s2", "ok"), trace_id="t2"),
    ]


def test_counts_calls_traces_arguments_and_rules_per_tool() -> None:
    report = validate(_traces(), POLICY_DOC, coverage=True)
    [section] = [s for s in report.sections if s.key == "coverage"]
    value = section.value
    assert (value["allowed_tools"], value["called_tools"], value["tool_coverage"]) == (4, 2, 50.0)
    assert (value["arguments_declared"], value["arguments_passed"]) == (3, 2)
    assert value["tools"][0] == {
        "tool": "a",
        "calls": 2,
        "traces": 1,
        "arguments_declared": 3,
        "arguments_passed": 2,
        "arguments_never_passed": ["z"],
        "rules": {"ARH-SCH-004": 1},
    }
    assert value["unlisted_tools"] == [{"tool": "zz", "calls": 1, "traces": 1}]
    assert [s.key for s in validate(_traces(), POLICY_DOC).sections] == []
    schema = json.loads((GOLDEN.parent.parent / "schemas/report.schema.json").read_text())
    Draft202012Validator(schema).validate(report.to_dict())


def test_min_tool_coverage_gates_the_run(tmp_path: Path) -> None:
    policy = tmp_path / "p.json"
    policy.write_text(json.dumps(POLICY_DOC))
    good = tmp_path / "t.json"
    good.write_text(json.dumps(_traces()[1]))
    base = ["validate", "--policy", str(policy), str(good), "--quiet"]
    assert cli(base) == (0, "", "")
    assert cli([*base, "--min-tool-coverage", "25"]) == (0, "", "")
    code, _, err = cli([*base, "--min-tool-coverage", "50"])
    assert (code, err) == (1, "error: tool coverage 25% is below --min-tool-coverage 50\n")
    assert cli([*base, "--min-tool-coverage", "101"])[0] == 2


def test_tools_allowed_only_in_agents_entries_are_covered(tmp_path: Path) -> None:
    """Issue 31: a tool allowed only inside an `agents` entry is an allowed tool."""
    policy = tmp_path / "p.json"
    policy.write_text(json.dumps({
        "policy_id": "agents", "schema_version": "1.2", "allowed_tools": {"search": {}},
        "allow_unlisted_tools": True,
        "agents": {"writer": {"allowed_tools": {"publish": {"optional_arguments": {"to": "str"}}}}},
    }))  # fmt: skip
    trace = make_trace(
        tool_call("c1", "search", {}), tool_call("c2", "publish", {"to": "x"}, agent="writer"),
        response("r1"),
    )  # fmt: skip
    path = tmp_path / "t.json"
    path.write_text(json.dumps(trace))
    out = tmp_path / "r.json"
    args = ["validate", "--policy", str(policy), str(path), "--quiet", "--coverage"]
    code, _, err = cli([*args, "--json-out", str(out), "--min-tool-coverage", "100"])
    assert (code, err) == (0, "")
    section = json.loads(out.read_text())["coverage"]
    assert [row["tool"] for row in section["tools"]] == ["publish", "search"]
    assert (section["tool_coverage"], section["unlisted_tools"]) == (100.0, [])
