"""Reading values out of calls (policy v1.2 sections 2 and 3): an output that is a JSON
text decoded, dotted paths into arguments and outputs, JSON-value identities, and which
calls `failed_when` marks as failed.

- An output that is a string holding a JSON object or array (after leading
  whitespace) is read as that value; any other output is read as it is.
- Dotted paths are resolved by models/paths.py (object keys, list indexes, and `*`
  for every element of a list); `""` is the whole value.
- Values compare as JSON values: numbers by value (`1` equals `1.0`), a boolean never
  equals a number (`true` is not `1`), strings never equal numbers (`"1"` is not `1`),
  objects by their keys and values whatever their order.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from ..models.common import Status
from ..models.paths import MISSING, value_at, values_at
from ..models.policy import FailedWhen
from ..models.trace import Step

__all__ = [
    "MISSING",
    "decoded",
    "failed_when_failures",
    "identity",
    "json_equal",
    "value_at",
    "values_at",
]

_OK = Status.OK
_decode = msgspec.json.decode


def decoded(output: Any) -> Any:
    """The output as a JSON value: a JSON object or array text decoded, else as it is."""
    if type(output) is not str:
        return output
    text = output.lstrip()
    if not text or text[0] not in "{[":
        return output
    try:
        return _decode(text)
    except (msgspec.DecodeError, UnicodeError, RecursionError):
        return output


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values: numbers by value, a boolean never equals a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _normal(value: Any) -> Any:
    """A JSON value with every integral finite float made an int (1.0 -> 1), so that
    JSON-equal values encode alike."""
    kind = type(value)
    if kind is float:
        return int(value) if math.isfinite(value) and value.is_integer() else value
    if kind is dict or isinstance(value, Mapping):
        return {str(k): _normal(v) for k, v in value.items()}
    if kind is list or isinstance(value, list | tuple):
        return [_normal(v) for v in value]
    return value


_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def identity(value: Any) -> Any:
    """A hashable stand-in for a JSON value: two values have equal identities exactly
    when they are equal as JSON values. A string is itself; any other value is a
    1-tuple of its canonical JSON text (so no string can equal it)."""
    if type(value) is str:
        return value
    if type(value) is int:
        return (str(value),)
    try:
        return (_ENCODER.encode(_normal(value)),)
    except (TypeError, ValueError, RecursionError):
        return (repr(value),)


def _matches(rule: FailedWhen, output: Any) -> bool:
    """Whether the output's value at the rule's path (any of them, with a `*`) meets it."""
    if not rule.star:
        found = value_at(output, rule.path)
        return found is not MISSING and _meets(rule, found)
    return any(_meets(rule, found) for found in values_at(output, rule.path))


def _meets(rule: FailedWhen, found: Any) -> bool:
    if rule.has_equals:
        return json_equal(found, rule.equals)
    assert rule.pattern is not None
    if type(found) is str or isinstance(found, str):
        return rule.pattern.search(found)
    # A number or boolean is searched as its JSON text; null, objects and lists never.
    if isinstance(found, bool):
        return rule.pattern.search("true" if found else "false")
    if isinstance(found, int | float):
        return rule.pattern.search(json.dumps(found))
    return False


def failed_when_failures(
    rules: Mapping[str, tuple[FailedWhen, ...]], calls: Iterable[tuple[int, Step]]
) -> frozenset[int]:
    """The positions of the status-ok calls whose (decoded) output meets one of their
    tool's `failed_when` entries."""
    found = []
    for index, step in calls:
        entries = rules.get(step.tool_name or "")
        if entries is None or step.status is not _OK:
            continue
        output = decoded(step.output)
        if any(_matches(rule, output) for rule in entries):
            found.append(index)
    return frozenset(found)
