"""What Cline (and its forks Roo Code and Kilo Code) write as text into a task's API
history: each tool result as a text block of the next user message (`[read_file for
'x'] Result:` then the output), the calls it refused (`Tool [x] was not executed ...`),
the context it appends to a user message (`<environment_details>`, reminders, a task's
resumption notice), the user's own words (`<task>`, `<feedback>`, `<user_message>`), and,
before native tool calling, each tool call as XML tags in the assistant's text.
"""

from __future__ import annotations

import re
from typing import Any

# The header of a tool result: `[<tool> for '<what>'] Result:` or `[<tool>] Result:`.
RESULT = re.compile(r"\A\s*\[(?P<tool>[A-Za-z_][\w-]*)(?: for [^\n]*?)?\] Result:[ \t]*\n?")
# A call Cline refused to run (one tool per message; after a rejected tool).
REFUSED = re.compile(
    r"\A\s*(?:Tool \[(?P<tool>[\w-]+)\] was not executed because"
    r"|Skipping tool \[(?P<skipped>[\w-]+)(?: for [^\]\n]*)?\] due to)"
)
# Results that report a failure (Cline's formatResponse texts and their forks').
_FAILURES = (
    "The tool execution failed with the following error",
    "The user denied this operation",
    "Missing value for required parameter",
    "[ERROR]",
    "Error executing",
)
# Text Cline appends to a user message for the model: the editor's state, reminders, the
# notice of a resumed task. Bookkeeping (skipped), not the user's words.
_CONTEXT = (
    "<environment_details>",
    "# task_progress RECOMMENDED",
    "# TODO LIST UPDATE REQUIRED",
    "[TASK RESUMPTION]",
    "# Reminder",
)
# The user's own words, as Cline wraps them.
_USER = re.compile(r"<(task|feedback|user_message|answer)>\n?(?P<text>.*?)\n?</\1>", re.S)
# Tools whose calls Cline and its forks parse out of the assistant's text (XML mode).
TOOLS = frozenset(
    {
        "execute_command",
        "read_file",
        "write_to_file",
        "replace_in_file",
        "apply_diff",
        "insert_content",
        "search_and_replace",
        "search_files",
        "list_files",
        "list_code_definition_names",
        "codebase_search",
        "browser_action",
        "use_mcp_tool",
        "access_mcp_resource",
        "ask_followup_question",
        "attempt_completion",
        "plan_mode_respond",
        "new_task",
        "switch_mode",
        "fetch_instructions",
        "update_todo_list",
        "web_fetch",
        "load_mcp_documentation",
        "condense",
        "summarize_task",
        "new_rule",
        "report_bug",
    }
)
_TAG = re.compile(r"<(?P<tool>[a-z_]+)>\s*(?P<body>.*?)</(?P=tool)>", re.S)
_PARAM = re.compile(r"<(?P<name>[a-z_]+)>\n?(?P<value>.*?)\n?</(?P=name)>", re.S)
_ERROR = re.compile(r"<error>(?P<text>.*?)</error>", re.S)
_THINKING = re.compile(r"<thinking>\s*(?P<text>.*?)\s*</thinking>", re.S)


def is_context(text: str) -> bool:
    return text.lstrip().startswith(_CONTEXT)


def user_words(text: str) -> list[str]:
    """The user's words in a Cline user text (inside `<task>`, `<feedback>`, ...)."""
    return [m.group("text") for m in _USER.finditer(text)]


def failed(output: str) -> str | None:
    """The error of a tool result that reports a failure, else None."""
    head = output.lstrip()
    if not head.startswith(_FAILURES):
        return None
    inner = _ERROR.search(head)
    said = inner.group("text").strip() if inner is not None else ""
    return (said or head.split("\n", 1)[0])[:200]


def tool_calls(text: str) -> tuple[list[str], list[str], list[tuple[str, dict[str, str]]]]:
    """A Cline assistant text in XML mode: its reasoning (`<thinking>`), its prose, and the
    tool calls written as `<tool><param>value</param></tool>` tags (known tools only)."""
    reasoning = [m.group("text") for m in _THINKING.finditer(text)]
    rest = _THINKING.sub("", text)
    calls: list[tuple[str, dict[str, str]]] = []
    prose: list[str] = []
    last = 0
    for match in _TAG.finditer(rest):
        if match.group("tool") not in TOOLS:
            continue
        prose.append(rest[last : match.start()])
        params = {p.group("name"): p.group("value") for p in _PARAM.finditer(match.group("body"))}
        calls.append((match.group("tool"), params))
        last = match.end()
    prose.append(rest[last:])
    return reasoning, [p.strip() for p in prose if p.strip()], calls


def tool_result_error(content: Any) -> str | None:
    """The Cline SDK's tool results (`[{query, result, error}]`, or one as JSON text):
    the error of an item that failed."""
    items = content if isinstance(content, list) else [content]
    for item in items:
        if isinstance(item, dict):
            error = item.get("error")
            if isinstance(error, str) and error:
                return error[:200]
            if item.get("success") is False:
                return "failed"
    return None


__all__ = [
    "REFUSED",
    "RESULT",
    "TOOLS",
    "failed",
    "is_context",
    "tool_calls",
    "tool_result_error",
    "user_words",
]
