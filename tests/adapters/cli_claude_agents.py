"""Claude Code sub-agents (trace v1.2 `agent` / `parent_step_id`): a session whose agent
runs two Task sub-agents in parallel, their lines inline (`isSidechain`), and the Claude
Agent SDK's stream-json where a sub-agent's messages carry `parent_tool_use_id`."""

from __future__ import annotations

from typing import Any

from cli_claude import _result, _Session, _tool_use

_SID = "7a7a7a7a-3333-4444-8555-966677778888"


def parallel_subagents() -> list[dict[str, Any]]:
    """Two Task calls in one message; each sub-agent's chain starts with its prompt (the
    second one's first, as Claude Code writes whichever sub-agent starts first)."""
    s = _Session(_SID)
    s.user("Compare how refunds and taxes are computed.")
    refunds = {"description": "Refunds", "prompt": "Explain refunds.", "subagent_type": "Explore"}
    taxes = {"description": "Taxes", "prompt": "Explain taxes.", "subagent_type": "code-reviewer"}
    s.assistant("msg_07A", _tool_use("toolu_71", "Task", refunds), (3, 900, 15000, 60))
    s.assistant("msg_07A", _tool_use("toolu_72", "Task", taxes), (3, 900, 15000, 120))
    main = s.parent
    s.sidechain = True
    s.user("Explain taxes.")
    s.assistant(
        "msg_07T", _tool_use("toolu_t1", "Read", {"file_path": "shop/tax.py"}), (5, 0, 0, 9)
    )
    s.user([_result("toolu_t1", "TAX_RATE = 0.2")])
    s.assistant("msg_07U", {"type": "text", "text": "A flat 20% rate."}, (4, 0, 0, 7))
    s.parent = main
    s.user("Explain refunds.")
    s.assistant("msg_07R", {"type": "text", "text": "Refunds are rounded to cents."}, (5, 0, 0, 8))
    s.sidechain = False
    s.parent = main
    s.user([_result("toolu_71", "Refunds are rounded to cents."), _result("toolu_72", "20%.")])
    s.assistant("msg_07B", {"type": "text", "text": "Refunds round; taxes are 20%."}, (1, 0, 0, 9))
    return s.lines


def _message(
    msg_id: str, content: list[dict[str, Any]], parent: str | None, uuid: str
) -> dict[str, Any]:
    return {
        "type": "assistant",
        "message": {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": content,
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 100, "output_tokens": 10},
        },
        "parent_tool_use_id": parent,
        "session_id": _SID,
        "uuid": uuid,
    }


def _results(call_id: str, output: str, parent: str | None, uuid: str) -> dict[str, Any]:
    return {
        "type": "user",
        "message": {"role": "user", "content": [_result(call_id, output)]},
        "parent_tool_use_id": parent,
        "session_id": _SID,
        "uuid": uuid,
    }


def sdk_subagent_stream() -> list[dict[str, Any]]:
    """The Agent SDK streams a sub-agent's messages with the Task call's id."""
    task = {"description": "Find", "prompt": "Find the tax rate.", "subagent_type": "Explore"}
    grep = _tool_use("toolu_s9", "Grep", {"pattern": "TAX_RATE"})
    return [
        {"type": "system", "subtype": "init", "session_id": _SID, "model": "claude-sonnet-4-5"},
        _message("msg_08A", [_tool_use("toolu_81", "Task", task)], None, "u-08a"),
        _message("msg_08S", [grep], "toolu_81", "u-08b"),
        _results("toolu_s9", "shop/tax.py:3:TAX_RATE = 0.2", "toolu_81", "u-08c"),
        _message("msg_08T", [{"type": "text", "text": "shop/tax.py line 3."}], "toolu_81", "u-08d"),
        _results("toolu_81", "shop/tax.py line 3.", None, "u-08e"),
        _message("msg_08B", [{"type": "text", "text": "It is in shop/tax.py."}], None, "u-08f"),
    ]


FIXTURES: dict[str, Any] = {
    "claude-code/session-parallel-subagents.jsonl": parallel_subagents(),
    "claude-code/sdk-subagent-stream.jsonl": sdk_subagent_stream(),
}
