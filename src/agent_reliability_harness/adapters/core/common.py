"""Shared machinery of the vendor adapters: typed access with locations, transcript items.

TraceBuilder (in _builder, re-exported here) owns the rules every adapter follows;
these helpers only read JSON and name where a problem is. No vendor SDK here.
"""

from __future__ import annotations

import math
from typing import Any

from ...errors import AdapterError
from ...models.common import MAX_INT, is_number, show, type_name
from .builder import TraceBuilder, add_counts, brief

JSON = Any


def fail(at: str, message: str) -> AdapterError:
    """An AdapterError that names where in the transcript the problem is."""
    return AdapterError(f"{at}: {message}" if at else message)


def obj(value: JSON, at: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise fail(at, f"expected an object (got {type_name(value)})")
    return value


def arr(value: JSON, at: str) -> list[Any]:
    if not isinstance(value, list):
        raise fail(at, f"expected an array (got {type_name(value)})")
    return value


def opt_str(d: dict[str, Any], key: str, at: str) -> str | None:
    value = d.get(key)
    if value is None or isinstance(value, str):
        return value
    raise fail(f"{at}.{key}", f"expected a string (got {type_name(value)})")


def opt_list(d: dict[str, Any], key: str, at: str) -> list[Any]:
    value = d.get(key)
    if value is None:
        return []
    return arr(value, f"{at}.{key}")


def opt_obj(d: dict[str, Any], key: str, at: str) -> dict[str, Any] | None:
    value = d.get(key)
    if value is None:
        return None
    return obj(value, f"{at}.{key}")


def opt_count(d: dict[str, Any] | None, key: str, at: str) -> int | None:
    """A token count: a non-negative integer below 2^63 (integral floats accepted) or absent."""
    if d is None:
        return None
    value = d.get(key)
    if value is None:
        return None
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 19:
        value = int(value)  # OTLP/JSON writes 64-bit integers as strings
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_INT:
        return value
    # Compared as a float only within range: float(10**309) would overflow.
    if isinstance(value, float) and 0 <= value <= MAX_INT and value.is_integer():
        return int(value)
    raise fail(f"{at}.{key}", f"expected a token count from 0 to 2^63-1 (got {show(value)})")


def opt_amount(d: dict[str, Any] | None, key: str, at: str) -> float | None:
    """A measured amount (seconds, milliseconds, dollars): a finite number >= 0, or absent."""
    if d is None:
        return None
    value = d.get(key)
    if value is None:
        return None
    if is_number(value) and value >= 0:
        try:
            if math.isfinite(value):
                return float(value)
        except OverflowError:  # an integer beyond the float range
            pass
    raise fail(f"{at}.{key}", f"expected a number >= 0 (got {show(value)})")


def first(d: dict[str, Any], *keys: str) -> Any:
    """The value of the first key present (snake_case and camelCase dumps of one field)."""
    for key in keys:
        if key in d:
            return d[key]
    return None


def text_parts(
    parts: list[Any], at: str, kinds: tuple[str, ...], builder: TraceBuilder, joiner: str = ""
) -> str:
    """Join the text of typed parts ({"type": kind, "text": ...}); notes any other part.
    Model text parts are fragments of one message (joined as is); tool outputs use "\n"."""
    texts: list[str] = []
    for index, part in enumerate(parts):
        where = f"{at}[{index}]"
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and part.get("type") in kinds and "text" in part:
            texts.append(opt_str(part, "text", where) or "")
        else:
            builder.note(where, "content part that is not text", part)
    return joiner.join(texts)


def content_text(
    content: Any, at: str, builder: TraceBuilder, joiner: str = "", what: str = "content"
) -> str | None:
    """The text of a message's content: a string, or its text parts joined (`{"text": ...}`
    parts whose type, if any, names text); every other part is noted and the text kept.
    Content that is neither (a number, an object) is noted: None, as for absent content."""
    if content is None or isinstance(content, str):
        return content
    if not isinstance(content, list):
        builder.note(at, f"{what} that is not text", content)
        return None
    texts: list[str] = []
    for index, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        if isinstance(part, str):
            texts.append(part)
        elif (
            isinstance(part, dict)
            and isinstance(part.get("text"), str)
            and (kind is None or (isinstance(kind, str) and kind.endswith("text")))
        ):
            texts.append(part["text"])
        else:
            builder.note(f"{at}[{index}]", "content part that is not text", part)
    return joiner.join(texts)


def items_of(
    value: JSON, container_keys: tuple[str, ...], trailers: tuple[str, ...] = ()
) -> tuple[list[tuple[Any, str]], dict[str, Any]]:
    """(item, location) pairs of a transcript: a bare array, the array under one of
    `container_keys` of a request-body object, or one object; plus the enclosing object.
    A body's `trailers` keys (an object or an array of them: the response to the request)
    add their items after the container's."""
    if isinstance(value, list):
        return [(item, f"[{i}]") for i, item in enumerate(value)], {}
    if isinstance(value, dict):
        for key in container_keys:
            if isinstance(value.get(key), list):
                pairs = [(item, f"{key}[{i}]") for i, item in enumerate(value[key])]
                for extra in trailers:
                    pairs += _trailer(value.get(extra), extra)
                return pairs, value
        return [(value, "$")], {}
    raise fail("$", f"expected an object or an array (got {type_name(value)})")


def _trailer(value: JSON, key: str) -> list[tuple[Any, str]]:
    if isinstance(value, list):
        return [(item, f"{key}[{i}]") for i, item in enumerate(value)]
    return [] if value is None else [(value, key)]


def any_item(value: JSON, container_keys: tuple[str, ...], test: Any) -> bool:
    """Detection helper: does some item of the transcript (at most 1,000 looked at) pass `test`?"""
    if isinstance(value, list):
        items = value
    elif isinstance(value, dict):
        items = next(
            (value[key] for key in container_keys if isinstance(value.get(key), list)), [value]
        )
    else:
        return False
    return any(isinstance(item, dict) and test(item) for item in items[:1000])


def any_trailer(
    value: JSON, container_keys: tuple[str, ...], trailers: tuple[str, ...], test: Any
) -> bool:
    """Detection helper: next to a body's container array, does an item of its response
    part (`trailers`: an object or an array of them, as `items_of` reads them) pass `test`?"""
    if not isinstance(value, dict):
        return False
    if not any(isinstance(value.get(key), list) for key in container_keys):
        return False
    for key in trailers:
        part = value.get(key)
        items = part if isinstance(part, list) else [part]
        if any(isinstance(item, dict) and test(item) for item in items[:1000]):
            return True
    return False


__all__ = [
    "JSON",
    "TraceBuilder",
    "add_counts",
    "any_item",
    "any_trailer",
    "arr",
    "brief",
    "content_text",
    "fail",
    "first",
    "items_of",
    "obj",
    "opt_amount",
    "opt_count",
    "opt_list",
    "opt_obj",
    "opt_str",
    "text_parts",
]
