"""OpenHands fixtures written to its published shapes (openhands/events/serialization:
`event_to_dict`; the evaluation harness's `EvalOutput`): a saved trajectory (a JSON
array of events) and one line of an evaluation `output.jsonl`. OpenHands has no light
library that writes them (the `openhands-ai` package is the whole agent server)."""

from __future__ import annotations

import json
from typing import Any

MODEL = "claude-3-5-sonnet-20241022"
TIME = "2025-01-27T22:44:56.900854"


def _completion(
    key: str,
    text: str | None,
    calls: list[tuple[str, str, dict[str, Any]]],
    prompt: int,
    completion: int,
) -> dict[str, Any]:
    """The litellm ModelResponse OpenHands keeps with each action (`model_dump()`)."""
    return {
        "id": key,
        "created": 1738046713,
        "model": MODEL,
        "object": "chat.completion",
        "system_fingerprint": None,
        "choices": [
            {
                "finish_reason": "tool_calls",
                "index": 0,
                "message": {
                    "content": text,
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "index": n,
                            "function": {"arguments": json.dumps(args), "name": name},
                            "id": call_id,
                            "type": "function",
                        }
                        for n, (call_id, name, args) in enumerate(calls)
                    ],
                    "function_call": None,
                },
            }
        ],
        "usage": {
            "completion_tokens": completion,
            "prompt_tokens": prompt,
            "total_tokens": prompt + completion,
            "completion_tokens_details": None,
            "prompt_tokens_details": {"audio_tokens": None, "cached_tokens": 0},
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
        "service_tier": None,
    }


def _meta(response: dict[str, Any], call_id: str, name: str) -> dict[str, Any]:
    calls = response["choices"][0]["message"]["tool_calls"]
    return {
        "function_name": name,
        "tool_call_id": call_id,
        "model_response": response,
        "total_calls_in_response": len(calls),
    }


def _action(
    n: int,
    kind: str,
    args: dict[str, Any],
    meta: dict[str, Any] | None = None,
    *,
    source: str = "agent",
    message: str = "",
) -> dict[str, Any]:
    event: dict[str, Any] = {
        "id": n,
        "timestamp": TIME,
        "source": source,
        "message": message,
        "action": kind,
    }
    if meta is not None:
        event["tool_call_metadata"] = meta
    event["args"] = args
    event["timeout"] = 120
    return event


def _observation(  # noqa: PLR0917 - the fields of an event, in their order
    n: int,
    kind: str,
    content: str,
    cause: int | None,
    extras: dict[str, Any],
    meta: dict[str, Any] | None = None,
    *,
    source: str = "agent",
) -> dict[str, Any]:
    event: dict[str, Any] = {"id": n, "timestamp": TIME, "source": source, "message": content[:60]}
    if cause is not None:
        event["cause"] = cause
    event["observation"] = kind
    if meta is not None:
        event["tool_call_metadata"] = meta
    event["content"] = content
    event["extras"] = extras
    return event


def _run_extras(command: str, code: int) -> dict[str, Any]:
    return {
        "command": command,
        "metadata": {
            "exit_code": code,
            "pid": -1,
            "username": "root",
            "hostname": "sandbox",
            "working_dir": "/workspace",
            "py_interpreter_path": None,
            "prefix": "",
            "suffix": f"\n[The command completed with exit code {code}.]",
        },
        "hidden": False,
    }


def trajectory() -> list[Any]:
    """A CodeActAgent run: two calls from one completion, a failing command, a function
    call OpenHands rejected (an error observation with no action), a delegation to the
    BrowsingAgent (its own actions, no function calling), a message and finish."""
    first = _completion(
        "chatcmpl-1",
        "Let me look around.",
        [
            ("toolu_01", "execute_bash", {"command": "ls"}),
            ("toolu_02", "str_replace_editor", {"command": "view", "path": "/workspace/app.py"}),
        ],
        3400,
        120,
    )
    second = _completion(
        "chatcmpl-2", None, [("toolu_03", "execute_bash", {"command": "make test"})], 3600, 40
    )
    third = _completion(
        "chatcmpl-3",
        "I will ask the browsing agent.",
        [("toolu_04", "delegate_to_browsing_agent", {"task": "Find the docs of make"})],
        3700,
        50,
    )
    last = _completion(
        "chatcmpl-4", None, [("toolu_05", "finish", {"message": "Tests fail: see log."})], 3900, 30
    )
    return [
        _action(
            0,
            "message",
            {
                "content": "Run the tests of /workspace.",
                "image_urls": None,
                "wait_for_response": False,
            },
            source="user",
            message="Run the tests of /workspace.",
        ),
        _observation(
            1, "agent_state_changed", "", None, {"agent_state": "running"}, source="environment"
        ),
        _action(
            2,
            "run",
            {
                "command": "ls",
                "is_input": False,
                "thought": "Let me look around.",
                "blocking": False,
                "hidden": False,
                "confirmation_state": "confirmed",
            },
            _meta(first, "toolu_01", "execute_bash"),
        ),
        _action(
            3,
            "read",
            {
                "path": "/workspace/app.py",
                "start": 0,
                "end": -1,
                "thought": "",
                "impl_source": "oh_aci",
                "view_range": None,
            },
            _meta(first, "toolu_02", "str_replace_editor"),
        ),
        _observation(
            4,
            "run",
            "app.py  Makefile",
            2,
            _run_extras("ls", 0),
            _meta(first, "toolu_01", "execute_bash"),
        ),
        _observation(
            5,
            "read",
            "print('hello')",
            3,
            {"path": "/workspace/app.py", "impl_source": "oh_aci"},
            _meta(first, "toolu_02", "str_replace_editor"),
        ),
        _action(
            6,
            "run",
            {
                "command": "make test",
                "is_input": False,
                "thought": "",
                "blocking": False,
                "hidden": False,
                "confirmation_state": "confirmed",
            },
            _meta(second, "toolu_03", "execute_bash"),
        ),
        _observation(
            7,
            "run",
            "make: *** No rule to make target 'test'.",
            6,
            _run_extras("make test", 2),
            _meta(second, "toolu_03", "execute_bash"),
        ),
        _observation(
            8,
            "error",
            "Parameter 'command' is expected to be one of ['view', 'create'].",
            None,
            {"error_id": ""},
        ),
        _action(
            9,
            "delegate",
            {
                "agent": "BrowsingAgent",
                "inputs": {"task": "Find the docs of make"},
                "thought": "I will ask the browsing agent.",
            },
            _meta(third, "toolu_04", "delegate_to_browsing_agent"),
        ),
        _action(
            10,
            "browse_interactive",
            {
                "browser_actions": "goto('https://www.gnu.org/software/make/')",
                "thought": "Open the manual.",
                "browsergym_send_msg_to_user": "",
            },
        ),
        _observation(
            11,
            "browse",
            "GNU make manual",
            10,
            {"url": "https://www.gnu.org/software/make/", "error": False},
        ),
        _action(12, "finish", {"outputs": {"content": "make needs a 'test' rule."}, "thought": ""}),
        _observation(
            13,
            "delegate",
            "BrowsingAgent finishes task with content: make needs a 'test' rule.",
            9,
            {"outputs": {"content": "make needs a 'test' rule."}},
        ),
        _action(
            14,
            "message",
            {
                "content": "The Makefile has no test rule.",
                "image_urls": None,
                "wait_for_response": False,
            },
        ),
        _action(
            15,
            "finish",
            {
                "final_thought": "Tests fail: see log.",
                "task_completed": "false",
                "outputs": {},
                "thought": "",
            },
            _meta(last, "toolu_05", "finish"),
        ),
    ]


