"""Issue 31: `arh infer --from-tools` on bounds a policy cannot hold. A bound beyond a
float's range, or bounds no value meets (min > max), are listed as not checked; the
policy written is one `check-policy` accepts, and the tool's other arguments are kept."""

from __future__ import annotations

import io
import json
from pathlib import Path

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.models.policy.jsonschema import arguments


def cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


SCHEMA = {
    "type": "object",
    "properties": {
        "huge": {"type": "integer", "maximum": 10**400},
        "none": {"type": "integer", "minimum": 0, "exclusiveMaximum": 0},
        "crossed": {"type": "number", "minimum": 5, "maximum": 1},
        "short": {"type": "string", "minLength": 3, "maxLength": 1},
        "id": {"type": "string"},
    },
    "required": ["huge", "none", "id"],
}


def test_bounds_a_policy_cannot_hold_are_listed() -> None:
    got = arguments(SCHEMA)
    assert got.required == {"huge": {"type": "integer"}, "none": {"type": "integer"},
                            "id": {"type": "string"}}  # fmt: skip
    assert got.optional == {"crossed": {"type": "number"}, "short": {"type": "string"}}
    assert got.untranslated == [
        "optional_arguments.crossed: bounds 5..1 not checked (no value meets them)",
        "required_arguments.huge: maximum 1" + "0" * 56 + "... not checked (not a finite number)",
        "required_arguments.none: bounds 0..-1 not checked (no value meets them)",
        "optional_arguments.short: lengths 3..1 not checked (no value meets them)",
    ]


def test_the_policy_written_is_one_check_policy_accepts(tmp_path: Path) -> None:
    tools, out = tmp_path / "tools.json", tmp_path / "policy.json"
    tools.write_text(json.dumps({"tools": [{"name": "t", "inputSchema": SCHEMA}]}))
    code, _, err = cli(["infer", "--from-tools", str(tools), "--out", str(out), "--quiet"])
    assert code == 0, err
    assert cli(["check-policy", str(out)])[0] == 0


def test_a_server_tool_is_allowed_and_says_its_arguments_warn(tmp_path: Path) -> None:
    """An Anthropic server tool declares no schema: its arguments are ARH-SCH-005
    warnings (as the policy's x-arh-untranslated line and docs/infer.md say), never an
    error."""
    tools, out = tmp_path / "tools.json", tmp_path / "policy.json"
    tools.write_text(json.dumps({"tools": [{"type": "bash_20250124", "name": "bash"}]}))
    assert cli(["infer", "--from-tools", str(tools), "--out", str(out), "--quiet"])[0] == 0
    [line] = json.loads(out.read_text())["allowed_tools"]["bash"]["x-arh-untranslated"]
    assert "ARH-SCH-005" in line
    trace = {"trace_id": "t", "agent_name": "a", "workflow": "w", "steps": [
        {"step_id": "s1", "type": "tool_call", "tool_name": "bash", "arguments": {"cmd": "ls"}},
        {"step_id": "s2", "type": "model_response", "text": "done"}]}  # fmt: skip
    (tmp_path / "t.json").write_text(json.dumps(trace))
    cli(["validate", "--policy", str(out), str(tmp_path / "t.json"), "--quiet",
                      "--json-out", str(tmp_path / "r.json")])  # fmt: skip
    [report] = json.loads((tmp_path / "r.json").read_text())["reports"]
    assert [(f["rule_id"], f["severity"]) for f in report["findings"]] == [
        ("ARH-SCH-005", "warning")
    ]
