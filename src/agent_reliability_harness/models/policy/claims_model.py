"""The compiled policy v1.3 keys: `claims` and the `completion` keys of ARH-GRD-005.

Nothing is parsed here (v13.py parses); every pattern is compiled, every path checked.
"""

from __future__ import annotations

import msgspec

from ...patterns import Searcher

__all__ = ["SCOPES", "Claim", "ClaimValues", "FalseSuccess"]

# `scope`: "final" (default) judges the final answer; "all" every model response.
SCOPES = ("final", "all")


class ClaimValues(msgspec.Struct, frozen=True):
    """One `values` entry: every distinct text `pattern` finds in the sentence (its first
    group; the whole match when it has none) is among the values at `path` (`in`) of
    the call that backs the claim."""

    pattern: Searcher
    path: str  # dotted, as written; `output.` reads the call's output


class Claim(msgspec.Struct, frozen=True):
    """One `claims` entry (policy v1.3 section 1)."""

    name: str
    when: Searcher  # case-sensitive as written; `(?i)` makes it insensitive
    requires: tuple[str, ...]  # tool names, as written, deduplicated
    unless: Searcher | None = None
    same: tuple[tuple[str, str], ...] = ()  # (group name of `when`, path in the call)
    values: tuple[ClaimValues, ...] = ()
    scope: str = "final"  # one of SCOPES
    ignore_case: bool = False  # strings compare case-insensitively
    # Every path of the call the claim reads: the `same` ones, then the `values` ones.
    paths: tuple[str, ...] = ()


class FalseSuccess(msgspec.Struct, frozen=True):
    """`completion.no_false_success` (ARH-GRD-005) with its two patterns."""

    tools: tuple[str, ...] = ()  # as listed; empty with `every_side_effect`
    every_side_effect: bool = False  # `true`: every tool listed with `side_effect: true`
    success: Searcher | None = None  # None: the default success pattern
    failure: Searcher | None = None  # None: the default failure pattern
