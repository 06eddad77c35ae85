"""The argument type names a policy may write, and the one name each stands for.

This table is the only place that lists type spellings: the parser stores the
canonical name in `ArgSpec.type`, so rules only ever see `str, int, float, bool,
list, dict, any` (or an unknown name as written, which skips the type check).
"""

from __future__ import annotations

# Spelling -> canonical name. The JSON Schema spellings are what editors and LLM tool
# definitions use, so a policy copied from a tool's JSON Schema reads as meant.
TYPE_NAMES: dict[str, str] = {
    "str": "str",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "list": "list",
    "dict": "dict",
    "any": "any",
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "array": "list",
    "object": "dict",
}

KNOWN_TYPES = frozenset(TYPE_NAMES.values())


def canonical_type(name: str) -> str | None:
    """The canonical name of a type spelling, or None when the spelling is unknown."""
    return TYPE_NAMES.get(name)
