"""browser-use and Letta fixtures written to their published shapes: browser-use's
`AgentHistoryList.save_to_file` (AgentHistory.model_dump) and Letta's agent file
(`.af`, AgentFileSchema; the 2025-03 single-agent schema). Neither library installs
light and offline (browser-use pulls a browser stack, letta a server), so their dumps
are written here as their serialisers write them."""

from __future__ import annotations

import json
from typing import Any

URL = "https://shop.example.com/"


def _state(url: str, title: str, shot: int) -> dict[str, Any]:
    return {
        "tabs": [{"url": url, "title": title, "target_id": "A5A2", "parent_target_id": None}],
        "screenshot_path": f"/tmp/browser_use_agent/screenshots/step_{shot}.png",
        "interacted_element": [None],
        "url": url,
        "title": title,
    }


def _step(n: int, output: dict[str, Any] | None, results: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "model_output": output,
        "result": results,
        "state": _state(URL, "Shop", n),
        "metadata": {
            "step_start_time": 1758538100.0 + 10 * n,
            "step_end_time": 1758538108.5 + 10 * n,
            "step_number": n,
        },
    }


def _result(content: str | None = None, **fields: Any) -> dict[str, Any]:
    result: dict[str, Any] = {"is_done": False}
    result.update(fields)
    if content is not None:
        result["long_term_memory"] = content
        result["extracted_content"] = content
    result["include_extracted_content_only_once"] = False
    result["include_in_memory"] = False
    return result


def browser_history() -> dict[str, Any]:
    """Navigation, a click that fails (the second action is then not run), a step whose
    model call failed (no model output), a search, and `done` with a judge's verdict."""
    return {
        "history": [
            _step(
                1,
                {
                    "thinking": "The user wants the price of the red mug.",
                    "evaluation_previous_goal": "Start. Verdict: Success",
                    "memory": "",
                    "next_goal": "Open the shop and search for the mug.",
                    "action": [
                        {"go_to_url": {"url": URL, "new_tab": False}},
                        {"click_element_by_index": {"index": 7, "while_holding_ctrl": False}},
                        {"input_text": {"index": 3, "text": "red mug", "clear_existing": True}},
                    ],
                },
                [
                    _result(f"Navigated to {URL}"),
                    _result(
                        error="Element with index 7 does not exist - retry or use alternative actions"
                    ),
                ],
            ),
            _step(2, None, [_result(error="RateLimitError: 429 Too Many Requests")]),
            _step(
                3,
                {
                    "evaluation_previous_goal": "The click failed. Verdict: Failure",
                    "memory": "On the shop page.",
                    "next_goal": "Search with the search box.",
                    "action": [
                        {"input_text": {"index": 3, "text": "red mug", "clear_existing": True}}
                    ],
                },
                [
                    _result(
                        "Input 'red mug' into element 3.",
                        metadata={"input_x": 584.3, "input_y": 309.0},
                    )
                ],
            ),
            _step(
                4,
                {
                    "thinking": "The price is visible: 12 EUR.",
                    "evaluation_previous_goal": "Search worked. Verdict: Success",
                    "memory": "Found the mug at 12 EUR.",
                    "next_goal": "Report the price.",
                    "action": [
                        {
                            "done": {
                                "text": "The red mug costs 12 EUR.",
                                "success": True,
                                "files_to_display": [],
                            }
                        }
                    ],
                },
                [
                    {
                        "is_done": True,
                        "success": True,
                        "judgement": {
                            "reasoning": "The price matches the page.",
                            "verdict": True,
                            "failure_reason": "",
                            "impossible_task": False,
                            "reached_captcha": False,
                        },
                        "attachments": [],
                        "long_term_memory": "Task completed: True - The red mug costs 12 EUR.",
                        "extracted_content": "The red mug costs 12 EUR.",
                        "include_extracted_content_only_once": False,
                        "include_in_memory": False,
                    }
                ],
            ),
        ]
    }


