"""The `trajectory` section (policy v1.1 section 5): expected calls and how to match them."""

from __future__ import annotations

from typing import Any

from ...patterns import GlobSet
from ..common import type_name
from .notes import Notes
from .trajectory_model import ArgumentsMatch, ExpectedCall, MatchMode, Trajectory
from .values import dedupe, err, flag, one_of, section, strings

_MODES = tuple(mode.value for mode in MatchMode)
_ARGUMENT_MODES = tuple(mode.value for mode in ArgumentsMatch)
_ENTRY_KEYS = ("tool", "arguments", "arguments_match", "optional")


def parse_trajectory(data: dict[str, Any], notes: Notes) -> Trajectory | None:
    if data.get("trajectory") is None:
        return None
    raw = section(data, "trajectory")
    mode = one_of(raw, "match", "trajectory.match", _MODES)
    default = one_of(raw, "arguments_match", "trajectory.arguments_match", _ARGUMENT_MODES)
    ignore_tools = dedupe(strings(raw, "ignore_tools", "trajectory.ignore_tools", "globs"))
    ignored = dedupe(
        strings(raw, "ignore_arguments", "trajectory.ignore_arguments", "argument names")
    )
    globs = GlobSet(ignore_tools)
    expected = raw.get("expected")
    if expected is None:
        raise err("trajectory.expected", "is required (a list of expected calls)")
    if not isinstance(expected, list):
        raise err("trajectory.expected", f"must be a list of calls (got {type_name(expected)})")
    default_match = ArgumentsMatch(default or ArgumentsMatch.EXACT)
    calls = tuple(
        _expected_call(
            entry,
            f"trajectory.expected[{i}]",
            default=default_match,
            ignored=ignored,
            notes=notes,
        )
        for i, entry in enumerate(expected)
    )
    return Trajectory(
        expected=calls,
        match=MatchMode(mode or MatchMode.IN_ORDER),
        arguments_match=default_match,
        ignore_tools=globs,
        ignore_arguments=ignored,
    )


def _expected_call(
    entry: Any,
    where: str,
    *,
    default: ArgumentsMatch,
    ignored: tuple[str, ...],
    notes: Notes,
) -> ExpectedCall:
    if not isinstance(entry, dict):
        raise err(where, f"must be an object with a 'tool' (got {type_name(entry)})")
    tool = entry.get("tool")
    if tool is None:
        raise err(f"{where}.tool", "is required")
    if not isinstance(tool, str) or not tool:
        raise err(f"{where}.tool", f"must be a non-empty string (got {type_name(tool)})")
    arguments = entry.get("arguments")
    if arguments is not None and not isinstance(arguments, dict):
        raise err(f"{where}.arguments", f"must be an object (got {type_name(arguments)})")
    own = one_of(entry, "arguments_match", f"{where}.arguments_match", _ARGUMENT_MODES)
    match = ArgumentsMatch(own) if own is not None else default
    if arguments is not None and match is ArgumentsMatch.IGNORE:
        notes.warn(
            f"{where}.arguments", "is never compared: arguments_match is 'ignore' for this entry"
        )
    compared = None
    if arguments is not None:
        compared = {k: v for k, v in arguments.items() if k not in ignored}
    written = {k: entry[k] for k in _ENTRY_KEYS if entry.get(k) is not None}
    return ExpectedCall(
        tool=tool,
        arguments=arguments,
        compared_arguments=compared,
        arguments_match=match,
        optional=flag(entry, "optional", f"{where}.optional"),
        entry=written,
    )
