"""Tool definitions as agents are given them, read for `arh infer --from-tools FILE`:

- an MCP `tools/list` result `{"tools": [{"name", "inputSchema"}]}` (or the JSON-RPC
  response holding it in `result`);
- an OpenAI Chat Completions `tools` array `[{"type": "function", "function": {"name",
  "parameters"}}]`, or the Responses API's flat `{"type": "function", "name", "parameters"}`;
- an Anthropic `tools` array `[{"name", "input_schema"}]` (server tools such as
  `{"type": "web_search_20250305", "name": ...}` have no schema: allowed, arguments open);
- any of these arrays under `tools` in a request body.

Each entry gives a tool name and its parameters' JSON Schema, or one problem line; an entry
with no name (an OpenAI built-in tool such as `{"type": "web_search"}`) is a note.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...errors import InputError
from ...io import decode_bytes, decode_json
from ...reading import read_input
from ..common import type_name


@dataclass(frozen=True, slots=True)
class ToolDef:
    name: str
    parameters: Any  # the JSON Schema of its arguments; None when it declares none
    kind: str  # "mcp", "openai", "openai-responses", "anthropic", "anthropic-server"
    where: str  # `tools[3]`


@dataclass(slots=True)
class ToolDefs:
    """The definitions read from one file, and what could not be read."""

    source: str  # the file name as shown
    tools: list[ToolDef] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # `tools[3]: a tool needs a name`
    notes: list[str] = field(default_factory=list)  # `tools[2]: ...; not in the policy`

    def kinds(self) -> str:
        return ", ".join(sorted({tool.kind for tool in self.tools})) or "none"


def _entries(value: Any) -> tuple[list[Any], str]:
    """The list of tool entries and the path it sits at."""
    prefix = ""
    if isinstance(value, dict) and isinstance(value.get("result"), dict) and "tools" not in value:
        value, prefix = value["result"], "result."  # a JSON-RPC response
    if isinstance(value, dict) and isinstance(value.get("tools"), list):
        return value["tools"], f"{prefix}tools"
    if isinstance(value, list):
        return value, ""
    raise InputError(
        'must be a tools list: {"tools": [...]} (MCP tools/list, a request body) or an array '
        f"of OpenAI or Anthropic tools (got {type_name(value)})"
    )


def _one(entry: Any, where: str) -> ToolDef | str:
    """A definition, or the problem with the entry."""
    if not isinstance(entry, dict):
        return f"a tool must be an object (got {type_name(entry)})"
    function = entry.get("function")
    if isinstance(function, dict):
        name, parameters, kind = function.get("name"), function.get("parameters"), "openai"
    elif "inputSchema" in entry:
        name, parameters, kind = entry.get("name"), entry["inputSchema"], "mcp"
    elif "input_schema" in entry:
        name, parameters, kind = entry.get("name"), entry["input_schema"], "anthropic"
    elif entry.get("type") == "function":
        name, parameters, kind = entry.get("name"), entry.get("parameters"), "openai-responses"
    elif "name" in entry and isinstance(entry.get("type"), str):
        name, parameters, kind = entry.get("name"), None, "anthropic-server"
    else:
        name, parameters, kind = entry.get("name"), None, "mcp"
    if not isinstance(name, str) or not name:
        return f"a tool needs a non-empty string name (got {type_name(name)})"
    return ToolDef(name, parameters, kind, where)


def parse_tool_defs(value: Any, source: str) -> ToolDefs:
    """The definitions of a decoded tools document (InputError when it is none)."""
    entries, path = _entries(value)
    found = ToolDefs(source)
    first: dict[str, str] = {}
    for index, entry in enumerate(entries):
        where = f"{path}[{index}]"
        tool = _one(entry, where)
        if isinstance(tool, str):
            builtin = isinstance(entry, dict) and entry.get("type") not in (None, "function")
            if builtin and isinstance(entry, dict) and "name" not in entry:
                found.notes.append(
                    f"{where}: built-in tool type {entry['type']!r} has no name; not in the policy"
                )
            else:
                found.problems.append(f"{where}: {tool}")
        elif tool.name in first:
            found.problems.append(
                f"{where}: tool {tool.name!r} is defined twice (first at {first[tool.name]})"
            )
        else:
            first[tool.name] = where
            found.tools.append(tool)
    return found


def read_tool_defs(path: str, shown: str) -> ToolDefs:
    """Read and parse a tools file (InputError: unreadable, not JSON, not a tools list)."""
    return parse_tool_defs(decode_json(decode_bytes(read_input(path))), shown)