def browser_history_legacy() -> dict[str, Any]:
    """browser-use 0.1.x: the goals under `current_state`, the result's `error` text, and
    the run's token counts absent (nothing to count)."""
    return {
        "history": [
            {
                "model_output": {
                    "current_state": {
                        "evaluation_previous_goal": "Unknown",
                        "memory": "Start",
                        "next_goal": "Search",
                    },
                    "action": [{"search_google": {"query": "ARH agent harness"}}],
                },
                "result": [
                    {
                        "is_done": False,
                        "extracted_content": 'Searched for "ARH agent harness"',
                        "include_in_memory": True,
                    }
                ],
                "state": {
                    "url": "https://www.google.com/",
                    "title": "Google",
                    "tabs": [],
                    "interacted_element": [None],
                    "screenshot": None,
                },
            },
            {
                "model_output": {
                    "current_state": {
                        "evaluation_previous_goal": "Success",
                        "memory": "Found it",
                        "next_goal": "Finish",
                    },
                    "action": [{"done": {"text": "Found the harness."}}],
                },
                "result": [
                    {
                        "is_done": True,
                        "extracted_content": "Found the harness.",
                        "include_in_memory": False,
                    }
                ],
                "state": {
                    "url": "https://www.google.com/",
                    "title": "Google",
                    "tabs": [],
                    "interacted_element": [None],
                    "screenshot": None,
                },
            },
        ]
    }


def _letta_message(
    n: int, role: str, content: list[dict[str, Any]], agent: str, **fields: Any
) -> dict[str, Any]:
    message: dict[str, Any] = {
        "type": "message",
        "role": role,
        "content": content,
        "name": None,
        "otid": None,
        "sender_id": None,
        "batch_item_id": None,
        "group_id": None,
        "id": f"message-{n}",
        "model": "claude-sonnet-4-5-20250929",
        "agent_id": agent,
        "tool_calls": None,
        "tool_call_id": None,
        "tool_returns": [],
    }
    message.update(fields)
    message.update(
        {
            "created_at": f"2026-02-11T20:08:{n:02d}.110768+00:00",
            "approve": None,
            "approval_request_id": None,
            "denial_reason": None,
            "approvals": [],
        }
    )
    return message


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text, "signature": None}


def _call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "function": {"arguments": json.dumps(args), "name": name},
        "type": "function",
    }


def _return(
    call_id: str, status: str, reply: str, stderr: list[str] | None = None
) -> dict[str, Any]:
    return {
        "tool_call_id": call_id,
        "status": status,
        "stdout": None,
        "stderr": stderr,
        "func_response": reply,
    }


