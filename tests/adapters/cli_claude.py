"""Fixtures in Claude Code's session JSONL shape (one line per content block, bookkeeping
lines, sidechains) and the Claude Agent SDK's stream-json messages."""

from __future__ import annotations

from typing import Any

SESSION = "6f1c2a9e-3b4d-4e5f-8a7b-1c2d3e4f5a6b"
CWD = "/home/dev/projects/shop"


class _Session:
    """Writes lines the way Claude Code does: uuid chain, one line per block."""

    def __init__(
        self, session: str = SESSION, sidechain: bool = False, agent: str | None = None
    ) -> None:
        self.lines: list[dict[str, Any]] = []
        self.parent: str | None = None
        self.n = 0
        self.session = session
        self.sidechain = sidechain
        self.agent = agent

    def _base(self, kind: str) -> dict[str, Any]:
        self.n += 1
        uuid = f"{self.session[:8]}-0000-4000-8000-{self.n:012d}"
        line: dict[str, Any] = {
            "parentUuid": self.parent,
            "isSidechain": self.sidechain,
            "userType": "external",
            "cwd": CWD,
            "sessionId": self.session,
            "version": "2.1.38",
            "gitBranch": "main",
        }
        if self.agent:
            line["agentId"] = self.agent
        line.update(
            {
                "type": kind,
                "uuid": uuid,
                "timestamp": f"2026-02-10T22:{self.n // 60:02d}:{self.n % 60:02d}.000Z",
            }
        )
        self.parent = uuid
        return line

    def raw(self, line: dict[str, Any]) -> dict[str, Any]:
        self.lines.append(line)
        return line

    def user(self, content: Any, **extra: Any) -> dict[str, Any]:
        return self.raw(
            {**self._base("user"), "message": {"role": "user", "content": content}, **extra}
        )

    def assistant(
        self, msg_id: str, block: dict[str, Any], usage: tuple[int, int, int, int], **extra: Any
    ) -> dict[str, Any]:
        fresh, created, read, out = usage
        message = {
            "model": "claude-opus-4-6",
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {
                "input_tokens": fresh,
                "cache_creation_input_tokens": created,
                "cache_read_input_tokens": read,
                "output_tokens": out,
                "service_tier": "standard",
            },
        }
        return self.raw(
            {
                **self._base("assistant"),
                "message": message,
                "requestId": f"req_{msg_id[-6:]}",
                **extra,
            }
        )

    def progress(self, tool_use_id: str, hook: str) -> dict[str, Any]:
        data = {
            "type": "hook_progress",
            "hookEvent": "PreToolUse",
            "hookName": hook,
            "command": "bd prime",
        }
        return self.raw(
            {
                **self._base("progress"),
                "data": data,
                "parentToolUseID": tool_use_id,
                "toolUseID": tool_use_id,
            }
        )

    def attachment(self, kind: str, **fields: Any) -> dict[str, Any]:
        """An attachment line (2.1.x): context Claude Code adds to the model's input."""
        return self.raw({**self._base("attachment"), "attachment": {"type": kind, **fields}})


def _tool_use(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": call_id,
        "name": name,
        "input": args,
        "caller": {"type": "direct"},
    }


def _result(call_id: str, content: Any, is_error: bool = False) -> dict[str, Any]:
    return {"tool_use_id": call_id, "type": "tool_result", "content": content, "is_error": is_error}


