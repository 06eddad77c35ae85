"""Enums and the small value checks shared by the trace, policy and report parsers.

Checks return plain Python values or raise ValueError with a short phrase that
the caller places after the field's name; they never format locations.
"""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Any

SUPPORTED_MAJOR = "1"
# Counts and token totals are 64-bit in every consumer we feed (SARIF, JUnit, databases).
MAX_INT = 2**63 - 1


class Severity(StrEnum):
    """Finding severity, ordered from most to least serious."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return _SEVERITY_RANK[self]


_SEVERITY_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


class Category(StrEnum):
    """Rule categories, in the order the contract lists them."""

    SCHEMA = "schema"
    BUDGET = "budget"
    SAFETY = "safety"
    GROUNDING = "grounding"
    SEQUENCE = "sequence"
    FLOW = "flow"
    COMPLETION = "completion"


class StepType(StrEnum):
    TOOL_CALL = "tool_call"
    MODEL_RESPONSE = "model_response"


class Status(StrEnum):
    OK = "ok"
    ERROR = "error"


def type_name(value: object) -> str:
    """JSON-ish name of a value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def is_number(value: object) -> bool:
    """True for JSON numbers (int or float), never for booleans."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def finite_non_negative(value: object) -> float | int:
    """A finite JSON number >= 0 (integers beyond the float range count as infinite)."""
    if not is_number(value):
        raise ValueError("must be a finite number >= 0")
    assert isinstance(value, int | float)
    try:
        finite = math.isfinite(float(value))
    except OverflowError:
        finite = False
    if not finite or value < 0:
        raise ValueError("must be a finite number >= 0")
    return value


def non_negative_int(value: object, minimum: int = 0) -> int:
    """An integer >= minimum; an integral float such as 3.0 is accepted as 3."""
    if isinstance(value, bool) or not is_number(value):
        raise ValueError(f"must be an integer >= {minimum}")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"must be an integer >= {minimum}")
        value = int(value)
    assert isinstance(value, int)
    if value < minimum or value > MAX_INT:
        raise ValueError(f"must be an integer >= {minimum}")
    return value


def check_schema_version(value: Any, kind: str) -> str:
    """Validate a `schema_version` field; absent (None) means "1"."""
    if value is None:
        return SUPPORTED_MAJOR
    if not isinstance(value, str):
        raise ValueError(f"field 'schema_version' must be a string (got {type_name(value)})")
    major = value.split(".", 1)[0]
    if major != SUPPORTED_MAJOR:
        raise ValueError(
            f"{kind} declares unsupported schema_version '{value}' "
            f"(this build supports major version '{SUPPORTED_MAJOR}')"
        )
    return value


def show(value: object, limit: int = 40) -> str:
    """A short, one-line rendering of a value for an error message: a string quoted (cut
    after `limit` characters), a literal for short numbers, booleans and null, else the
    JSON type name."""
    if isinstance(value, str):
        return repr(value if len(value) <= limit else value[:limit] + "...")
    if value is None or isinstance(value, bool):
        return "null" if value is None else str(value).lower()
    if isinstance(value, int | float):
        text = repr(value)
        return text if len(text) <= 30 else type_name(value)
    return type_name(value)


def string_problem(value: object, required: bool = False) -> str | None:
    """What is wrong with a string field's value (None when it is fine), as a phrase to
    put after the field's name: `is required`, `must be a string (got number)`."""
    if isinstance(value, str):
        return None
    if value is None:
        return "is required" if required else None
    expected = "a string" if required else "a string or null"
    return f"must be {expected} (got {type_name(value)})"


def located(where: str, what: str) -> str:
    """`<where>: <what>`, or `<what>` alone at the top level: how parse errors read."""
    return f"{where}: {what}" if where else what
