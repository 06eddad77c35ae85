"""Fixtures in the shapes Cline and its forks write a task's API history and the Cline SDK
writes a session's messages (no library writes them outside the tools).

- `api_conversation_history.json` (Cline 3.x, native tool calling): Anthropic messages;
  assistant messages carry `modelInfo` {modelId, providerId, mode} and `metrics.tokens`
  {prompt, completion, cached}; each tool result is a text block of the next user message
  (`[<tool> for '<what>'] Result:\\n<output>`), a call Cline refused is `Tool [<tool>] was
  not executed because ...`, `<environment_details>` is appended to each user message.
- The same in XML mode (Cline 2.x, Roo Code): calls are `<tool><param>..</param></tool>`
  tags in the assistant's text, reasoning in `<thinking>`; the result header is its own
  block, the output the next one; the user's feedback comes in `<feedback>`.
- Roo Code with native tools: `tool_result` blocks (by `tool_use_id`), messages with `ts`.
- The SDK's `<id>.messages.json` (contract v1): `{version, updated_at, agent, sessionId,
  messages, system_prompt}`; messages `{id, role, content, ts, metrics, modelInfo}`; tool
  results are `tool_result` blocks whose content is `[{query, result, error}]` (or one as
  JSON text); a prompt's @-mentioned file is a `file` block.
"""

from __future__ import annotations

import json
from typing import Any

_ENV = "<environment_details>\n# VSCode Visible Files\nshop/refunds.py\n</environment_details>"
_INFO = {"modelId": "claude-sonnet-4-5-20250929", "providerId": "anthropic", "mode": "act"}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _use(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": args}


def _assistant(blocks: list[Any], tokens: tuple[int, int, int]) -> dict[str, Any]:
    prompt, completion, cached = tokens
    metrics = {"tokens": {"prompt": prompt, "completion": completion, "cached": cached}}
    return {"role": "assistant", "content": blocks, "modelInfo": _INFO, "metrics": metrics}


def _user(*texts: str) -> dict[str, Any]:
    return {"role": "user", "content": [_text(t) for t in (*texts, _ENV)]}


def native_history() -> list[dict[str, Any]]:
    """Two reads in one message (the second refused), a command that fails, a write the
    user denies, reasoning, and the completion."""
    refused = (
        "Tool [read_file] was not executed because a tool has already been used in this "
        "message. Only one tool may be used per message."
    )
    failure = (
        "The tool execution failed with the following error:\n<error>\n"
        "Command exited with code 1\n</error>"
    )
    done = {"result": "Refunds now round to cents; the test suite still has one failure."}
    return [
        _user("<task>\nFix the refund rounding bug.\n</task>"),
        _assistant(
            [
                {"type": "thinking", "thinking": "Read the module first.", "signature": "sig"},
                _text("Reading the refunds module."),
                _use("toolu_c1", "read_file", {"path": "shop/refunds.py"}),
                _use("toolu_c2", "read_file", {"path": "shop/tax.py"}),
            ],
            (12, 180, 9000),
        ),
        _user("[read_file for 'shop/refunds.py'] Result:\ndef refund(a): return a", refused),
        _assistant(
            [
                _use(
                    "toolu_c3",
                    "execute_command",
                    {"command": "pytest -q", "requires_approval": False},
                )
            ],
            (10, 60, 9400),
        ),
        _user(f"[execute_command for 'pytest -q'] Result:\n{failure}"),
        _assistant(
            [_use("toolu_c4", "write_to_file", {"path": "shop/refunds.py", "content": "x"})],
            (10, 90, 9600),
        ),
        _user("[write_to_file for 'shop/refunds.py'] Result:\nThe user denied this operation."),
        _assistant([_use("toolu_c5", "attempt_completion", done)], (10, 40, 9800)),
    ]


def xml_history() -> list[dict[str, Any]]:
    """XML-mode calls in the assistant's text, the result split over two blocks, and
    the user's feedback on a completion."""
    read = "<thinking>\nThe tax module holds the rate.\n</thinking>\n\n" + (
        "Let me read it.\n\n<read_file>\n<path>shop/tax.py</path>\n</read_file>"
    )
    complete = "<attempt_completion>\n<result>\nThe rate is 20%.\n</result>\n</attempt_completion>"
    feedback = (
        "[attempt_completion] Result:\n\nThe user has provided feedback on the results.\n"
        "<feedback>\nAlso say where it is defined.\n</feedback>"
    )
    return [
        {"role": "user", "content": [_text("<task>\nWhat is the tax rate?\n</task>"), _text(_ENV)]},
        {"role": "assistant", "content": read},
        {
            "role": "user",
            "content": [
                _text("[read_file for 'shop/tax.py'] Result:"),
                _text("TAX_RATE = 0.2"),
                _text(_ENV),
            ],
        },
        {"role": "assistant", "content": complete},
        {"role": "user", "content": [_text(feedback), _text(_ENV)]},
        {"role": "assistant", "content": "It is defined in shop/tax.py, line 1."},
    ]


def roo_native() -> list[dict[str, Any]]:
    """Roo Code with native tool calling: tool_result blocks, messages stamped `ts`."""
    return [
        {
            "role": "user",
            "content": [_text("<task>\nList the shop package.\n</task>"), _text(_ENV)],
            "ts": 1,
        },
        {
            "role": "assistant",
            "content": [_use("toolu_r1", "list_files", {"path": "shop"})],
            "ts": 2,
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_r1", "content": "refunds.py\ntax.py"},
                _text(_ENV),
            ],
            "ts": 3,
        },
        {
            "role": "assistant",
            "content": [_text("The package has refunds.py and tax.py.")],
            "ts": 4,
        },
    ]