def clean() -> list[dict[str, Any]]:
    s = _Session()
    s.raw(
        {
            "type": "file-history-snapshot",
            "messageId": "m0",
            "snapshot": {
                "messageId": "m0",
                "trackedFileBackups": {},
                "timestamp": "2026-02-10T22:57:54.764Z",
            },
            "isSnapshotUpdate": False,
        }
    )
    s.user("Run the test suite and tell me what fails.", permissionMode="default", todos=[])
    msg = "msg_01A"
    s.assistant(
        msg,
        {"type": "thinking", "thinking": "Run pytest first.", "signature": "EpoB"},
        (3, 8037, 17842, 10),
    )
    s.assistant(msg, {"type": "text", "text": "I'll run the tests."}, (3, 8037, 17842, 10))
    s.assistant(
        msg,
        _tool_use("toolu_01", "Bash", {"command": "pytest -q", "description": "Run tests"}),
        (3, 8037, 17842, 96),
    )
    s.progress("toolu_01", "PreToolUse:Bash")
    s.user(
        [_result("toolu_01", "2 failed, 40 passed")],
        toolUseResult={"stdout": "2 failed, 40 passed", "stderr": "", "interrupted": False},
    )
    s.assistant(
        "msg_01B",
        {"type": "text", "text": "Two tests fail: test_refund and test_tax."},
        (1, 208, 25879, 19),
    )
    s.raw({**s._base("system"), "subtype": "turn_duration", "durationMs": 8123})
    s.raw({"type": "summary", "summary": "Run the shop test suite", "leafUuid": s.parent})
    return s.lines


def parallel_errors() -> list[dict[str, Any]]:
    """Parallel tool_use blocks of one message, a result written before the next block,
    an error result, list-shaped results, an image, a repeated line and unknown lines."""
    s = _Session("0b7e5d3c-1111-4222-8333-944455556666")
    s.raw(
        {
            "type": "queue-operation",
            "operation": "enqueue",
            "timestamp": "2026-02-10T22:57:58.381Z",
            "sessionId": s.session,
            "content": "/mcp",
        }
    )
    s.user(
        [
            {"type": "text", "text": "Read config.toml and missing.toml."},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
            },
        ]
    )
    msg = "msg_02A"
    s.assistant(
        msg, _tool_use("toolu_11", "Read", {"file_path": f"{CWD}/config.toml"}), (2, 500, 12000, 30)
    )
    s.user(
        [
            _result(
                "toolu_11",
                [
                    {"type": "text", "text": "     1→[shop]"},
                    {"type": "text", "text": '     2→currency = "EUR"'},
                ],
            )
        ]
    )
    repeated = s.assistant(
        msg,
        _tool_use("toolu_12", "Read", {"file_path": f"{CWD}/missing.toml"}),
        (2, 500, 12000, 61),
    )
    s.raw(dict(repeated))
    s.user([_result("toolu_12", "<tool_use_error>File does not exist.</tool_use_error>", True)])
    s.raw(
        {
            "type": "queue-operation",
            "operation": "remove",
            "timestamp": "2026-02-10T22:58:59.116Z",
            "sessionId": s.session,
        }
    )
    s.raw({"type": "mystery-line", "sessionId": s.session, "payload": 1})
    s.assistant(
        "msg_02B",
        {"type": "text", "text": "config.toml sets EUR; missing.toml does not exist."},
        (1, 300, 12500, 22),
    )
    return s.lines


def sidechain() -> list[dict[str, Any]]:
    """An older session with its sub-agent's lines inline (`isSidechain: true`)."""
    s = _Session("5a5a5a5a-2222-4333-8444-955566667777")
    s.user("Find where the tax rate is defined.")
    s.assistant(
        "msg_03A",
        _tool_use(
            "toolu_21",
            "Task",
            {
                "description": "Find tax rate",
                "prompt": "Search the code for the tax rate.",
                "subagent_type": "Explore",
            },
        ),
        (3, 900, 15000, 80),
    )
    s.sidechain = True
    s.user("Search the code for the tax rate.")
    s.assistant(
        "msg_03S1", _tool_use("toolu_s1", "Grep", {"pattern": "TAX_RATE"}), (5, 2000, 0, 40)
    )
    s.user([_result("toolu_s1", "shop/tax.py:3:TAX_RATE = 0.2")])
    s.assistant(
        "msg_03S2",
        {"type": "text", "text": "TAX_RATE is defined in shop/tax.py line 3."},
        (4, 100, 2000, 15),
    )
    s.sidechain = False
    s.user(
        [
            _result(
                "toolu_21", [{"type": "text", "text": "TAX_RATE is defined in shop/tax.py line 3."}]
            )
        ]
    )
    s.assistant(
        "msg_03B",
        {"type": "text", "text": "It is in shop/tax.py (TAX_RATE = 0.2)."},
        (1, 150, 16000, 18),
    )
    return s.lines


