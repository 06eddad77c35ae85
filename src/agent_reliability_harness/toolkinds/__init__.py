"""Tool kinds: which calls run shell commands, write or read files, or fetch URLs.

One rule, every agent: a rule about shell commands reads `action_of(step)`, never a
tool name. Which tool is which kind, and where its arguments keep the command, the
paths, the working directory and the URL, is data: the bundled `tool_kinds.json`
(Claude Code, Codex, gemini-cli, OpenHands, Cline, Cursor, SWE-agent, mini-swe-agent,
Goose, OpenCode), what format plugins add (`register_tool_kinds`), and a policy's own
`tool_kinds` section, later ones winning per tool name (POLICY-SPEC.md, "Tool kinds").
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from importlib import resources
from typing import Any

import msgspec

from ..models.policy.kinds import KINDS
from ..models.trace import Step
from .shell import Command, split_argv, split_line

_ENTRY_KEYS = frozenset(
    {"kind", "command", "commands", "path", "patch", "cwd", "url", "kind_by", "command_path"}
)


class KindBy(msgspec.Struct, frozen=True):
    """A tool whose kind depends on one argument (`str_replace_editor` `view` reads)."""

    argument: str
    kinds: dict[str, str]


class ToolEntry(msgspec.Struct, frozen=True):
    """One tool's kind and where its arguments hold what the kind's rules read."""

    kind: str
    command: tuple[str, ...] = ()  # a command line (string) or an argv array
    commands: tuple[str, ...] = ()  # a list of command lines
    path: tuple[str, ...] = ()  # a path or a list of paths
    patch: tuple[str, ...] = ()  # patch text naming the files it changes
    cwd: tuple[str, ...] = ()  # the directory the call runs in
    url: tuple[str, ...] = ()
    kind_by: KindBy | None = None
    command_path: int | None = None  # the path is this word of the `command` argument


class Action(msgspec.Struct, frozen=True):
    """What a call does, whatever the agent calls its tool."""

    kind: str
    commands: tuple[Command, ...] = ()
    paths: tuple[str, ...] = ()
    cwd: str | None = None
    urls: tuple[str, ...] = ()
    lines: tuple[str, ...] = ()  # the command lines as written (argv arrays joined)


class EntryError(ValueError):
    """A tool_kinds entry that cannot be used (the message names the key)."""


def parse_entry(raw: Any) -> ToolEntry:
    """A tool_kinds entry from JSON; EntryError naming what is wrong."""
    if not isinstance(raw, dict):
        raise EntryError("must be an object")
    data = {k: v for k, v in raw.items() if k in _ENTRY_KEYS}
    unknown = sorted(k for k in set(raw) - _ENTRY_KEYS if not _annotation(k))
    if unknown:
        raise EntryError(f"unknown key '{unknown[0]}'")
    if raw.get("kind") not in KINDS:
        raise EntryError(f"kind must be one of {', '.join(KINDS)}")
    for key in ("command", "commands", "path", "patch", "cwd", "url"):
        value = data.get(key)
        if isinstance(value, str):
            data[key] = [value]
    try:
        return msgspec.convert(data, ToolEntry)
    except msgspec.ValidationError as exc:
        raise EntryError(str(exc)) from None


def _annotation(key: str) -> bool:
    return key in {"agents", "description", "$schema"} or key.startswith("x-")


def _bundled() -> tuple[dict[str, ToolEntry], str, frozenset[str], frozenset[str]]:
    text = resources.files(__package__).joinpath("tool_kinds.json").read_text("utf-8")
    data = json.loads(text)
    named = data["command_named_tools"]
    tools = {name: parse_entry(raw) for name, raw in data["tools"].items()}
    markers = frozenset(data["finish_commands"]["markers"])
    return tools, named["argument"], frozenset(named["except"]), markers


_BUNDLED, _NAMED_ARGUMENT, _NAMED_EXCEPT, _FINISH_MARKERS = _bundled()
_REGISTERED: dict[str, ToolEntry] = {}


def register_tool_kinds(tools: Mapping[str, Any]) -> None:
    """Add (or replace) tools' entries for every policy evaluated from now on: what a
    format plugin calls for the tools of its agent. EntryError when one is malformed."""
    parsed = {name: parse_entry(raw) for name, raw in tools.items()}
    _REGISTERED.update(parsed)


class ToolKinds:
    """The tool-kind mapping a policy sees: bundled, registered, then its own entries."""

    __slots__ = ("tools",)

    def __init__(self, own: Mapping[str, ToolEntry] | None = None) -> None:
        self.tools: dict[str, ToolEntry] = {**_BUNDLED, **_REGISTERED, **(own or {})}

    def names_of(self, kind: str) -> tuple[str, ...]:
        """The tool names mapped to this kind (sorted)."""
        return tuple(sorted(n for n, e in self.tools.items() if kind in _kinds_of(e)))

    def action_of(self, step: Step) -> Action | None:
        """What a tool call does (None: a tool of no known kind). A shell call that runs
        `echo MARKER` with an agent's finishing marker is of kind `finish`."""
        action = self._action_of(step)
        if action is not None and action.kind == "shell" and _finishes(action):
            return msgspec.structs.replace(action, kind="finish")
        return action

    def _action_of(self, step: Step) -> Action | None:
        name, arguments = step.tool_name, step.arguments or {}
        if not name:
            return None
        entry = self.tools.get(name)
        if entry is None:
            return _named_command(name, arguments, step)
        kind = entry.kind
        if entry.kind_by is not None:
            chosen = arguments.get(entry.kind_by.argument)
            kind = entry.kind_by.kinds.get(chosen, kind) if isinstance(chosen, str) else kind
        cwd = _first_string(arguments, entry.cwd) or _step_cwd(step)
        return Action(
            kind,
            _commands(arguments, entry, cwd),
            _paths(arguments, entry),
            cwd,
            tuple(_strings(arguments, entry.url)),
            _lines(arguments, entry),
        )