def _metrics(ins: int, outs: int, read: int, cost: float) -> dict[str, Any]:
    return {
        "inputTokens": ins,
        "outputTokens": outs,
        "cacheReadTokens": read,
        "cacheWriteTokens": 0,
        "cost": cost,
    }


def sdk_session() -> dict[str, Any]:
    info = {"id": "anthropic/claude-sonnet-4.5", "provider": "cline", "family": "claude-sonnet"}
    failed = [{"query": "npm test", "result": "", "error": "Command exited with code 1"}]
    read = json.dumps({"query": "shop/refunds.py", "result": "def refund(a): ..."})
    return {
        "version": 1,
        "updated_at": "2026-07-15T05:42:04.818Z",
        "agent": "lead",
        "sessionId": "1784094124598_abcde",
        "system_prompt": "You are Cline, an AI coding agent.",
        "messages": [
            {
                "id": "msg_1",
                "role": "user",
                "content": [
                    _text("Fix @shop/refunds.py"),
                    {
                        "type": "file",
                        "path": "/home/dev/shop/refunds.py",
                        "content": "def refund(a): ...",
                    },
                ],
                "ts": 1,
            },
            {
                "id": "msg_2",
                "role": "assistant",
                "content": [
                    _text("Reading it, then running the tests."),
                    _use("toolu_s1", "read_files", {"files": [{"path": "shop/refunds.py"}]}),
                    _use("toolu_s2", "run_commands", {"commands": ["npm test"]}),
                ],
                "ts": 2,
                "metrics": _metrics(3400, 120, 0, 0.0291),
                "modelInfo": info,
            },
            {
                "id": "msg_3",
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_s1",
                        "name": "read_files",
                        "content": read,
                    },
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_s2",
                        "name": "run_commands",
                        "content": failed,
                    },
                ],
                "ts": 3,
            },
            {
                "id": "msg_4",
                "role": "assistant",
                "content": [_text("The tests fail: npm test exits with code 1.")],
                "ts": 4,
                "metrics": _metrics(3900, 30, 3398, 0.0042),
                "modelInfo": info,
            },
        ],
    }


FIXTURES: dict[str, Any] = {
    "cline/task-native.json": native_history(),
    "cline/task-xml.json": xml_history(),
    "cline/roo-native.json": roo_native(),
    "cline/sdk-session.json": sdk_session(),
}


def ui_messages() -> list[dict[str, Any]]:
    """The extension's UI log (`ClineMessage` records): refused, pointing to the history."""
    started = {"request": "<task>...</task>", "tokensIn": 12, "tokensOut": 180, "cost": 0.01}
    return [
        {"ts": 1, "type": "say", "say": "task", "text": "Fix the refund rounding bug."},
        {"ts": 2, "type": "say", "say": "api_req_started", "text": json.dumps(started)},
        {"ts": 3, "type": "say", "say": "text", "text": "Reading the refunds module."},
        {
            "ts": 4,
            "type": "ask",
            "ask": "tool",
            "text": json.dumps({"tool": "readFile", "path": "shop/refunds.py"}),
        },
        {"ts": 5, "type": "say", "say": "completion_result", "text": "Done."},
    ]
