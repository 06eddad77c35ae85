"""Policy model: the `trajectory` section (policy v1.1 section 5), re-exported by model.py."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import msgspec

from ...patterns import GlobSet


class MatchMode(StrEnum):
    """`trajectory.match` (section 5)."""

    STRICT = "strict"
    IN_ORDER = "in_order"
    UNORDERED = "unordered"
    SUPERSET = "superset"
    SUBSET = "subset"

    @property
    def forbids_extra_calls(self) -> bool:
        """The modes in which a considered call matching no entry is ARH-SEQ-007."""
        return self in (MatchMode.STRICT, MatchMode.UNORDERED, MatchMode.SUBSET)

    @property
    def ordered(self) -> bool:
        return self in (MatchMode.STRICT, MatchMode.IN_ORDER)


class ArgumentsMatch(StrEnum):
    """`arguments_match` (section 5)."""

    EXACT = "exact"
    SUBSET = "subset"
    IGNORE = "ignore"


class ExpectedCall(msgspec.Struct, frozen=True):
    """One `trajectory.expected` entry, with the section defaults applied."""

    tool: str
    # As written; None when the entry matches on the tool alone.
    arguments: dict[str, Any] | None = None
    # `arguments` without the `ignore_arguments` keys: what matching compares.
    compared_arguments: dict[str, Any] | None = None
    arguments_match: ArgumentsMatch = ArgumentsMatch.EXACT  # the entry's, else the section's
    optional: bool = False
    entry: dict[str, Any] = msgspec.field(default_factory=dict)  # as written, for findings


class Trajectory(msgspec.Struct, frozen=True):
    expected: tuple[ExpectedCall, ...] = ()
    match: MatchMode = MatchMode.IN_ORDER
    arguments_match: ArgumentsMatch = ArgumentsMatch.EXACT
    ignore_tools: GlobSet = msgspec.field(default_factory=lambda: GlobSet(()))
    ignore_arguments: tuple[str, ...] = ()

    def considers(self, tool_name: str) -> bool:
        """Whether calls of this tool take part in matching: a tool an entry names always
        does (the contract's own example expects `get_user_details` next to
        `ignore_tools: ["get_*"]`), any other unless an `ignore_tools` glob matches it."""
        if any(call.tool == tool_name for call in self.expected):
            return True
        return not self.ignore_tools.matches(tool_name)

    @property
    def required_entries(self) -> int:
        """Non-optional entries: one sequence check each."""
        return sum(1 for call in self.expected if not call.optional)