def _finishes(action: Action) -> bool:
    return any(
        len(c.argv) == 2 and c.argv[0] == "echo" and c.argv[1] in _FINISH_MARKERS
        for c in action.commands
    )


def _kinds_of(entry: ToolEntry) -> set[str]:
    return {entry.kind, *(entry.kind_by.kinds.values() if entry.kind_by else ())}


def _step_cwd(step: Step) -> str | None:
    cwd = step.metadata.get("cwd") if step.metadata else None
    return cwd if isinstance(cwd, str) and cwd else None


def _named_command(name: str, arguments: dict[str, Any], step: Step) -> Action | None:
    """SWE-agent's actions named after their first word (tool_kinds.json)."""
    line = arguments.get(_NAMED_ARGUMENT)
    if name in _NAMED_EXCEPT or len(arguments) != 1 or not isinstance(line, str):
        return None
    if line.split(maxsplit=1)[:1] != [name]:
        return None
    cwd = _step_cwd(step)
    return Action("shell", tuple(split_line(line, cwd)), (), cwd, lines=(line,))


def _commands(arguments: dict[str, Any], entry: ToolEntry, cwd: str | None) -> tuple[Command, ...]:
    found: list[Command] = []
    for value in _values(arguments, entry.command):
        if isinstance(value, str):
            found.extend(split_line(value, cwd))
        elif isinstance(value, list) and all(isinstance(word, str) for word in value):
            found.extend(split_argv(value, cwd))
    for value in _values(arguments, entry.commands):
        lines = value if isinstance(value, list) else [value]
        for line in lines:
            if isinstance(line, str):
                found.extend(split_line(line, cwd))
    return tuple(found)


def _lines(arguments: dict[str, Any], entry: ToolEntry) -> tuple[str, ...]:
    """The command lines as written (an argv array joined with spaces)."""
    found: list[str] = []
    for value in _values(arguments, entry.command):
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, list) and all(isinstance(word, str) for word in value):
            found.append(" ".join(value))
    for value in _values(arguments, entry.commands):
        items = value if isinstance(value, list) else [value]
        found.extend(item for item in items if isinstance(item, str))
    return tuple(line for line in found if line)


_PATCH_FILE = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")


def _paths(arguments: dict[str, Any], entry: ToolEntry) -> tuple[str, ...]:
    found = list(_strings(arguments, entry.path))
    for text in _strings(arguments, entry.patch):
        for line in text.splitlines():
            if line.startswith(_PATCH_FILE):
                found.append(line.split(": ", 1)[1].strip())
    if entry.command_path is not None and not found:
        value = arguments.get("command")
        words = value.split() if isinstance(value, str) else []
        if len(words) > entry.command_path:
            found.append(words[entry.command_path].strip("\"'"))
    return tuple(dict.fromkeys(p for p in found if p))


def _values(arguments: dict[str, Any], paths: tuple[str, ...]) -> Iterator[Any]:
    """The values at each dotted path (`*`: every element of a list), first path that
    has any."""
    for path in paths:
        values = [arguments]
        for part in path.split("."):
            nxt: list[Any] = []
            for value in values:
                if part == "*" and isinstance(value, list):
                    nxt.extend(value)
                elif isinstance(value, dict) and part in value:
                    nxt.append(value[part])
            values = nxt
        if values:
            yield from values
            return


def _strings(arguments: dict[str, Any], paths: tuple[str, ...]) -> Iterator[str]:
    for value in _values(arguments, paths):
        items = value if isinstance(value, list) else [value]
        yield from (item for item in items if isinstance(item, str) and item)


def _first_string(arguments: dict[str, Any], paths: tuple[str, ...]) -> str | None:
    return next(_strings(arguments, paths), None)


__all__ = [
    "KINDS",
    "Action",
    "Command",
    "EntryError",
    "ToolEntry",
    "ToolKinds",
    "parse_entry",
    "register_tool_kinds",
]
