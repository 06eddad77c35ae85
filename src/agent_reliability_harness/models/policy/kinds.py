"""`safety` and `tool_kinds` (POLICY-SPEC.md, "Tool kinds" and "Built-in safety
checks"): the switches of ARH-SAF-002..007 and the policy's own tool-kind entries."""

from __future__ import annotations

from typing import Any

import msgspec

from .values import dedupe, err, flag, section, strings

KINDS = ("shell", "file_write", "file_read", "web_fetch", "finish")
SAFETY_SWITCHES = (
    "secrets",
    "destructive_commands",
    "download_to_shell",
    "credential_files",
    "write_outside_workdir",
    "skipped_hooks",
)
DEFAULT_PROTECTED = ("main", "master")


class Safety(msgspec.Struct, frozen=True):
    """The `safety` section: which built-in safety rules run, and their settings."""

    secrets: bool = False  # ARH-SAF-002
    destructive_commands: bool = False  # ARH-SAF-003
    download_to_shell: bool = False  # ARH-SAF-004
    credential_files: bool = False  # ARH-SAF-005
    write_outside_workdir: bool = False  # ARH-SAF-006
    skipped_hooks: bool = False  # ARH-SAF-007
    protected_branches: tuple[str, ...] = DEFAULT_PROTECTED


def parse_safety(data: dict[str, Any]) -> Safety:
    raw = section(data, "safety")
    switches = {key: flag(raw, key, f"safety.{key}") for key in SAFETY_SWITCHES}
    protected: tuple[str, ...] = DEFAULT_PROTECTED
    if raw.get("protected_branches") is not None:
        protected = dedupe(
            strings(raw, "protected_branches", "safety.protected_branches", "branch names")
        )
    return Safety(**switches, protected_branches=protected)


def parse_tool_kinds(data: dict[str, Any]) -> dict[str, Any]:
    """The policy's tool-kind entries by tool name (ToolEntry values)."""
    from ...toolkinds import EntryError, parse_entry  # noqa: PLC0415 - toolkinds reads traces

    raw = section(data, "tool_kinds")
    parsed: dict[str, Any] = {}
    for name, entry in raw.items():
        try:
            parsed[name] = parse_entry(entry)
        except EntryError as exc:
            raise err(f"tool_kinds.{name}", str(exc)) from None
    return parsed


def parse_side_effect_kinds(raw: dict[str, Any]) -> tuple[str, ...]:
    """`error_handling.side_effect_kinds`: kinds whose calls ARH-FLW-007 treats as side effects."""
    where = "error_handling.side_effect_kinds"
    kinds = dedupe(strings(raw, "side_effect_kinds", where, "tool kinds"))
    for kind in kinds:
        if kind not in KINDS:
            raise err(where, f"'{kind}' is not a tool kind ({', '.join(KINDS)})")
    return kinds


KIND_PREFIX = "kind:"


def expand_kind_names(data: dict[str, Any], own: dict[str, Any]) -> dict[str, Any]:
    """The policy with each `kind:NAME` in `sequence.forbidden_tools`,
    `completion.final_tools` and `unsafe_patterns[].tools` replaced by the tool names of
    that kind (the bundled mapping, what plugins registered, the policy's own
    `tool_kinds`); a copy when any is replaced, else the policy itself."""
    sequence, completion = data.get("sequence"), data.get("completion")
    patterns = data.get("unsafe_patterns")
    named = (
        _names(sequence, "forbidden_tools")
        or _names(completion, "final_tools")
        or (isinstance(patterns, list) and any(_names(item, "tools") for item in patterns))
    )
    if not named:
        return data
    from ...toolkinds import ToolKinds  # noqa: PLC0415 - only for a policy that names kinds

    mapping = ToolKinds(own)
    out = dict(data)
    if _names(sequence, "forbidden_tools"):
        assert isinstance(sequence, dict)
        out["sequence"] = {
            **sequence,
            "forbidden_tools": _expand(
                sequence["forbidden_tools"], mapping, "sequence.forbidden_tools"
            ),
        }
    if _names(completion, "final_tools"):
        assert isinstance(completion, dict)
        out["completion"] = {
            **completion,
            "final_tools": _expand(completion["final_tools"], mapping, "completion.final_tools"),
        }
    if isinstance(patterns, list):
        out["unsafe_patterns"] = [
            {**item, "tools": _expand(item["tools"], mapping, f"unsafe_patterns[{i}].tools")}
            if _names(item, "tools")
            else item
            for i, item in enumerate(patterns)
        ]
    return out


def named_kinds(data: dict[str, Any], section_key: str, key: str) -> tuple[str, ...]:
    """The kinds a list names (`kind:NAME` entries), as written."""
    holder = data.get(section_key)
    value = holder.get(key) if isinstance(holder, dict) else None
    if not isinstance(value, list):
        return ()
    return tuple(
        dict.fromkeys(
            n[len(KIND_PREFIX) :] for n in value if isinstance(n, str) and n.startswith(KIND_PREFIX)
        )
    )


def _names(holder: Any, key: str) -> bool:
    """Whether `holder[key]` is a list naming a kind."""
    value = holder.get(key) if isinstance(holder, dict) else None
    return isinstance(value, list) and any(
        isinstance(name, str) and name.startswith(KIND_PREFIX) for name in value
    )


def _expand(names: list[Any], mapping: Any, where: str) -> list[Any]:
    out: list[Any] = []
    for index, name in enumerate(names):
        if not (isinstance(name, str) and name.startswith(KIND_PREFIX)):
            out.append(name)
            continue
        kind = name[len(KIND_PREFIX) :]
        if kind not in KINDS:
            raise err(f"{where}[{index}]", f"'{kind}' is not a tool kind ({', '.join(KINDS)})")
        out.extend(mapping.names_of(kind))
    return out
