"""Value units (policy v1.1 section 6): the pieces of an argument value that data-flow
rules trace back to sources, and the folding every comparison uses."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from decimal import Decimal
from enum import StrEnum
from functools import lru_cache
from typing import Any

import msgspec

# Numbers with more digits are not units: no recorded value is that long, and Python
# refuses to print integers beyond 4,300 digits.
MAX_DIGITS = 300

_URL_BODY = r"[^\s\"<>]+"
_SCHEME_URL = re.compile(r"(?<![a-z0-9+.\-])([a-z][a-z0-9+.\-]*)://" + _URL_BODY)
# A bare www. host: not inside a longer host, an e-mail address or a scheme URL.
_WWW_URL = re.compile(r"(?<![\w.\-/@])www\.[^\s\"<>/.]+\.[^\s\"<>]+")
_EMAIL = re.compile(r"(?<![a-z0-9._%+\-])[a-z0-9._%+\-]+@(?:[a-z0-9\-]+\.)+[a-z]{2,}")
_IBAN = re.compile(r"(?<![a-z0-9])[a-z]{2}[0-9]{2}[a-z0-9]{10,30}(?![a-z0-9])")
_DIGITS = re.compile(r"(?<![0-9])[0-9]{6,}")
_URL_TAIL = ".,;:!?'\")]}>"
# Every piece needs one of these; most strings have none, and one search rules them out.
_MAY_HOLD_PIECE = re.compile(r"://|www\.|@|[0-9]{6}|[a-z]{2}[0-9]{2}")
NUMERAL = re.compile(r"[0-9]+(?:\.[0-9]+)?")


class UnitKind(StrEnum):
    STRING = "string"  # a whole string value
    URL = "url"
    EMAIL = "email"
    IBAN = "iban"
    DIGITS = "digits"
    NUMBER = "number"  # a JSON number, compared by value


class Unit(msgspec.Struct, frozen=True):
    """`text`: the folded text (for a number, its shortest decimal form with sign);
    `number`: the value of a NUMBER unit (None otherwise)."""

    kind: UnitKind
    text: str
    number: int | float | None = None


def fold(text: str) -> str:
    """Case-folded, every run of whitespace one space, no space at either end."""
    if len(text) <= _SHORT:
        return _fold_short(text)
    return " ".join(text.casefold().split())


# Keys and short values repeat across outputs (`"status": "ok"`): fold them once.
_SHORT = 64


@lru_cache(maxsize=8192)
def _fold_short(text: str) -> str:
    return " ".join(text.casefold().split())


def is_number(value: Any) -> bool:
    """A finite JSON number (booleans are not numbers)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value)


def decimal_form(number: int | float) -> str | None:
    """The shortest decimal form, with sign: 1000.0 -> "1000", 1e-07 -> "0.0000001";
    None beyond MAX_DIGITS digits."""
    if isinstance(number, int) or number.is_integer():
        whole = int(number)
        # 2**1000 has 302 digits: longer ones are never printed (nor units).
        text = str(whole) if whole.bit_length() <= 1000 else None
    else:
        text = repr(number)
        if "e" in text:
            text = format(Decimal(text), "f")
    if text is None or len(text.lstrip("-")) > MAX_DIGITS:
        return None
    return text


def numeral_value(text: str) -> int | float | None:
    """The value of a numeral matched by NUMERAL (None when too long to be a unit)."""
    if len(text) > MAX_DIGITS + 1:
        return None
    return float(text) if "." in text else int(text)


def _strip_url(url: str) -> str:
    return url.rstrip(_URL_TAIL)


def _pieces(folded: str) -> Iterator[tuple[int, int, Unit]]:
    for m in _SCHEME_URL.finditer(folded):
        url = _strip_url(m.group())
        yield m.start(), 0, Unit(UnitKind.URL, url)
        yield m.start(), 1, Unit(UnitKind.URL, url[len(m.group(1)) + 3 :])
    for m in _WWW_URL.finditer(folded):
        yield m.start(), 2, Unit(UnitKind.URL, _strip_url(m.group()))
    for m in _EMAIL.finditer(folded):
        yield m.start(), 3, Unit(UnitKind.EMAIL, m.group())
    for m in _IBAN.finditer(folded):
        yield m.start(), 4, Unit(UnitKind.IBAN, m.group())
    for m in _DIGITS.finditer(folded):
        yield m.start(), 5, Unit(UnitKind.DIGITS, m.group())


def string_units(text: str, min_length: int = 6) -> list[Unit]:
    """The units of one string: the whole (folded) string, then the URLs, e-mail
    addresses, IBAN-shaped tokens and 6+ digit runs inside it by position; each text
    once, none shorter than `min_length`."""
    folded = fold(text)
    if not _MAY_HOLD_PIECE.search(folded):
        return [Unit(UnitKind.STRING, folded)] if len(folded) >= min_length else []
    found = [Unit(UnitKind.STRING, folded)]
    found.extend(unit for _, _, unit in sorted(_pieces(folded), key=lambda p: (p[0], p[1])))
    seen: set[str] = set()
    out: list[Unit] = []
    for unit in found:
        if len(unit.text) >= min_length and unit.text not in seen:
            seen.add(unit.text)
            out.append(unit)
    return out


def number_unit(number: int | float, min_length: int = 6) -> Unit | None:
    """A number is a unit when its shortest decimal form, without sign, is long enough."""
    text = decimal_form(number)
    if text is None or len(text.lstrip("-")) < min_length:
        return None
    return Unit(UnitKind.NUMBER, text, number)


def _leaves(value: Any) -> Iterator[Any]:
    """Strings and numbers at any depth: list items in order, dict values by key."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item[k] for k in sorted(item, key=str, reverse=True))
        elif isinstance(item, list | tuple):
            stack.extend(reversed(item))
        elif isinstance(item, str) or is_number(item):
            yield item


def value_units(value: Any, min_length: int = 6) -> list[Unit]:
    """Every unit of an argument value, each once, in traversal order."""
    if type(value) is str:
        return string_units(value, min_length)
    out: list[Unit] = []
    seen: set[tuple[bool, Any]] = set()
    for leaf in _leaves(value):
        units = string_units(leaf, min_length) if isinstance(leaf, str) else []
        if not isinstance(leaf, str):
            unit = number_unit(leaf, min_length)
            units = [unit] if unit is not None else []
        for unit in units:
            key = (unit.number is None, unit.text if unit.number is None else unit.number)
            if key not in seen:
                seen.add(key)
                out.append(unit)
    return out


def grounded_leaves(value: Any) -> list[Unit]:
    """What `grounded` looks up: each string leaf whole (folded; empty ones are never
    looked up) and each number leaf by value, at any depth; booleans and null none."""
    out: list[Unit] = []
    for leaf in _leaves(value):
        if isinstance(leaf, str):
            folded = fold(leaf)
            if folded:
                out.append(Unit(UnitKind.STRING, folded))
        else:
            text = decimal_form(leaf)
            if text is not None:
                out.append(Unit(UnitKind.NUMBER, text, leaf))
    return out
