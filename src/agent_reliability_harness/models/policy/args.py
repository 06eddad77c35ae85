"""Argument specs: the v1 keys (type, enum, pattern, min, max) and the v1.1 ones
(not_pattern, min_length/max_length, items, properties/required, grounded), nested.

`where` is the v1 error location (`tool 't' argument 'a'`), `path` the dotted place
used by warnings (`allowed_tools.t.required_arguments.a`).
"""

from __future__ import annotations

from typing import Any

from ...patterns import FullMatcher, Searcher
from ..common import type_name
from ..types import TYPE_NAMES, canonical_type
from .model import ArgSpec
from .notes import Notes, did_you_mean, dotted
from .values import count, dedupe, err, finite, flag, show, strings

# Deeper nesting of items/properties than any real argument has; bounds the recursion.
MAX_SPEC_DEPTH = 32

# The v1.1 keys that only mean something for some types (canonical names; `any` and
# unknown types take everything).
_APPLIES_TO = {
    "not_pattern": ("str", "strings"),
    "min_length": ("str list", "strings and lists"),
    "max_length": ("str list", "strings and lists"),
    "items": ("list", "lists"),
    "properties": ("dict", "objects"),
    "required": ("dict", "objects"),
}


def _type(raw: str, path: str, notes: Notes) -> str:
    canonical = canonical_type(raw)
    if canonical is None:
        notes.warn(path, f"unknown type '{raw}'{did_you_mean(raw, TYPE_NAMES)}")
        return raw
    return canonical


def parse_arg_spec(raw: Any, where: str, path: str, notes: Notes, depth: int = 0) -> ArgSpec:
    """One argument spec: a bare type name or an object."""
    if isinstance(raw, str):
        return ArgSpec(type=_type(raw, path, notes))
    if not isinstance(raw, dict):
        raise err(where, f"must be a type name or an object (got {type_name(raw)})")
    if depth >= MAX_SPEC_DEPTH:
        raise err(where, f"nests items/properties deeper than {MAX_SPEC_DEPTH} levels")
    arg_type = raw.get("type", "any")
    if arg_type is None:
        arg_type = "any"
    if not isinstance(arg_type, str):
        raise err(f"{where}.type", f"must be a type name string (got {type_name(arg_type)})")
    arg_type = _type(arg_type, dotted(path, "type"), notes)
    enum = raw.get("enum")
    if enum is not None and not isinstance(enum, list):
        raise err(f"{where}.enum", f"must be a list (got {type_name(enum)})")
    matcher = _full_matcher(raw, where)  # v1 order of checks: type, enum, pattern, bounds
    low, high = _bound(raw, "min", where), _bound(raw, "max", where)
    if low is not None and high is not None and low > high:
        raise err(where, f"min ({show(low)}) exceeds max ({show(high)})")
    min_length = count(raw, "min_length", f"{where}.min_length", 0)
    max_length = count(raw, "max_length", f"{where}.max_length", 0)
    if min_length is not None and max_length is not None and min_length > max_length:
        raise err(where, f"min_length ({min_length}) exceeds max_length ({max_length})")
    _warn_inapplicable(raw, arg_type, path, notes)
    return ArgSpec(
        type=arg_type,
        enum=None if enum is None else tuple(enum),
        pattern=matcher,
        min=low,
        max=high,
        not_pattern=_searcher(raw, where),
        min_length=min_length,
        max_length=max_length,
        items=_nested(raw.get("items"), f"{where}.items", dotted(path, "items"), notes, depth),
        properties=_properties(raw, where, path, notes, depth),
        required=dedupe(strings(raw, "required", f"{where}.required", "argument names")),
        grounded=flag(raw, "grounded", f"{where}.grounded"),
    )


def _bound(raw: dict[str, Any], key: str, where: str) -> float | None:
    value = raw.get(key)
    if value is not None and not finite(value):
        raise err(f"{where}.{key}", f"must be a finite number (got {show(value)})")
    return value


def _full_matcher(raw: dict[str, Any], where: str) -> FullMatcher | None:
    pattern = raw.get("pattern")
    if pattern is None:
        return None
    if not isinstance(pattern, str):
        raise err(f"{where}.pattern", f"must be a string (got {type_name(pattern)})")
    try:
        return FullMatcher(pattern)
    except ValueError as exc:
        raise err(f"{where}.pattern", f"{pattern!r} {exc}") from None


def _searcher(raw: dict[str, Any], where: str) -> Searcher | None:
    pattern = raw.get("not_pattern")
    if pattern is None:
        return None
    if not isinstance(pattern, str):
        raise err(f"{where}.not_pattern", f"must be a string (got {type_name(pattern)})")
    try:
        return Searcher(pattern, case_sensitive=True)
    except ValueError as exc:
        raise err(f"{where}.not_pattern", f"{pattern!r} {exc}") from None


def _nested(raw: Any, where: str, path: str, notes: Notes, depth: int) -> ArgSpec | None:
    return None if raw is None else parse_arg_spec(raw, where, path, notes, depth + 1)


def _properties(
    raw: dict[str, Any], where: str, path: str, notes: Notes, depth: int
) -> dict[str, ArgSpec] | None:
    value = raw.get("properties")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise err(
            f"{where}.properties",
            f"must be an object of argument specs (got {type_name(value)})",
        )
    base = dotted(path, "properties")
    return {
        name: parse_arg_spec(
            spec, f"{where}.properties.{name}", dotted(base, name), notes, depth + 1
        )
        for name, spec in value.items()
    }


def _warn_inapplicable(raw: dict[str, Any], arg_type: str, path: str, notes: Notes) -> None:
    """A v1.1 key that can never apply to the declared type is a warning (v1 keys keep
    their v1 silence)."""
    if arg_type == "any" or canonical_type(arg_type) is None:
        return
    for key, (types, what) in _APPLIES_TO.items():
        if raw.get(key) is not None and arg_type not in types.split():
            notes.warn(dotted(path, key), f"applies only to {what}, never to type '{arg_type}'")


def parse_arg_specs(
    raw: dict[str, Any], key: str, where: str, path: str, notes: Notes
) -> dict[str, ArgSpec]:
    """`required_arguments` / `optional_arguments` of a tool."""
    value = raw.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise err(f"{where} {key}", f"must be an object of argument specs (got {type_name(value)})")
    base = dotted(path, key)
    return {
        name: parse_arg_spec(spec, f"{where} argument '{name}'", dotted(base, name), notes)
        for name, spec in value.items()
    }