def _agent(agent: str, name: str, messages: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    value: dict[str, Any] = {
        "name": name,
        "memory_blocks": [],
        "tools": [],
        "tool_ids": ["tool-0"],
        "block_ids": ["block-0"],
        "tool_rules": [],
        "tags": [],
        "system": "You are a helpful agent with memory.",
        "agent_type": "letta_v1_agent",
        "llm_config": {
            "model": "claude-sonnet-4-5-20250929",
            "model_endpoint_type": "anthropic",
            "context_window": 200000,
        },
        "embedding_config": {
            "embedding_endpoint_type": "openai",
            "embedding_model": "text-embedding-3-small",
        },
        "description": None,
        "metadata": None,
        "id": agent,
        "in_context_message_ids": [m["id"] for m in messages],
        "messages": messages,
        "files_agents": [],
        "group_ids": [],
    }
    value.update(fields)
    return value


def letta_agent_file() -> dict[str, Any]:
    """Two agents: the main one (reasoning, a search, a memory edit that fails with
    status "error", a redacted reasoning block, its answer) and a sleep-time agent with no
    messages in the file; shared blocks and tools."""
    agent = "agent-0"
    ok = json.dumps({"status": "OK", "message": "2 results", "time": "2026-02-11 08:08:35 PM UTC"})
    bad = json.dumps({"status": "Failed", "message": "Error: block 'persona' is read-only"})
    messages = [
        _letta_message(0, "system", [_text("You are a helpful agent with memory.")], agent),
        _letta_message(
            1,
            "user",
            [_text('{"type": "user_message", "message": "What did we decide about the launch?"}')],
            agent,
        ),
        _letta_message(
            2,
            "assistant",
            [
                {
                    "type": "reasoning",
                    "is_native": True,
                    "reasoning": "Search the archive first.",
                    "signature": "Er4G",
                }
            ],
            agent,
            tool_calls=[_call("toolu_01", "conversation_search", {"query": "launch"})],
        ),
        _letta_message(
            3,
            "tool",
            [_text(ok)],
            agent,
            name="conversation_search",
            tool_call_id="toolu_01",
            tool_returns=[_return("toolu_01", "success", ok)],
        ),
        _letta_message(
            4,
            "assistant",
            [{"type": "redacted_reasoning", "data": "EqQBCkYIAxgCIkB"}],
            agent,
            tool_calls=[
                _call(
                    "toolu_02",
                    "memory_replace",
                    {"label": "persona", "old_str": "a", "new_str": "b"},
                )
            ],
        ),
        _letta_message(
            5,
            "tool",
            [_text(bad)],
            agent,
            name="memory_replace",
            tool_call_id="toolu_02",
            tool_returns=[_return("toolu_02", "error", bad, ["PermissionError: read-only"])],
        ),
        _letta_message(
            6, "assistant", [_text("\n\n"), _text("We decided to launch on Monday.")], agent
        ),
    ]
    return {
        "agents": [
            _agent(agent, "launch-helper", messages, group_ids=["group-0"]),
            _agent("agent-1", "launch-helper-sleeptime", [], agent_type="sleeptime_agent"),
        ],
        "groups": [
            {
                "agent_ids": ["agent-1"],
                "description": "",
                "manager_config": {
                    "manager_type": "sleeptime",
                    "manager_agent_id": agent,
                    "sleeptime_agent_frequency": 5,
                },
                "project_id": None,
                "shared_block_ids": [],
                "hidden": None,
                "id": "group-0",
            }
        ],
        "blocks": [
            {"value": "The user is Cameron.", "limit": 5000, "label": "human", "id": "block-0"}
        ],
        "files": [],
        "sources": [],
        "tools": [
            {
                "id": "tool-0",
                "tool_type": "letta_core",
                "name": "conversation_search",
                "description": "Search prior conversation history.",
            }
        ],
        "mcp_servers": [],
        "skills": [],
        "metadata": {"revision_id": "3e54e2fa2f7e"},
        "created_at": "2026-02-12T18:32:33.663631+00:00",
    }


def letta_legacy() -> dict[str, Any]:
    """The 2025-03 schema: one agent object, OpenAI-shaped messages, tool replies whose
    JSON `status` says how the tool ended ("OK" / "Failed")."""

    def message(role: str, text: str, **fields: Any) -> dict[str, Any]:
        value: dict[str, Any] = {
            "created_at": "2025-04-01T03:47:27.492924",
            "group_id": None,
            "model": "gpt-4-0613",
            "name": None,
            "role": role,
            "content": [{"type": "text", "text": text}],
            "tool_call_id": None,
            "tool_calls": [],
            "tool_returns": [],
            "updated_at": "2025-04-01T03:47:27",
        }
        value.update(fields)
        return value

    return {
        "agent_type": "memgpt_agent",
        "core_memory": [],
        "created_at": "2025-04-01T03:47:27",
        "description": "A MemGPT agent",
        "embedding_config": {"embedding_model": "text-embedding-ada-002"},
        "llm_config": {"model": "gpt-4-0613", "context_window": 8192},
        "message_buffer_autoclear": False,
        "in_context_message_indices": [0, 1, 2, 3, 4],
        "messages": [
            message("system", "You are Letta."),
            message("user", '{"type": "user_message", "message": "My name is Sarah."}'),
            message(
                "assistant",
                "Updating core memory.",
                tool_calls=[
                    _call(
                        "c7c437bb",
                        "core_memory_replace",
                        {"label": "human", "old_content": "Chad", "new_content": "Sarah"},
                    )
                ],
            ),
            message(
                "tool",
                json.dumps({"status": "Failed", "message": "Old content 'Chad' not found"}),
                tool_call_id="c7c437bb",
            ),
            message(
                "assistant",
                "Telling the user.",
                tool_calls=[
                    _call("787790f6", "send_message", {"message": "Nice to meet you, Sarah!"})
                ],
            ),
            message("tool", json.dumps({"status": "OK", "message": None}), tool_call_id="787790f6"),
        ],
        "metadata_": None,
        "multi_agent_group": None,
        "name": "memgpt_agent",
        "system": "You are Letta.",
        "tags": [],
        "tool_exec_environment_variables": [],
        "tool_rules": [],
        "tools": [],
        "updated_at": "2025-04-01T03:51:11",
        "version": "0.6.47",
    }


FIXTURES: dict[str, Any] = {
    "browser-use/agent-history.json": browser_history(),
    "browser-use/agent-history-legacy.json": browser_history_legacy(),
    "letta/agent-file.json": letta_agent_file(),
    "letta/memgpt-2025-03.json": letta_legacy(),
}