def subagent_file() -> list[dict[str, Any]]:
    """A sub-agent's own file (`<session>/subagents/agent-<id>.jsonl`)."""
    s = _Session(SESSION, sidechain=True, agent="a1b2c3d")
    s.user("Explore the refunds module and summarise it.")
    s.assistant(
        "msg_04A",
        _tool_use("toolu_31", "Glob", {"pattern": "shop/refunds/**/*.py"}),
        (3, 4000, 0, 25),
    )
    s.user([_result("toolu_31", "shop/refunds/api.py\nshop/refunds/models.py")])
    s.assistant(
        "msg_04B", {"type": "text", "text": "Two modules: api.py and models.py."}, (1, 60, 4000, 12)
    )
    return s.lines


def truncated() -> list[dict[str, Any]]:
    """A session cut off mid-turn: a thinking-only message and a call with no result."""
    s = _Session("9c9c9c9c-3333-4444-8555-a66677778888")
    s.user("Deploy the staging branch.")
    s.assistant("msg_05A", {"type": "redacted_thinking", "data": "EuYBCkQYAiJA"}, (3, 700, 9000, 5))
    s.assistant(
        "msg_05B",
        _tool_use("toolu_41", "Bash", {"command": "make deploy-staging"}),
        (1, 80, 9700, 33),
    )
    return s.lines


def thinking() -> list[dict[str, Any]]:
    """Interleaved thinking as recent versions write it: a message whose text is split by a
    thinking block (one response step, as the Messages API reads it), one whose thinking
    leads straight to a tool call (no text step is invented), hook progress in between."""
    s = _Session("5e5e5e5e-1111-4222-8333-944455556666")
    s.user("Why does `mix phx.server` fail?")
    msg = "msg_07A"
    s.assistant(msg, {"type": "text", "text": "\n\n"}, (3, 5200, 20150, 13))
    s.assistant(
        msg,
        {"type": "thinking", "thinking": "Check the config.", "signature": "Eq8"},
        (3, 5200, 20150, 13),
    )
    s.assistant(msg, {"type": "text", "text": "Let me look at the config."}, (3, 5200, 20150, 13))
    s.assistant(
        msg, _tool_use("toolu_71", "Read", {"file_path": "config/dev.exs"}), (3, 5200, 20150, 13)
    )
    s.progress("toolu_71", "PreToolUse:Read")
    s.assistant(
        msg, _tool_use("toolu_72", "Bash", {"command": "mix compile"}), (3, 5200, 20150, 88)
    )
    s.user([_result("toolu_71", "import Config")])
    s.user([_result("toolu_72", "** (Mix) Could not compile dependency :bcrypt", True)])
    msg = "msg_07B"
    s.assistant(
        msg,
        {"type": "thinking", "thinking": "bcrypt needs a C compiler.", "signature": "Eq9"},
        (1, 300, 25400, 20),
    )
    s.assistant(msg, _tool_use("toolu_73", "Bash", {"command": "which cc"}), (1, 300, 25400, 41))
    s.user([_result("toolu_73", "")])
    s.assistant(
        "msg_07C", {"type": "text", "text": "Install a C compiler first."}, (1, 60, 25750, 9)
    )
    return s.lines