def evaluation() -> dict[str, Any]:
    """One line of an evaluation `output.jsonl` (SWE-bench style, graded: `report`)."""
    response = _completion(
        "gen-1",
        "Fixing it.",
        [
            (
                "toolu_01",
                "str_replace_editor",
                {
                    "command": "str_replace",
                    "path": "/workspace/a.py",
                    "old_str": "x",
                    "new_str": "y",
                },
            )
        ],
        5000,
        90,
    )
    done = _completion("gen-2", None, [("toolu_02", "finish", {"message": "Fixed."})], 5200, 20)
    return {
        "instance_id": "django__django-11099",
        "test_result": {
            "git_patch": "diff --git a/a.py b/a.py\n-x\n+y\n",
            "report": {"resolved": True},
        },
        "instruction": "Fix the issue.",
        "metadata": {
            "agent_class": "CodeActAgent",
            "llm_config": {"model": "openai/gpt-4o", "api_key": "**********"},
            "max_iterations": 30,
            "dataset": "princeton-nlp/SWE-bench_Lite",
        },
        "history": [
            _action(
                0,
                "system",
                {
                    "content": "You are OpenHands agent.",
                    "tools": [],
                    "openhands_version": "0.35.0",
                    "agent_class": "CodeActAgent",
                },
            ),
            _action(
                1,
                "message",
                {"content": "Fix the issue.", "image_urls": None, "wait_for_response": False},
                source="user",
            ),
            _action(
                2,
                "recall",
                {"recall_type": "workspace_context", "query": "Fix the issue.", "thought": ""},
                source="user",
            ),
            _observation(
                3,
                "recall",
                "Added workspace context",
                2,
                {"recall_type": "workspace_context", "repo_name": "django/django"},
                source="environment",
            ),
            _action(
                4,
                "edit",
                {
                    "command": "str_replace",
                    "path": "/workspace/a.py",
                    "thought": "Fixing it.",
                    "impl_source": "oh_aci",
                },
                _meta(response, "toolu_01", "str_replace_editor"),
            ),
            _observation(
                5,
                "edit",
                "The file /workspace/a.py has been edited.",
                4,
                {"path": "/workspace/a.py", "prev_exist": True},
                _meta(response, "toolu_01", "str_replace_editor"),
            ),
            _action(
                6,
                "finish",
                {"final_thought": "Fixed.", "task_completed": "true", "outputs": {}, "thought": ""},
                _meta(done, "toolu_02", "finish"),
            ),
        ],
        "metrics": {
            "accumulated_cost": 0.05,
            "accumulated_token_usage": {
                "model": "default",
                "prompt_tokens": 10200,
                "completion_tokens": 110,
                "cache_read_tokens": 0,
                "cache_write_tokens": 0,
                "response_id": "",
            },
        },
        "error": None,
    }


def unmetered() -> dict[str, Any]:
    """An evaluation record whose actions carry no completion (a non-function-calling
    agent): the run's accumulated usage is all there is, stopped at the iteration limit."""
    record = evaluation()
    record["instance_id"] = "django__django-11133"
    record["test_result"] = {"git_patch": ""}
    record["error"] = "RuntimeError: Agent reached maximum iteration in headless mode."
    for event in record["history"]:
        event.pop("tool_call_metadata", None)
    return record


FIXTURES: dict[str, Any] = {
    "openhands/trajectory.json": trajectory(),
    "openhands/eval-output.json": evaluation(),
    "openhands/eval-unmetered.json": unmetered(),
}
