"""A quick pass over one compiled contract (policy v1.2 `output`): whether a value meets
every check of it, without building paths or hits (rules/arguments.py builds those, for
the values this pass does not clear)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .arguments import ArgCheck
from .outputs import json_equal

__all__ = ["passes"]


def passes(check: ArgCheck, value: Any) -> bool:
    """True only when `contract_hits` would find nothing: every check `arguments._Value.check`
    makes, in its order, without building a path or a hit (False: ask contract_hits,
    which may still find nothing, e.g. for an unknown type)."""
    spec = check.spec
    if check.unknown:
        return False
    type_check = check.type_check
    if type_check is not None and not type_check(value):
        return False
    if not check.constrained:
        return True
    quick = check.quick
    if quick is not None and quick(value):
        return True
    enum = spec.enum
    if enum is not None and not (
        value in check.enum_strs if type(value) is str else any(json_equal(value, v) for v in enum)
    ):
        return False
    if isinstance(value, str):
        if spec.pattern is not None and not spec.pattern.fullmatch(value):
            return False
        if spec.not_pattern is not None and spec.not_pattern.search(value):
            return False
    elif check.bounded and isinstance(value, int | float) and not isinstance(value, bool):
        if isinstance(value, float) and math.isnan(value):
            return False
        if (spec.min is not None and value < spec.min) or (
            spec.max is not None and value > spec.max
        ):
            return False
    return _nested_pass(check, value)


def _items_pass(items: ArgCheck) -> Callable[[Any], bool]:
    """`passes` for the elements of a list."""
    return lambda element: passes(items, element)


def _nested_pass(check: ArgCheck, value: Any) -> bool:
    """The v1.1 length and nesting checks of `passes`."""
    spec = check.spec
    if check.lengths and isinstance(value, str | list):
        length = len(value)
        if (spec.min_length is not None and length < spec.min_length) or (
            spec.max_length is not None and length > spec.max_length
        ):
            return False
    items = check.items
    if items is not None and isinstance(value, list) and not all(map(_items_pass(items), value)):
        return False
    if (check.properties is not None or check.required) and isinstance(value, dict):
        if any(name not in value for name in check.required):
            return False
        for key, sub in (check.properties or {}).items():
            if key in value and not passes(sub, value[key]):
                return False
    return True
