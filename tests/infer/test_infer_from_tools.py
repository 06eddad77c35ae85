"""`arh infer --from-tools FILE`: tool definitions built with the vendors' SDK types (MCP
`Tool`, OpenAI `ChatCompletionFunctionTool` / Responses `FunctionTool`, Anthropic
`ToolParam`) give policies that pass the good runs and catch a wrong-type argument; what
JSON Schema says that the policy cannot is listed, never dropped."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import corpus
import pytest

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.models.policy import load_policy
from agent_reliability_harness.models.policy.jsonschema import MAX_SCHEMAS, arguments
from agent_reliability_harness.models.policy.tooldefs import parse_tool_defs
from helpers import make_trace, response, tool_call

REAL_MCP = (
    Path(__file__).resolve().parents[2].parent
    / "shared/real-runs/2026-12/mcp/derived/goose-replay-server-everything.jsonl"
)

ORDER_ID = {"type": "string", "pattern": "^ORD-[0-9]{4,6}$"}
# The JSON Schemas of the generated corpus's tools (benchmarks/corpus.py), as a tool
# server would declare them.
SCHEMAS: dict[str, dict[str, Any]] = {
    "get_customer": {
        "properties": {"customer_id": {"type": "string"}},
        "required": ["customer_id"],
    },
    "lookup_order": {"properties": {"order_id": ORDER_ID}, "required": ["order_id"]},
    "search_kb": {
        "properties": {
            "query": {"type": "string", "minLength": 1},
            "top_k": {"type": "integer", "minimum": 1, "maximum": 10},
        },
        "required": ["query"],
    },
    "fetch_doc": {"properties": {"url": {"type": "string", "format": "uri"}}, "required": ["url"]},
    "issue_refund": {
        "properties": {
            "order_id": ORDER_ID,
            "amount": {"type": "number", "minimum": 0, "maximum": 500},
            "currency": {"type": "string", "enum": ["USD", "EUR", "GBP"]},
            "reason": {"type": "string"},
        },
        "required": ["order_id", "amount", "currency"],
    },
    "update_address": {
        "properties": {"customer_id": {"type": "string"}, "address": {"type": "object"}},
        "required": ["customer_id", "address"],
    },
    "send_email": {
        "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
        "required": ["to", "body"],
    },
    "delete_account": {
        "properties": {"customer_id": {"type": "string"}},
        "required": ["customer_id"],
    },
}


def _object(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", **schema}


def mcp_tools() -> Any:
    from mcp.types import ListToolsResult, Tool  # noqa: PLC0415

    tools = [Tool(name=n, inputSchema=_object(s)) for n, s in SCHEMAS.items()]
    return ListToolsResult(tools=tools).model_dump(mode="json", by_alias=True, exclude_none=True)


def openai_tools() -> Any:
    from openai.types.chat import ChatCompletionFunctionTool  # noqa: PLC0415
    from openai.types.responses import FunctionTool  # noqa: PLC0415

    chat = [
        ChatCompletionFunctionTool(
            type="function", function={"name": n, "parameters": _object(s)}
        ).model_dump(mode="json", exclude_none=True)
        for n, s in list(SCHEMAS.items())[:4]
    ]
    flat = [  # the Responses API's form, in the same array
        FunctionTool(type="function", name=n, parameters=_object(s), strict=False).model_dump(
            mode="json", exclude_none=True
        )
        for n, s in list(SCHEMAS.items())[4:]
    ]
    return chat + flat


def anthropic_tools() -> Any:
    from anthropic.types import ToolParam  # noqa: PLC0415

    return [ToolParam(name=n, input_schema=_object(s)) for n, s in SCHEMAS.items()]


def cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def _runs(path: Path) -> Path:
    with path.open("w") as handle:
        for trace, expected in corpus.iter_corpus(9, 120):
            trace["outcome"] = {"success": not expected}
            handle.write(json.dumps(trace) + "\n")
    return path


def _reports(policy: Path, runs: Path) -> list[dict[str, Any]]:
    _, text, _ = cli(["validate", "--policy", str(policy), str(runs), "--json-out", "-", "--quiet"])
    return list(json.loads(text)["reports"])


WRONG = make_trace(
    tool_call("s1", "issue_refund", {"order_id": "ORD-1234", "amount": "12", "currency": "USD"}),
    response("s2", "done"),
    trace_id="wrong-type",
)


@pytest.mark.parametrize("build", [mcp_tools, openai_tools, anthropic_tools])
def test_the_policy_passes_the_good_runs_and_catches_a_wrong_type(
    build: Any, tmp_path: Path
) -> None:
    tools, out = tmp_path / "tools.json", tmp_path / "policy.json"
    tools.write_text(json.dumps(build()))
    code, text, err = cli(["infer", "--from-tools", str(tools), "--out", str(out)])
    assert code == 0, err
    assert err == (
        "warning: tools.json: tool 'fetch_doc': required_arguments.url: format \"uri\" not "
        "checked (the policy cannot check it)\n"
    )
    assert "policy inferred: 8 tools, 14 argument specs (1 enums, 2 patterns, 2 ranges)" in text
    loaded = load_policy(str(out))
    assert loaded.warnings == ()
    document = json.loads(out.read_text())
    refund = document["allowed_tools"]["issue_refund"]
    assert refund["required_arguments"]["order_id"] == {
        "type": "string",
        "pattern": "ORD-[0-9]{4,6}",
    }
    assert refund["optional_arguments"] == {"reason": {"type": "string"}}
    assert document["allowed_tools"]["fetch_doc"]["x-arh-untranslated"] == [
        'required_arguments.url: format "uri" not checked'
    ]
    runs = _runs(tmp_path / "runs.jsonl")
    good = [r for r in _reports(out, runs) if r["outcome"]["success"]]
    assert good and all(
        not any(
            f["rule_id"].startswith("ARH-SCH") and f["severity"] == "error" for f in r["findings"]
        )
        for r in good
    )
    (tmp_path / "wrong.json").write_text(json.dumps(WRONG))
    [report] = _reports(out, tmp_path / "wrong.json")
    assert not report["passed"]
    assert [f["rule_id"] for f in report["findings"]] == ["ARH-SCH-004"]


def test_combined_with_good_runs_the_runs_add_limits_and_the_check_passes(tmp_path: Path) -> None:
    tools, out = tmp_path / "tools.json", tmp_path / "policy.json"
    tools.write_text(json.dumps(mcp_tools()))
    runs = _runs(tmp_path / "runs.jsonl")
    code, text, err = cli(["infer", "--from-tools", str(tools), str(runs), "--out", str(out)])
    assert code == 0 and "format" in err
    good = int(text.split()[2])
    assert f"check: the policy passes {good} of {good} good runs" in text
    document = json.loads(out.read_text())
    assert (
        "argument contracts from the 8 tool definitions in tools.json (mcp)"
        in document["description"]
    )
    refund = document["allowed_tools"]["issue_refund"]
    assert refund["required_arguments"]["currency"]["enum"] == ["USD", "EUR", "GBP"]
    assert "max_calls" in refund and refund["description"].startswith("defined in tools.json")
    again = tmp_path / "again.json"
    cli(["infer", "--from-tools", str(tools), str(runs), "--out", str(again)])
    assert again.read_bytes() == out.read_bytes()


def test_what_the_vocabulary_cannot_say_is_listed() -> None:
    schema = {
        "type": "object",
        "$defs": {"Pax": {"type": "object", "properties": {"dob": {"type": "string"}}}},
        "properties": {
            "when": {"type": "string", "format": "date-time", "description": "ignored"},
            "pax": {"type": "array", "items": {"$ref": "#/$defs/Pax"}, "minItems": 1},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "n": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10.5},
            "x": {"type": "number", "exclusiveMaximum": 1},
            "tag": {"type": ["string", "null"], "pattern": "a+", "maxLength": 3},
            "kind": {"const": "k"},
            "meta": {"type": "object", "additionalProperties": False, "required": ["a", "a"]},
            "far": {"$ref": "other.json#/x"},
        },
        "required": ["when", "pax"],
        "additionalProperties": True,
    }
    args = arguments(schema)
    assert args.required == {
        "pax": {
            "type": "array",
            "min_length": 1,
            "items": {"type": "object", "properties": {"dob": {"type": "string"}}},
        },
        "when": {"type": "string"},
    }
    assert args.optional == {
        "far": {},
        "kind": {"enum": ["k"]},
        "meta": {"type": "object", "required": ["a"]},
        "n": {"type": "integer", "min": 1, "max": 10},
        "note": {},
        "tag": {"pattern": "(?s:.*)(?:a+)(?s:.*)"},
        "x": {"type": "number"},
    }
    assert args.untranslated == [
        'optional_arguments.far: $ref "other.json#/x" not resolved (remote, missing or recursive)',
        "optional_arguments.meta: additionalProperties false not checked (other keys pass)",
        'optional_arguments.note: anyOf [{"type": "string"}, {"type": "null"}] not checked',
        'optional_arguments.tag: type ["string", "null"] not checked (a union, null or unknown type)',
        "optional_arguments.tag: maxLength 3 not checked (needs type 'string')",
        'required_arguments.when: format "date-time" not checked',
        "optional_arguments.x: exclusiveMaximum 1 not checked (an exclusive bound)",
        "arguments: additionalProperties true: other arguments warn (ARH-SCH-005)",
    ]


def test_entries_that_are_not_tools() -> None:
    defs = parse_tool_defs(
        [{"type": "web_search"}, {"type": "function"}, 3, {"name": "a", "input_schema": {}},
         {"name": "a", "inputSchema": {}}, {"type": "bash_20250124", "name": "bash"}],
        "t.json",
    )  # fmt: skip
    assert [t.name for t in defs.tools] == ["a", "bash"]
    assert defs.notes == ["[0]: built-in tool type 'web_search' has no name; not in the policy"]
    assert defs.problems == [
        "[1]: a tool needs a non-empty string name (got null)",
        "[2]: a tool must be an object (got number)",
        "[4]: tool 'a' is defined twice (first at [3])",
    ]


def test_cli_errors_and_misuse(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"tools": [{"name": "ok", "inputSchema": {}}, {"inputSchema": {}}]}')
    out = tmp_path / "p.json"
    code, _, err = cli(["infer", "--from-tools", str(bad), "--out", str(out), "--quiet"])
    assert code == 1 and out.exists()
    assert err == f"error: {bad}: tools[1]: a tool needs a non-empty string name (got null)\n"
    (tmp_path / "no.json").write_text('{"a": 1}')
    code, _, err = cli(["infer", "--from-tools", str(tmp_path / "no.json"), "--out", str(out)])
    assert code == 1 and err.startswith(f"error: {tmp_path / 'no.json'}: must be a tools list")
    assert cli(["infer", "--out", str(out)])[0] == 2
    assert cli(["infer", "--from-tools", str(bad), "--out-dir", str(tmp_path / "d")])[0] == 2


@pytest.mark.skipif(not REAL_MCP.exists(), reason="../shared/real-runs is absent")
def test_a_real_mcp_servers_tools_list_gives_a_policy_its_session_passes(tmp_path: Path) -> None:
    lines = [json.loads(line) for line in REAL_MCP.read_text().splitlines() if line.strip()]
    listed = next(d for d in lines if "tools" in (d.get("result") or {}))
    tools, out = tmp_path / "tools.json", tmp_path / "policy.json"
    tools.write_text(json.dumps(listed))  # the JSON-RPC response as recorded
    assert cli(["infer", "--from-tools", str(tools), "--out", str(out)])[0] == 0
    assert len(json.loads(out.read_text())["allowed_tools"]) == len(listed["result"]["tools"])
    code, _, _ = cli(["validate", "--policy", str(out), str(REAL_MCP), "--quiet"])
    assert code == 0


def test_a_recursive_schema_is_expanded_once_along_each_path() -> None:
    # A tree whose children are trees: each `$ref` to a schema being expanded above it is
    # recursive (listed, read as {}), so the work stays linear in the schema; it was
    # expanded to MAX_DEPTH levels along every branch (2**30 nodes for two children).
    node = {
        "type": "object",
        "properties": {"id": {"type": "string"}, "left": {"$ref": "#"}, "right": {"$ref": "#"}},
        "required": ["id"],
    }
    args = arguments(node)
    assert args.required == {"id": {"type": "string"}}
    assert args.optional == {"left": {}, "right": {}}
    assert args.untranslated == [
        f'optional_arguments.{side}: $ref "#" not resolved (remote, missing or recursive)'
        for side in ("left", "right")
    ]
    schema = {
        "type": "object",
        "$defs": {
            "Filter": {
                "type": "object",
                "properties": {
                    "field": {"type": "string"},
                    "any": {"items": {"$ref": "#/$defs/Filter"}, "type": "array"},
                },
            }
        },
        "properties": {"where": {"$ref": "#/$defs/Filter"}, "also": {"$ref": "#/$defs/Filter"}},
    }
    args = arguments(schema)
    filter_spec = {
        "type": "object",
        "properties": {"field": {"type": "string"}, "any": {"type": "array"}},
    }
    assert args.optional == {"also": filter_spec, "where": filter_spec}
    assert args.untranslated == [
        f'optional_arguments.{name}.properties.any.items: $ref "#/$defs/Filter" not resolved '
        "(remote, missing or recursive)"
        for name in ("also", "where")
    ]


def test_shared_references_expand_to_a_bounded_number_of_schemas() -> None:
    # No recursion, but each definition refers to the next twice: 2**25 schemas inlined.
    defs = {
        f"D{n}": {
            "type": "object",
            "properties": {"a": {"$ref": f"#/$defs/D{n + 1}"}, "b": {"$ref": f"#/$defs/D{n + 1}"}},
        }
        for n in range(25)
    }
    defs["D25"] = {"type": "string"}
    args = arguments({"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/D0"}}})
    assert args.optional["x"]["type"] == "object"
    assert args.untranslated == [
        "optional_arguments.x"
        + "".join(f".properties.{side}" for side in "aaaaaaaaaaaabaabbbaa")
        + f": more than {MAX_SCHEMAS} schemas; this one and the rest not checked"
    ]
