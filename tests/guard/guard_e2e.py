"""Running `arh guard` as a process, for the end-to-end tests: the policy they share and
helpers that run a command with a safety timeout (never a sleep to wait for anything)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

SRC = str(Path(__file__).resolve().parents[2] / "src")
SAFETY = 120  # seconds: a bound on a hung process, never a synchronisation

POLICY: dict[str, Any] = {
    "schema_version": "1.2",
    "policy_id": "shop-guard",
    "allow_unlisted_tools": False,
    "allowed_tools": {
        "lookup_order": {"required_arguments": {"order_id": "string"}},
        "refund": {
            "required_arguments": {"order_id": "string", "amount": {"type": "number", "max": 100}},
            "side_effect": True,
            "max_calls": 1,
        },
        "echo": {"optional_arguments": {"text": "string"}},
        "delete_account": {},
    },
    "sequence": {"forbidden_tools": ["delete_account"]},
    "preconditions": [
        {"call": "refund", "requires": "lookup_order", "same": {"order_id": "order_id"}}
    ],
    "agents": {"Explore": {"allowed_tools": {"echo": {}}}, "*": {}},
}


def env() -> dict[str, str]:
    found = dict(os.environ)
    found["PYTHONPATH"] = SRC + os.pathsep + found.get("PYTHONPATH", "")
    return found


def arh(*args: str) -> list[str]:
    return [sys.executable, "-m", "agent_reliability_harness", *args]


def write_policy(folder: Path) -> str:
    path = folder / "policy.json"
    path.write_text(json.dumps(POLICY), encoding="utf-8")
    return str(path)


def hook_command(policy: str, state: Path, *extra: str) -> list[str]:
    return arh(
        "guard", "hook", "--policy", policy, "--state", str(state), "--timeout-ms", "60000", *extra
    )


def run(command: list[str], event: Any) -> subprocess.CompletedProcess[str]:
    text = event if isinstance(event, str) else json.dumps(event)
    return subprocess.run(
        command, input=text, capture_output=True, text=True, env=env(), timeout=SAFETY, check=False
    )


def pre(
    session: str, tool: str, arguments: dict[str, Any], call_id: str, **extra: Any
) -> dict[str, Any]:
    return {
        "hook_event_name": "PreToolUse",
        "session_id": session,
        "tool_name": tool,
        "tool_input": arguments,
        "tool_use_id": call_id,
        **extra,
    }


def post(
    session: str, tool: str, arguments: dict[str, Any], call_id: str, response: Any
) -> dict[str, Any]:
    return {
        "hook_event_name": "PostToolUse",
        "session_id": session,
        "tool_name": tool,
        "tool_input": arguments,
        "tool_use_id": call_id,
        "tool_response": response,
    }
