"""Readers for the policy's scalar and list values, each raising PolicyError at its field.

JSON `null` is "not set" everywhere; booleans are never numbers. These helpers hold
the v1 wording of every error, so the messages stay what teams already match on.
"""

from __future__ import annotations

import math
from typing import Any

from ...errors import PolicyError
from ...patterns import PatternSet, Searcher
from ..common import finite_non_negative, is_number, non_negative_int, type_name


def err(where: str, what: str) -> PolicyError:
    return PolicyError(f"policy {where}: {what}" if where else f"policy: {what}")


def section(data: dict[str, Any], key: str, where: str | None = None) -> dict[str, Any]:
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise err(where or key, f"must be an object (got {type_name(value)})")
    return value


def flag(d: dict[str, Any], key: str, where: str) -> bool:
    value = d.get(key)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise err(where, f"must be a boolean (got {type_name(value)})")
    return value


def number(d: dict[str, Any], key: str, where: str) -> float | None:
    value = d.get(key)
    if value is None:
        return None
    try:
        return finite_non_negative(value)
    except ValueError as exc:
        raise err(where, f"{exc} (got {show(value)})") from None


def count(d: dict[str, Any], key: str, where: str, minimum: int) -> int | None:
    value = d.get(key)
    if value is None:
        return None
    try:
        return non_negative_int(value, minimum)
    except ValueError as exc:
        raise err(where, f"{exc} (got {show(value)})") from None


def finite(value: object) -> bool:
    """A JSON number that is finite as a float (10**309 is not: no float holds it)."""
    if not is_number(value):
        return False
    assert isinstance(value, int | float)
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def show(value: object) -> str:
    if isinstance(value, bool | int | float) or value is None:
        if value is None:
            return "null"
        if isinstance(value, bool):
            return str(value).lower()
        digits = len(str(abs(value))) if isinstance(value, int) else 0
        if digits > 40:
            return f"an integer of {digits} digits"
        return str(value)
    if isinstance(value, str):
        return repr(value[:60])
    return type_name(value)


def strings(d: dict[str, Any], key: str, where: str, what: str = "tool names") -> tuple[str, ...]:
    """A list of strings (None: empty), as written."""
    value = d.get(key)
    if value is None:
        return ()
    if not isinstance(value, list):
        raise err(where, f"must be an array of {what} (got {type_name(value)})")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise err(f"{where}[{i}]", f"must be a string (got {type_name(item)})")
    return tuple(value)


def dedupe(names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))


def one_of(d: dict[str, Any], key: str, where: str, choices: tuple[str, ...]) -> str | None:
    """A string that must be one of `choices`; None when absent."""
    value = d.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(choices)
        raise err(where, f"must be one of {listed} (got {show(value)})")
    return value


def pattern_list(
    d: dict[str, Any], key: str, where: str
) -> tuple[tuple[str, ...], tuple[Searcher, ...]]:
    """A list of RE2 patterns (case-insensitive searches), deduplicated, each compiled."""
    compiled: dict[str, Searcher] = {}
    for i, pattern in enumerate(strings(d, key, where, "regular expressions")):
        if pattern in compiled:
            continue
        try:
            compiled[pattern] = Searcher(pattern, case_sensitive=False)
        except ValueError as exc:
            raise err(f"{where}[{i}]", f"{pattern!r} {exc}") from None
    return tuple(compiled), tuple(compiled.values())


def pattern_set(d: dict[str, Any], key: str, where: str) -> PatternSet:
    """`pattern_list` as one set (the patterns are known to compile)."""
    patterns, _ = pattern_list(d, key, where)
    return PatternSet(patterns)
