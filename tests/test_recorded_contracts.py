"""`"tool_contracts": "recorded"` (policy v1.2 section 6, ARH-SCH-015) end to end: the
openai-chat and mcp adapters keep the tool definitions the agent was given
(metadata `declared_tools`), and calls are checked against them."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.api import load_traces
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from helpers import ROOT

REAL_MCP = ROOT.parent / "shared/real-runs/2026-12/mcp/derived/goose-replay-server-everything.jsonl"
RECORDED = {"policy_id": "recorded", "schema_version": "1.2", "allow_unlisted_tools": True,
            "tool_contracts": "recorded"}  # fmt: skip
DEFAULT = {"policy_id": "default", "allow_unlisted_tools": True}


def cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, None))
    return code, out.getvalue(), err.getvalue()


def _request(amount: Any) -> dict[str, Any]:
    """A saved Chat Completions request and its conversation, built with the SDK's types."""
    from openai.types.chat import (  # noqa: PLC0415
        ChatCompletionAssistantMessageParam,
        ChatCompletionFunctionToolParam,
        ChatCompletionToolMessageParam,
        ChatCompletionUserMessageParam,
    )

    tool = ChatCompletionFunctionToolParam(
        type="function",
        function={
            "name": "refund",
            "parameters": {
                "type": "object",
                "properties": {"amount": {"type": "number", "maximum": 500}},
                "required": ["amount"],
            },
        },
    )
    call = {"id": "c1", "type": "function",
            "function": {"name": "refund", "arguments": json.dumps({"amount": amount})}}  # fmt: skip
    messages = [
        ChatCompletionUserMessageParam(role="user", content="refund me"),
        ChatCompletionAssistantMessageParam(role="assistant", content=None, tool_calls=[call]),  # type: ignore[list-item]
        ChatCompletionToolMessageParam(role="tool", tool_call_id="c1", content="done"),
        ChatCompletionAssistantMessageParam(role="assistant", content="Refunded."),
    ]
    return {"model": "gpt-4o", "tools": [tool], "messages": messages}


def _validate(tmp_path: Path, policy: dict[str, Any], trace: Path) -> dict[str, Any]:
    path = tmp_path / f"{policy['policy_id']}.json"
    path.write_text(json.dumps(policy))
    _, text, _ = cli(["validate", "--policy", str(path), str(trace), "--quiet", "--json-out", "-"])
    [report] = json.loads(text)["reports"]
    return dict(report)


def test_an_openai_request_records_its_tools_and_calls_are_checked(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(_request(12.5)))
    bad.write_text(json.dumps(_request("12.5")))
    [trace] = load_traces([str(good)])
    assert trace.metadata["declared_tools"][0]["function"]["name"] == "refund"
    assert _validate(tmp_path, RECORDED, good)["findings"] == []
    [finding] = _validate(tmp_path, RECORDED, bad)["findings"]
    assert finding["rule_id"] == "ARH-SCH-015" and finding["step_id"] == "c1"
    assert finding["message"] == (
        "recorded definition: arguments.amount of tool 'refund' must be float (got string)"
    )
    assert _validate(tmp_path, DEFAULT, bad)["findings"] == []


def test_a_bad_tool_contracts_value_is_a_policy_error(tmp_path: Path) -> None:
    policy = tmp_path / "p.json"
    policy.write_text(json.dumps({**RECORDED, "tool_contracts": "given"}))
    code, _, err = cli(["check-policy", str(policy)])
    assert code == 1 and "tool_contracts: must be 'policy' or 'recorded' (got 'given')" in err


@pytest.mark.skipif(not REAL_MCP.exists(), reason="../shared/real-runs is absent")
def test_a_real_mcp_session_passes_its_recorded_definitions_and_a_drift_is_caught(
    tmp_path: Path,
) -> None:
    findings = _validate(tmp_path, RECORDED, REAL_MCP)["findings"]
    assert findings == []  # its sampling exchange is kept in metadata.sampling, not noted
    drifted = tmp_path / "drifted.jsonl"  # a temporary copy, never committed
    lines = REAL_MCP.read_text().splitlines()
    drifted.write_text(
        "\n".join(
            line.replace('"arguments":{"a":1,"b":2}', '"arguments":{"a":"1"}') for line in lines
        )
        + "\n"
    )
    found = _validate(tmp_path, RECORDED, drifted)["findings"]
    recorded = [f["message"] for f in found if f["rule_id"] == "ARH-SCH-015"]
    assert len(recorded) == 2  # a string for a number, b missing


def _declaring(trace_id: str, properties: dict[str, Any]) -> dict[str, Any]:
    tools = [
        {
            "name": "t",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "p": {"type": "object", "properties": properties, "required": list(properties)}
                },
            },
        }
    ]
    return {"schema_version": "1.2", "trace_id": trace_id, "agent_name": "a", "workflow": "w",
            "metadata": {"declared_tools": tools},
            "steps": [{"step_id": "s1", "type": "tool_call", "tool_name": "t",
                       "arguments": {"p": {"a": 1, "b": 2}}}]}  # fmt: skip


def test_definitions_compiled_once_per_evaluator_and_reports_unchanged() -> None:
    from agent_reliability_harness.engine import Evaluator  # noqa: PLC0415
    from agent_reliability_harness.models import Policy  # noqa: PLC0415
    from agent_reliability_harness.models.trace import parse_trace  # noqa: PLC0415
    from agent_reliability_harness.render.json_ import dumps  # noqa: PLC0415
    from agent_reliability_harness.rules import recorded  # noqa: PLC0415

    string = {"type": "string"}
    ab = parse_trace(_declaring("ab", {"a": string, "b": string}))
    ba = parse_trace(_declaring("ba", {"b": string, "a": string}))  # another document
    alone = [dumps(Evaluator(Policy.from_dict(RECORDED)).evaluate(t).to_dict()) for t in (ab, ba)]
    evaluator = Evaluator(Policy.from_dict(RECORDED))
    compiled = []
    real = recorded._compiled

    def counting(declared: list[Any]) -> dict[str, Any]:
        compiled.append(declared)
        return real(declared)

    recorded._compiled = counting  # type: ignore[assignment]
    try:
        together = [dumps(evaluator.evaluate(t).to_dict()) for t in (ab, ba, ab, ba)]
    finally:
        recorded._compiled = real  # type: ignore[assignment]
    assert together == alone * 2
    assert len(compiled) == 2  # each list once; the same list again is not compiled again
