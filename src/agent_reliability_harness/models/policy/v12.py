"""The policy v1.2 keys of sections 2-4: `preconditions`, a tool's `output` contract and
`failed_when`, and `error_handling.max_identical_repeats` / `require_recorded_outcome`.

Paths are dotted (`order.id`, `items.0.sku`, v1.3 `items.*.sku`; models/paths.py):
each part is an object key, a list index written in decimal, or `*` for every element
of a list. They are checked for shape here and kept as written.
"""

from __future__ import annotations

from typing import Any

from ...patterns import Searcher
from ..common import type_name
from ..paths import has_star, path_problem
from .args import parse_arg_spec
from .model import ArgSpec, FailedWhen, Precondition
from .notes import Notes, dotted
from .values import count, err, flag, section, show

__all__ = [
    "parse_failed_when",
    "parse_output",
    "parse_path",
    "parse_preconditions",
    "parse_repeats",
]


def _path(value: Any, where: str, empty_ok: bool = False) -> str:
    """A dotted path (models/paths.py): a string of non-empty parts ("" only where it
    means the whole); a `*` part is every element of a list (v1.3)."""
    problem = path_problem(value, empty_ok)
    if problem is None:
        return str(value)
    got = type_name(value) if not isinstance(value, str) else show(value)
    raise err(where, f"{problem} (got {got})")


def parse_preconditions(
    data: dict[str, Any], notes: Notes, where: str = "preconditions"
) -> tuple[Precondition, ...]:
    """`preconditions` of `data` (the policy, or a partial policy such as an agent's
    entry, whose place `where` names): a list of {call, requires, same}; tools are exact
    names."""
    raw = data.get("preconditions")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise err(where, f"must be a list of objects (got {type_name(raw)})")
    return tuple(_precondition(item, f"{where}[{i}]", notes) for i, item in enumerate(raw))


def _precondition(item: Any, where: str, notes: Notes) -> Precondition:
    if not isinstance(item, dict):
        raise err(where, f"must be an object (got {type_name(item)})")
    names = []
    for key in ("call", "requires"):
        name = item.get(key)
        if name is None:
            raise err(f"{where}.{key}", "is required (a tool name)")
        if not isinstance(name, str) or not name:
            raise err(f"{where}.{key}", f"must be a non-empty tool name (got {show(name)})")
        names.append(name)
    same = section(item, "same", f"{where}.same")
    pairs = tuple(
        (_path(left, f"{where}.same"), _path(right, f"{where}.same.{left}"))
        for left, right in same.items()
    )
    if names[0] == names[1]:
        notes.warn(
            dotted(where, "requires"),
            f"a call of '{names[0]}' needs an earlier one, so its first call never meets it",
        )
    return Precondition(call=names[0], requires=names[1], same=pairs)


def parse_output(raw: dict[str, Any], where: str, path: str, notes: Notes) -> ArgSpec | None:
    """A tool's `output` contract: one argument spec (a bare type name or an object)."""
    value = raw.get("output")
    if value is None:
        return None
    return parse_arg_spec(value, f"{where} output", dotted(path, "output"), notes)


def parse_failed_when(raw: dict[str, Any], where: str) -> tuple[FailedWhen, ...]:
    """A tool's `failed_when`: a list of {path, equals} or {path, pattern}."""
    value = raw.get("failed_when")
    if value is None:
        return ()
    if not isinstance(value, list):
        raise err(f"{where} failed_when", f"must be a list of objects (got {type_name(value)})")
    return tuple(_failed_when(item, f"{where} failed_when[{i}]") for i, item in enumerate(value))


def _failed_when(item: Any, where: str) -> FailedWhen:
    if not isinstance(item, dict):
        raise err(where, f"must be an object (got {type_name(item)})")
    if "path" not in item or item["path"] is None:
        raise err(f"{where}.path", 'is required (a dotted path; "" for the output itself)')
    path = _path(item["path"], f"{where}.path", empty_ok=True)
    # `equals` is a JSON value, null included: given when the key is there.
    has_equals, pattern = "equals" in item, item.get("pattern")
    if has_equals == (pattern is not None):
        raise err(where, "must hold exactly one of 'equals' and 'pattern'")
    if pattern is None:
        return FailedWhen(path=path, equals=item["equals"], has_equals=True, star=has_star(path))
    if not isinstance(pattern, str):
        raise err(f"{where}.pattern", f"must be a string (got {type_name(pattern)})")
    try:
        searcher = Searcher(pattern, case_sensitive=True)
    except ValueError as exc:
        raise err(f"{where}.pattern", f"{pattern!r} {exc}") from None
    return FailedWhen(path=path, pattern=searcher, star=has_star(path))


def parse_repeats(raw: dict[str, Any], notes: Notes, side_effects: bool) -> tuple[int | None, bool]:
    """`error_handling.max_identical_repeats` and `require_recorded_outcome`."""
    repeats = count(raw, "max_identical_repeats", "error_handling.max_identical_repeats", 1)
    recorded = flag(raw, "require_recorded_outcome", "error_handling.require_recorded_outcome")
    if recorded and not side_effects:
        notes.warn(
            "error_handling.require_recorded_outcome",
            "has no effect: no listed tool has 'side_effect: true'",
        )
    return repeats, recorded


def parse_path(value: Any, where: str, empty_ok: bool = False) -> str:
    """A dotted path of any key that takes one (v1.3 `claims` too), checked for shape."""
    return _path(value, where, empty_ok)
