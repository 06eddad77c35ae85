"""The argument type names a policy may declare, and what each accepts: the one table.

The parser stores the canonical name (`str, int, float, bool, list, dict, any`) in
`ArgSpec.type`, or an unknown name as written (which skips the type check), so rules
only ever see canonical names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _integer(value: Any) -> bool:
    """An integer, or a float with no fractional part (`3.0`): JSON has one number type,
    and JSON Schema's `integer` accepts any number whose fractional part is zero."""
    if isinstance(value, int):
        return not isinstance(value, bool)
    return isinstance(value, float) and value.is_integer()


# A boolean is never an int or a float; a float also accepts integers (the contract).
ARG_TYPES: dict[str, Callable[[Any], bool]] = {
    "str": lambda v: isinstance(v, str),
    "int": _integer,
    "float": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
    "list": lambda v: isinstance(v, list),
    "dict": lambda v: isinstance(v, dict),
    "any": lambda v: True,
}
KNOWN_TYPES: frozenset[str] = frozenset(ARG_TYPES)
# Spelling -> canonical name. The JSON Schema spellings (policy v1.1) are what editors and
# LLM tool definitions use, so a policy copied from a tool's JSON Schema reads as meant.
TYPE_NAMES: dict[str, str] = {
    **{name: name for name in ARG_TYPES},
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "array": "list",
    "object": "dict",
}


def canonical_type(name: str) -> str | None:
    """The canonical name of a type spelling, or None when the spelling is unknown."""
    return TYPE_NAMES.get(name)


def type_matches(arg_type: str, value: Any) -> bool | None:
    """True/False for a known type name, None for an unknown one (check skipped)."""
    check = ARG_TYPES.get(arg_type)
    return None if check is None else bool(check(value))


def type_list(names: list[str], last: str = ", ") -> str:
    """Type names for a sentence: `str, int, ..., dict` (`last` before the last one)."""
    return ", ".join(names[:-1]) + last + names[-1]
