"""Losses found by the real-run sweep in formats ARH already claims (issue 25, part 3).

Each case is built from the format's documented schema or the vendor's own code paths
(Codex's codex-rs output texts, Inspect's EvalLog classes, LangSmith's batch payload, the
OpenTelemetry JS ReadableSpan), never from the real files."""

from __future__ import annotations

import json
from typing import Any

import cli_codex as cx

from agent_reliability_harness.adapters import BY_NAME, convert_session


def _session(fmt: str, lines: list[dict[str, Any]]) -> dict[str, Any]:
    (trace,) = convert_session(BY_NAME[fmt], iter(enumerate(lines, 1)), "s")
    return trace


def _turn(n: int) -> dict[str, Any]:
    return cx._line(n, "turn_context", {"cwd": "/w", "model": "gpt-5-codex"})


# Codex 0.40 (codex-rs core/src/codex.rs) answers a call it could not run with text, the
# payload's `success` flag not being written to the rollout: a sandbox denial with
# approval policy never/on-request, any other exec failure, a patch the user rejected.
_SANDBOX = "failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error"
_CODEX_040 = [
    cx._line(0, "session_meta", {"id": "r040", "cwd": "/w", "cli_version": "0.40.0"}),
    cx._line(1, "response_item", cx._text("user", "Fix the build.")),
    _turn(2),
    cx._tokens(3, (1000, 0, 10), (1000, 0, 10)),  # this request's usage, before its items
    cx._line(4, "response_item", {"type": "reasoning", "summary": [], "encrypted_content": "g"}),
    cx._line(5, "response_item", cx._fn("call_1", "shell", {"command": ["make"]})),
    cx._line(6, "response_item", cx._out("call_1", _SANDBOX)),
    _turn(7),
    cx._tokens(8, (2100, 0, 30), (1100, 0, 20)),
    cx._line(9, "response_item", cx._fn("call_2", "shell", {"command": ["mkae"]})),
    cx._line(10, "response_item", cx._out("call_2", "execution error: No such file (os error 2)")),
    _turn(11),
    cx._tokens(12, (3300, 0, 60), (1200, 0, 30)),
    cx._line(13, "response_item", cx._fn("call_3", "apply_patch", {"input": "*** Begin Patch"})),
    cx._line(14, "response_item", cx._out("call_3", "patch rejected by user")),
    cx._line(15, "response_item", cx._fn("call_4", "shell", {"command": ["ls"]})),
    cx._line(
        16,
        "response_item",
        cx._out("call_4", '{"output":"a\\n","metadata":{"exit_code":0,"duration_seconds":0.1}}'),
    ),
    _turn(17),
    cx._tokens(18, (4600, 0, 100), (1300, 0, 40)),
    cx._line(19, "response_item", cx._text("assistant", "The build needs approval to run.")),
]


def test_codex_040_failure_texts_are_errors() -> None:
    trace = _session("codex-cli", _CODEX_040)
    calls = [s for s in trace["steps"] if s["type"] == "tool_call"]
    assert [(s["step_id"], s.get("status"), s.get("error")) for s in calls] == [
        ("call_1", "error", _SANDBOX),
        ("call_2", "error", "execution error: No such file (os error 2)"),
        ("call_3", "error", "patch rejected by user"),
        ("call_4", "ok", None),
    ]


def test_codex_usage_written_before_its_request_lands_on_that_request() -> None:
    trace = _session("codex-cli", _CODEX_040)
    usage = [(s["step_id"], s.get("input_tokens"), s.get("output_tokens")) for s in trace["steps"]]
    assert usage == [
        ("call_1", 1000, 10),
        ("call_2", 1100, 20),
        ("call_3", 1200, 30),
        ("call_4", None, None),
        ("step-5", 1300, 40),
    ]
    assert trace["metadata"]["adapter"]["notes"] == []


def test_codex_usage_written_after_its_request_still_lands_on_it() -> None:
    """Older rollouts write token_count after the request's items (the clean fixture)."""
    trace = _session("codex-cli", cx.ROLLOUT_CLEAN)
    usage = [(s.get("input_tokens"), s.get("output_tokens")) for s in trace["steps"]]
    assert usage == [(5200, 120), (5400, 30)]
    assert trace["metadata"]["adapter"]["notes"] == []


def test_codex_output_that_only_mentions_a_failure_text_is_not_an_error() -> None:
    lines = [
        cx._line(0, "session_meta", {"id": "r", "cwd": "/w", "cli_version": "0.40.0"}),
        cx._line(1, "response_item", cx._fn("c", "shell", {"command": ["cat", "notes"]})),
        cx._line(2, "response_item", cx._out("c", "notes: patch rejected by user twice")),
    ]
    (call,) = _session("codex-cli", lines)["steps"]
    assert call.get("status") != "error"


def _dump(value: Any) -> str:
    return json.dumps(value)
