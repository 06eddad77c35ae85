"""The shape of id-like strings (`ORD-10452`, `mia_li_3668`, `2024-05-15`, UUIDs), merged
over every value an argument took, and the RE2 pattern (matched whole, as argument
`pattern`s are) that every one of them fits.

A value is id-like when it is at most 64 characters of letters, digits and `_ . : / @ + -`,
starting with a letter or digit. Its shape is its runs of letters and digits (segments)
and the separators between them, at two grains: *fine* (a run splits where letters meet
digits: `ORD`,`-`,`10452`) and *coarse* (separators only: `4WQ150`). Values share a
shape when they have the same separators in the same places; a segment keeps the union
of its character classes, its length range, and its text when it is the same in every
value (then it is written literally).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DIGIT, LOWER, UPPER = 1, 2, 4
MAX_ID_LENGTH = 64
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/@+-]*")
_FINE = re.compile(r"[A-Za-z]+|[0-9]+|[^A-Za-z0-9]")
_COARSE = re.compile(r"[A-Za-z0-9]+|[^A-Za-z0-9]")
_HEX_LETTERS = frozenset("abcdefABCDEF")
_SPECIAL = frozenset(r".+*?()[]{}|^$\\")


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of letters and digits at one place of the shape."""

    classes: int
    low: int
    high: int
    literal: str | None
    hex: bool  # every letter seen here is a-f (any case)
    padded: bool = False  # some value has a leading zero here (a fixed-width number)

    @classmethod
    def of(cls, text: str) -> Segment:
        classes = 0
        for char in text:
            classes |= DIGIT if char.isdigit() else LOWER if char.islower() else UPPER
        hexish = all(c.isdigit() or c in _HEX_LETTERS for c in text)
        padded = len(text) > 1 and text[0] == "0"
        return cls(classes, len(text), len(text), text, hexish, padded)

    def merged(self, other: Segment) -> Segment:
        # Digits are counters, dates, amounts: never kept literally (two runs in one year
        # must not pin the year); a word that never changes (`ORD`, `card`) is.
        same = self.literal == other.literal and self.classes != DIGIT
        literal = self.literal if same else None
        return Segment(
            self.classes | other.classes,
            min(self.low, other.low),
            max(self.high, other.high),
            literal,
            self.hex and other.hex,
            self.padded or other.padded,
        )

    def regex(self) -> str:
        if self.literal is not None:
            return escape(self.literal)
        # A fixed length is kept where it is a format: random ids of letters and digits
        # (`4WQ150`, hex), capitals (`JFK`), and numbers seen zero-padded (`05`, `0042`).
        # Unpadded numbers are counters (`C42`, `C1234567`) and words vary (names): `+`.
        if self.classes == DIGIT:
            counted = self.padded
        else:
            counted = bool(self.classes & DIGIT) or not self.classes & LOWER
        fixed = self.low == self.high and counted
        quantifier = ("" if self.low == 1 else f"{{{self.low}}}") if fixed else "+"
        return _char_class(self.classes, self.hex and self.low >= 4) + quantifier


Token = Segment | str  # a str is one separator character


def escape(text: str) -> str:
    return "".join("\\" + c if c in _SPECIAL else c for c in text)


def _char_class(classes: int, hexish: bool) -> str:
    letters = classes & (LOWER | UPPER)
    if not classes & DIGIT:
        return {LOWER: "[a-z]", UPPER: "[A-Z]"}.get(letters, "[A-Za-z]")
    if not letters:
        return "[0-9]"
    if hexish:
        return {LOWER: "[0-9a-f]", UPPER: "[0-9A-F]"}.get(letters, "[0-9A-Fa-f]")
    return {LOWER: "[a-z0-9]", UPPER: "[A-Z0-9]"}.get(letters, "[A-Za-z0-9]")


def tokens(value: str, fine: bool) -> tuple[Token, ...] | None:
    """The shape of one value at one grain, or None when it is not id-like."""
    if len(value) > MAX_ID_LENGTH or _ID.fullmatch(value) is None:
        return None
    pieces = (_FINE if fine else _COARSE).findall(value)
    return tuple(Segment.of(p) if p[0].isalnum() else p for p in pieces)


def merge(
    left: tuple[Token, ...] | None, right: tuple[Token, ...] | None
) -> tuple[Token, ...] | None:
    """The shape both fit, or None when they differ in their separators."""
    if left is None or right is None or len(left) != len(right):
        return None
    out: list[Token] = []
    for a, b in zip(left, right, strict=True):
        if isinstance(a, Segment) and isinstance(b, Segment):
            out.append(a.merged(b))
        elif isinstance(a, str) and a == b:
            out.append(a)
        else:
            return None
    return tuple(out)


def pattern(shape: tuple[Token, ...]) -> str | None:
    """The pattern of an id-like shape: one that has a segment that varies, and digits
    somewhere or only upper-case letters where it varies (codes like `JFK`); else None
    (words, single values: enums say those better)."""
    varying = [t for t in shape if isinstance(t, Segment) and t.literal is None]
    if not varying:
        return None
    digits = any(isinstance(t, Segment) and t.classes & DIGIT for t in shape)
    if not digits and any(t.classes & LOWER for t in varying):
        return None
    return "".join(t.regex() if isinstance(t, Segment) else escape(t) for t in shape)


@dataclass(slots=True)
class ShapeSummary:
    """The merged shapes (both grains) of the string values seen so far; mergeable in
    any order with the same result."""

    values: int = 0
    fine: tuple[Token, ...] | None = None
    coarse: tuple[Token, ...] | None = None

    def add(self, value: str) -> None:
        self._fold(1, tokens(value, True), tokens(value, False))

    def merge(self, other: ShapeSummary) -> None:
        if other.values:
            self._fold(other.values, other.fine, other.coarse)

    def _fold(
        self, count: int, fine: tuple[Token, ...] | None, coarse: tuple[Token, ...] | None
    ) -> None:
        if self.values == 0:
            self.fine, self.coarse = fine, coarse
        else:
            self.fine, self.coarse = merge(self.fine, fine), merge(self.coarse, coarse)
        self.values += count

    def pattern(self) -> str | None:
        """The finer pattern that fits every value (the coarse one when the fine shapes
        differ), or None."""
        for shape in (self.fine, self.coarse):
            if shape is not None:
                found = pattern(shape)
                if found is not None:
                    return found
        return None
