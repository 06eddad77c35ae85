"""The "autocoderover" format: what an AutoCodeRover (ACR) run writes to its output folder.

- `conversation_round_<n>.json` (the search agent's thread) and
  `debug_agent_write_patch_<n>.json` (the patch agent's): `[{role, content}]`. The model
  names its search API calls in its text; ACR dispatches them and answers in one user
  message of blocks `Result of <api>(<args>):\\n<output>`. Each block is a tool call with
  its result (arguments by ACR's API signatures); an output ACR writes when a search finds
  nothing ("Could not find class X in the codebase.") fails the call. The patch agent's
  last answer (the patch) is the run's final answer.
- `tool_call_sequence.json`: ACR's log of dispatched calls,
  `[{func_name, arguments, call_ok}]`: calls with their verdict, no outputs.

No token usage is written in these files (ACR keeps it in `cost.json`). One trace per file.
"""

from __future__ import annotations

import ast
import math
import re
from typing import Any

from ..core.base import Adapter
from ..core.common import TraceBuilder, fail, obj

NAME = "autocoderover"
# ACR's search API: each function's parameters, in order (app/search/search_backend.py).
SIGNATURES: dict[str, tuple[str, ...]] = {
    "search_class": ("class_name",),
    "search_class_in_file": ("class_name", "file_name"),
    "search_method": ("method_name",),
    "search_method_in_class": ("method_name", "class_name"),
    "search_method_in_file": ("method_name", "file_name"),
    "search_code": ("code_str",),
    "search_code_in_file": ("code_str", "file_name"),
    "get_code_around_line": ("file_name", "line_no", "window_size"),
    "get_class_full_snippet": ("class_name",),
}
_RESULT = re.compile(r"^Result of ([A-Za-z_]\w*)\((.*)\):$", re.MULTILINE)
# What ACR's search functions answer when they find nothing (their `ok` is False).
_FAILED = re.compile(
    r"^(Could not find |Cannot find |There is no |An error |The (method|code|class|file) .*"
    r"does not (appear|exist))"
)
_API_LIST = "search_method_in_file(method_name: str"


def _is_message(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and isinstance(item.get("role"), str)
        and isinstance(item.get("content"), str)
    )


def _acr_message(item: Any) -> bool:
    """A user message only ACR writes: dispatched API results, or its API list."""
    if not _is_message(item) or item["role"] != "user":
        return False
    content = item["content"]
    found = _RESULT.search(content)
    return (found is not None and found.group(1) in SIGNATURES) or _API_LIST in content


def _is_logged_call(item: Any) -> bool:
    return isinstance(item, dict) and "func_name" in item and "call_ok" in item


def detect(value: Any) -> bool:
    """A thread of plain {role, content} messages with a user message ACR wrote (its
    search API list or `Result of search_...(...)` blocks), or ACR's call log."""
    if not isinstance(value, list) or not value:
        return False
    if all(_is_logged_call(item) for item in value[:1000]):
        return True
    return all(_is_message(m) for m in value[:1000]) and any(_acr_message(m) for m in value)


def convert(value: Any, name_hint: str) -> list[Any]:
    if not detect(value):
        raise fail("$", "expected an AutoCodeRover conversation or tool_call_sequence.json")
    b = TraceBuilder(NAME, name_hint)
    if _is_logged_call(value[0]):
        for n, raw in enumerate(value):
            _logged(b, obj(raw, f"[{n}]"), f"[{n}]")
        return [b.build()]
    for n, raw in enumerate(value):
        at = f"[{n}]"
        message = obj(raw, at)
        role, content = message["role"], message["content"]
        if role == "assistant":
            b.text(content, at)
        elif role == "user" and _RESULT.search(content):
            _results(b, content, at)
        else:
            b.input(role, content, at)
    return [b.build()]


def _logged(b: TraceBuilder, item: dict[str, Any], at: str) -> None:
    """One dispatched call of the log: its name, arguments and ACR's verdict."""
    args = item.get("arguments")
    index = b.call(None, str(item.get("func_name")), args if args is not None else {}, at)
    ok = item.get("call_ok")
    if isinstance(ok, bool):
        b.settle(index, error=None if ok else "the call failed (call_ok: false)", is_error=not ok)


def _results(b: TraceBuilder, content: str, at: str) -> None:
    """A user message of dispatched calls' results: the text before the first block is an
    input; each `Result of api(args):` block a call and its output."""
    blocks = list(_RESULT.finditer(content))
    head = content[: blocks[0].start()].strip()
    if head:
        b.input("user", head, at)
    for n, block in enumerate(blocks):
        end = blocks[n + 1].start() if n + 1 < len(blocks) else len(content)
        output = content[block.end() : end].strip("\n")
        where = f"{at}.content[result {n + 1}]"
        name = block.group(1)
        index = b.call(None, name, _arguments(name, block.group(2)), where)
        failed = _FAILED.match(output) is not None
        b.settle(index, output, error=output.splitlines()[0] if failed else None, is_error=failed)
        b.mark(where)  # the result, written in the same block as its call


def _arguments(name: str, text: str) -> dict[str, Any]:
    """The call's arguments by the API's parameter names (literal values as written)."""
    try:
        values = ast.literal_eval(f"({text},)") if text.strip() else ()
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return {"arguments": text}
    names = SIGNATURES.get(name, ())
    if len(values) > len(names) or not all(_plain(v) for v in values):
        return {"arguments": list(values)}
    return dict(zip(names, values, strict=False))


def _plain(value: Any) -> bool:
    """A literal JSON can hold as is (text, a whole number, a finite float, a flag)."""
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, str | int | bool)


ADAPTER = Adapter(
    name=NAME,
    description="AutoCodeRover run output (agent threads, tool_call_sequence.json)",
    detect=detect,
    convert=convert,
)