def attachments() -> list[dict[str, Any]]:
    """A 2.1.x session with attachment lines: listings, hook output and reminders are
    bookkeeping; prompts queued while the agent worked are inputs (an image in one is a
    note); failed hooks are notes. It starts with an attachment line."""
    s = _Session("2b9d8116-5555-4666-8777-c88899990000")
    s.attachment(
        "deferred_tools_delta", addedNames=["WebFetch"], addedLines=["WebFetch"], removedNames=[]
    )
    s.user("Add a test for the refund rounding.")
    s.attachment("skill_listing", content="- init: Initialize CLAUDE.md", skillCount=1)
    hook = {"hookName": "UserPromptSubmit", "hookEvent": "UserPromptSubmit", "command": "./log.sh"}
    s.attachment("hook_success", **hook, stdout="", stderr="", exitCode=0, durationMs=12)
    msg = "msg_08A"
    s.assistant(
        msg, _tool_use("toolu_81", "Read", {"file_path": "shop/refunds.py"}), (3, 4100, 0, 40)
    )
    pre = {"hookName": "PreToolUse:Read", "hookEvent": "PreToolUse", "toolUseID": "toolu_81"}
    s.attachment(
        "hook_non_blocking_error", **pre, stderr="log.sh: not found", exitCode=127, durationMs=3
    )
    s.user([_result("toolu_81", "def refund(amount): return round(amount, 2)")])
    s.attachment("queued_command", prompt="Use pytest, not unittest.", commandMode="prompt")
    image = {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}
    queued = s.attachment(
        "queued_command",
        prompt=[{"type": "image", "source": image}, {"type": "text", "text": "Like this one."}],
        commandMode="prompt",
    )
    s.raw(dict(queued))  # the same line again (same uuid)
    s.attachment("todo_reminder", content=[], itemCount=0)
    stop = {"hookName": "Stop", "hookEvent": "Stop", "command": "./check.sh"}
    s.attachment("hook_blocking_error", **stop, blockingError={"blockingError": "lint failed"})
    s.assistant(
        "msg_08B",
        {"type": "text", "text": "Added tests/test_refunds.py using pytest."},
        (1, 200, 4100, 30),
    )
    s.attachment("hook_success", **stop, stdout="{}", stderr="", exitCode=0, durationMs=9)
    return s.lines


# The Agent SDK's messages as `--output-format stream-json` writes them.
_SID = "d3adb33f-4444-4555-8666-b77788889999"
SDK_STREAM = [
    {
        "type": "system",
        "subtype": "init",
        "cwd": CWD,
        "session_id": _SID,
        "tools": ["Bash", "Read"],
        "model": "claude-sonnet-4-5",
        "permissionMode": "default",
    },
    {
        "type": "assistant",
        "message": {
            "id": "msg_06A",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [
                {"type": "text", "text": "Checking the version."},
                _tool_use("toolu_51", "Bash", {"command": "python --version"}),
            ],
            "stop_reason": "tool_use",
            "usage": {
                "input_tokens": 1500,
                "output_tokens": 40,
                "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 0,
            },
        },
        "parent_tool_use_id": None,
        "session_id": _SID,
        "uuid": "u-06a",
    },
    {
        "type": "user",
        "message": {"role": "user", "content": [_result("toolu_51", "Python 3.11.7")]},
        "parent_tool_use_id": None,
        "session_id": _SID,
        "uuid": "u-06b",
    },
    {
        "type": "assistant",
        "message": {
            "id": "msg_06B",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "Python 3.11.7 is installed."}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1600, "output_tokens": 12},
        },
        "parent_tool_use_id": None,
        "session_id": _SID,
        "uuid": "u-06c",
    },
    {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "duration_ms": 5210,
        "duration_api_ms": 4100,
        "num_turns": 2,
        "result": "Python 3.11.7 is installed.",
        "session_id": _SID,
        "total_cost_usd": 0.0123,
        "usage": {"input_tokens": 3100, "output_tokens": 52},
    },
]


FIXTURES: dict[str, Any] = {
    "claude-code/session-clean.jsonl": clean(),
    "claude-code/session-parallel-errors.jsonl": parallel_errors(),
    "claude-code/session-sidechain.jsonl": sidechain(),
    "claude-code/agent-a1b2c3d.jsonl": subagent_file(),
    "claude-code/session-truncated.jsonl": truncated(),
    "claude-code/session-thinking.jsonl": thinking(),
    "claude-code/session-attachments.jsonl": attachments(),
    "claude-code/sdk-stream.jsonl": SDK_STREAM,
    "claude-code/session-array.json": clean(),
}
