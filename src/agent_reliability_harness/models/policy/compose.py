"""`extends` merging (policy v1.1 section 3) and the nesting bound that keeps it safe.

Objects merge key by key, recursively; lists and scalars of the child replace the
base's; a child's `null` means "not set here", as everywhere in a policy, so the
base's value stays. `policy_id` is never inherited: the result has the child's.
"""

from __future__ import annotations

from typing import Any

# Deeper than any real policy (argument values in enums and expected calls included);
# checked before anything recursive walks a document.
MAX_DEPTH = 100


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether `value` nests objects and arrays more than `limit` levels deep."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False


def merge(base: Any, child: Any) -> Any:
    """`child` over `base`: objects key by key, anything else replaced."""
    if not (isinstance(base, dict) and isinstance(child, dict)):
        return base if child is None else child
    merged = dict(base)
    for key, value in child.items():
        if value is not None:
            merged[key] = merge(merged.get(key), value)
    return merged


def merge_chain(bases: list[dict[str, Any]], child: dict[str, Any]) -> dict[str, Any]:
    """The bases merged left to right, then the child over them; the child's own
    `policy_id` (or none) is the result's."""
    merged: dict[str, Any] = {}
    for base in bases:
        merged = merge(merged, base)
    merged.pop("policy_id", None)
    result: dict[str, Any] = merge(merged, child)
    return result
