"""`safety` and `tool_kinds` (POLICY-SPEC.md, "Tool kinds" and "Built-in safety
checks"): the switches of ARH-SAF-002..007 and the policy's own tool-kind entries."""

from __future__ import annotations

from typing import Any

import msgspec

from .values import dedupe, err, flag, section, strings

KINDS = ("shell", "file_write", "file_read", "web_fetch")
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
