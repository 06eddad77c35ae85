"""Moatless and AutoCodeRover fixtures written to their documented shapes: a Moatless
`SearchTree.persist()` tree that branches (nodes with `action_steps`, `completions` holding
the raw response and moatless' `usage`), and AutoCodeRover's output files (the search
agent's `conversation_round_<n>.json`, the patch agent's thread, `tool_call_sequence.json`)."""

from __future__ import annotations

import json
from typing import Any

_ISSUE = "Cache.get raises KeyError for expired keys"


def _completion(name: str, args: dict[str, Any], usage: tuple[int, int, int], n: int) -> Any:
    """A build_action completion: the request, the raw (Chat Completions) response, usage."""
    call = {"index": 0, "id": f"toolu_{n:02d}", "type": "function"}
    call["function"] = {"name": name, "arguments": json.dumps(args)}
    message = {"content": None, "role": "assistant", "tool_calls": [call]}
    return {
        "model": "claude-3-haiku-20240307",
        "input": [{"role": "user", "content": _ISSUE}],
        "response": {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion",
            "model": "claude-3-haiku-20240307",
            "choices": [{"finish_reason": "tool_calls", "index": 0, "message": message}],
            "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]},
        },
        "usage": {
            "completion_cost": 0.001 * n,
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "cached_tokens": usage[2],
        },
    }


def _node(
    n: int,
    action: str,
    args: dict[str, Any],
    message: str,
    children: list[Any],
    **props: Any,
) -> dict[str, Any]:
    full = {"thoughts": f"Step {n}: use {action}.", **args}
    full["action_args_class"] = f"moatless.actions.{action.lower()}.{action}Args"
    terminal = action == "Finish"
    observation = {"message": message, "summary": None, "terminal": terminal}
    observation |= {"expect_correction": bool(props), "properties": props}
    return {
        "node_id": n,
        "workspace": None,
        "artifact_changes": [],
        "user_message": None,
        "assistant_message": None,
        "action_steps": [{"action": full, "observation": observation, "completion": None}],
        "file_context": {"max_tokens": 8000, "files": []},
        "completions": {"build_action": _completion(action, args, (900 + n, 40 + n, n), n)},
        "possible_actions": ["FindClass", "StringReplace", "Finish"],
        "is_duplicate": None,
        "reward": {"value": 90 if terminal else 50, "explanation": None, "feedback": None},
        "visits": 1,
        "value": None,
        "max_expansions": 2,
        "agent_settings": None,
        "feedback_data": None,
        "output": observation,
        "children": children,
    }


def moatless_tree() -> dict[str, Any]:
    """Root -> FindClass; then two branches: a failed edit (fail_reason), and an edit
    that works followed by Finish (the best finished node: the main line)."""
    edit = {"path": "cache.py", "old_str": "return d[k]", "new_str": "return d.get(k)"}
    finish = _node(4, "Finish", {"finish_reason": "Expired keys now return None."}, "Done.", [])
    good = _node(3, "StringReplace", edit, "The file cache.py has been edited.", [finish])
    bad = _node(
        2,
        "StringReplace",
        {**edit, "old_str": "return data[k]"},
        "String 'return data[k]' not found in cache.py.",
        [],
        fail_reason="string_not_found",
    )
    find = _node(1, "FindClass", {"class_name": "Cache"}, "Found class Cache.", [bad, good])
    root = {**_node(0, "FindClass", {}, "", [find]), "action_steps": [], "completions": {}}
    root |= {"user_message": _ISSUE, "output": None, "reward": None}
    return {
        "metadata": {},
        "unique_id": 5,
        "max_expansions": 2,
        "max_iterations": 10,
        "selector": {"type": "BestFirstSelector"},
        "expander": {"max_expansions": 2},
        "agent": {"system_prompt": "You are an autonomous AI assistant.", "actions": []},
        "root": root,
    }


_APIS = (
    "Based on the files, classes, methods, code statements from the issue that related to "
    "the bug, you can use below search APIs to get more context of the project.\n"
    "        search_class(class_name: str): Search for a class in the codebase.\n"
    "        search_method_in_file(method_name: str, file_path: str): Search for a method "
    "in a given file.\n"
    "        search_method(method_name: str): Search for a method in the entire codebase.\n"
)
_RESULTS = (
    'Result of search_class("Cache"):\nFound 1 classes with name Cache in the codebase:\n\n'
    "- Search result 1:\n```\n<file>cache.py</file>\n<class>Cache</class>\n```\n\n"
    'Result of search_method("expire_all"):\nCould not find method expire_all in the codebase.\n\n'
    'Result of search_method_in_file("get", "cache.py"):\nFound 1 methods with name get in '
    "file cache.py:\n\n- Search result 1:\n```\n<code>def get(self, k): return d[k]</code>\n```\n"
)


def acr_thread(patch: bool) -> list[dict[str, str]]:
    """The search agent's thread; `patch`: the patch agent's, which ends with the patch."""
    thread = [
        {"role": "system", "content": "You are a software developer maintaining a project."},
        {"role": "user", "content": f"<issue>{_ISSUE}</issue>"},
        {"role": "user", "content": _APIS},
        {
            "role": "assistant",
            "content": 'I will call search_class("Cache"), search_method("expire_all") and '
            'search_method_in_file("get", "cache.py").',
        },
        {"role": "user", "content": _RESULTS},
        {"role": "user", "content": "Let's analyze collected context first"},
        {"role": "assistant", "content": "The bug is in Cache.get in cache.py."},
    ]
    if patch:
        thread += [
            {"role": "user", "content": "Write a patch for the issue, based on the context."},
            {
                "role": "assistant",
                "content": "# modification 1\n```python\n<file>cache.py</file>\n<original>return"
                " d[k]</original>\n<patched>return d.get(k)</patched>\n```",
            },
            {"role": "user", "content": "Extracted a patch. Ending the workflow."},
        ]
    return thread


def acr_sequence() -> list[dict[str, Any]]:
    return [
        {"func_name": "search_class", "arguments": {"class_name": "Cache"}, "call_ok": True},
        {
            "func_name": "search_method",
            "arguments": {"method_name": "expire_all"},
            "call_ok": False,
        },
        {
            "func_name": "search_method_in_file",
            "arguments": {"method_name": "get", "file_name": "cache.py"},
            "call_ok": True,
        },
        {"func_name": "write_patch", "arguments": {}, "call_ok": True},
    ]


FIXTURES: dict[str, Any] = {
    "moatless/search-tree.json": moatless_tree(),
    "autocoderover/conversation_round_1.json": acr_thread(False),
    "autocoderover/debug_agent_write_patch_1.json": acr_thread(True),
    "autocoderover/tool_call_sequence.json": acr_sequence(),
}
