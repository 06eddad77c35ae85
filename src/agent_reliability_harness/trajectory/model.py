"""Expected trajectories (policy v1.1 section 5): the inputs, and how one expected entry
compares a call's arguments. Plain Python values in; matching lives in the sibling modules.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from fnmatch import fnmatchcase
from typing import Any

import msgspec


class MatchMode(StrEnum):
    """How the considered calls must relate to the expected entries."""

    STRICT = "strict"
    IN_ORDER = "in_order"
    UNORDERED = "unordered"
    SUPERSET = "superset"
    SUBSET = "subset"

    @property
    def ordered(self) -> bool:
        """Order matters: the matching is a common subsequence."""
        return self in (MatchMode.STRICT, MatchMode.IN_ORDER)

    @property
    def forbids_extras(self) -> bool:
        """A considered call that matches no entry is ARH-SEQ-007."""
        return self in (MatchMode.STRICT, MatchMode.UNORDERED, MatchMode.SUBSET)

    @property
    def reports_missing(self) -> bool:
        """An unmatched non-optional entry is ARH-SEQ-006 (every mode but subset)."""
        return self is not MatchMode.SUBSET


class ArgumentsMatch(StrEnum):
    """How an entry's `arguments` compare with a call's."""

    EXACT = "exact"
    SUBSET = "subset"
    IGNORE = "ignore"


class ExpectedCall(msgspec.Struct, frozen=True):
    """One `trajectory.expected` entry. `arguments` None matches on the tool alone;
    `arguments_match` None takes the section's."""

    tool: str
    arguments: Mapping[str, Any] | None = None
    arguments_match: ArgumentsMatch | None = None
    optional: bool = False


class TrajectorySpec(msgspec.Struct, frozen=True):
    """A `trajectory` section, already parsed (the policy loader builds it)."""

    expected: tuple[ExpectedCall, ...]
    match: MatchMode = MatchMode.IN_ORDER
    arguments_match: ArgumentsMatch = ArgumentsMatch.EXACT
    ignore_tools: tuple[str, ...] = ()
    ignore_arguments: frozenset[str] = frozenset()


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values: numbers by value, a boolean never equals a number,
    key order irrelevant, arrays element-wise."""
    kind = type(a)
    # Exact-type fast paths first: this runs once per (entry, call, key).
    if kind is str:
        return type(b) is str and bool(a == b)
    if kind is int or kind is float:
        other = type(b)
        if other is int or other is float:
            return bool(a == b)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return bool(a == b)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and bool(a == b)


class ToolFilter:
    """`ignore_tools` globs (fnmatch, case-sensitive). A tool that an expected entry
    names is never ignored: the spec's own example lists `get_user_details` next to
    `ignore_tools: ["get_*"]`, and an entry that could never match would be useless."""

    __slots__ = ("_globs", "_named", "cache")

    def __init__(self, spec: TrajectorySpec) -> None:
        self._globs = spec.ignore_tools
        self._named = frozenset(entry.tool for entry in spec.expected)
        self.cache: dict[str, bool] = {}  # the answer for every tool asked about so far

    def ignores(self, tool: str) -> bool:
        hit = self.cache.get(tool)
        if hit is None:
            hit = tool not in self._named and any(fnmatchcase(tool, g) for g in self._globs)
            self.cache[tool] = hit
        return hit


def strip_arguments(arguments: Mapping[str, Any] | None, ignore: frozenset[str]) -> dict[str, Any]:
    """The arguments a comparison sees: absent is `{}`; `ignore_arguments` (top-level
    names) left out."""
    if not arguments:
        return {}
    return {k: v for k, v in arguments.items() if k not in ignore}


_ABSENT = object()


class EntryTest:
    """One expected entry, compiled: does a call match it, and how many of its
    argument keys does a call hold with an equal value (the nearest-call score)."""

    __slots__ = ("expected", "mode", "optional", "tool")

    def __init__(self, entry: ExpectedCall, spec: TrajectorySpec) -> None:
        self.tool = entry.tool
        self.optional = entry.optional
        self.mode = entry.arguments_match or spec.arguments_match
        # None: the entry matches on the tool alone.
        self.expected: dict[str, Any] | None = None
        if entry.arguments is not None:
            self.expected = strip_arguments(entry.arguments, spec.ignore_arguments)

    def compare(self, arguments: Mapping[str, Any], kept_keys: int) -> tuple[bool, int]:
        """(matches, equal keys) for a call of this tool; `arguments` may still hold
        ignored keys, `kept_keys` is how many it holds that are not ignored."""
        expected = self.expected
        if expected is None:
            return True, 0
        equal = 0
        for key, value in expected.items():
            other = arguments.get(key, _ABSENT)
            if other is not _ABSENT and json_equal(value, other):
                equal += 1
        if self.mode is ArgumentsMatch.IGNORE:
            return True, equal
        if self.mode is ArgumentsMatch.SUBSET:
            return equal == len(expected), equal
        return equal == len(expected) == kept_keys, equal
