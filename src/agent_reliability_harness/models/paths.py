"""Dotted paths into arguments and outputs (policy v1.2, `*` from v1.3): the one place
that checks their shape and resolves them, for every key that takes a path
(`preconditions.same`, `failed_when.path`, `claims.same` and `claims.values.in`).

- A path is parts joined by `.`; `""` is the whole value where a key allows it.
- On an object, a part is a key (`*` included: an object's own `"*"` key, as in v1.2).
- On a list, a part written in decimal digits is an index, and `*` (v1.3) is every
  element: the path then reaches every value its elements lead to, in list order.
- A path leads nowhere (MISSING, or no values) when a part is not found.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

__all__ = ["MISSING", "STAR", "has_star", "path_problem", "split_path", "value_at", "values_at"]

STAR = "*"
# What value_at gives for a path that leads nowhere.
MISSING: Any = object()


def path_problem(value: Any, empty_ok: bool = False) -> str | None:
    """Why `value` is not a dotted path (a message fit for a policy error), or None."""
    if not isinstance(value, str):
        return "must be a dotted path string"
    if value == "" and empty_ok:
        return None
    if not value or any(not part for part in value.split(".")):
        return "must be a dotted path of non-empty parts"
    return None


@lru_cache(maxsize=1024)
def split_path(path: str) -> tuple[str, ...]:
    """A path's parts (`""`: none)."""
    return tuple(path.split(".")) if path else ()


def has_star(path: str) -> bool:
    """Whether the path holds a `*` part (so it may reach several values)."""
    return STAR in split_path(path)


def _step(value: Any, part: str) -> Any:
    if isinstance(value, Mapping):
        return value.get(part, MISSING)
    if isinstance(value, list) and part.isdecimal() and part.isascii():
        position = int(part)
        return value[position] if position < len(value) else MISSING
    return MISSING


def value_at(value: Any, path: str) -> Any:
    """The value at a path without a list `*` (`""`: the value itself), or MISSING. A
    `*` that meets a list makes the path lead nowhere here: use `values_at`."""
    if not path:
        return value
    for part in split_path(path):
        value = _step(value, part)
        if value is MISSING:
            return MISSING
    return value


def values_at(value: Any, path: str) -> list[Any]:
    """Every value the path reaches: one (or none) without `*`; with `*`, those of each
    element of the list it meets, in order (an empty list reaches none)."""
    if STAR not in split_path(path):
        found = value_at(value, path)
        return [] if found is MISSING else [found]
    current = [value]
    for part in split_path(path):
        following: list[Any] = []
        for item in current:
            if part == STAR and isinstance(item, list):
                following.extend(item)
                continue
            nxt = _step(item, part)
            if nxt is not MISSING:
                following.append(nxt)
        current = following
        if not current:
            break
    return current
