"""What policy v1.3 claims read in a text: its sentences, numbers written in them, and
whether a text found in a sentence equals a value of a call.

- Sentences: the text is cut after `.`, `!` or `?` followed by white space, and at
  line breaks; each piece, stripped, is a sentence (blank pieces are none).
- A text read as a number: an optional sign, an optional currency sign (any Unicode
  currency symbol), then digits with an optional decimal part, `,` grouping thousands
  (`1,200.50`); trailing commas are ignored (`$120,` in "a refund of $120, ...").
- Equality with a call's value: a number compares by value with the text read as a
  number (`1,200.50` equals 1200.5; no number equals a text that is none); a string
  compares exactly, or case-folded with `ignore_case`; any other value (true, null, an
  object, a list) never equals a text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

from ..patterns import Searcher

__all__ = [
    "DEFAULT_FAILURE",
    "DEFAULT_SUCCESS",
    "CallValues",
    "answer_sentences",
    "found_texts",
    "shown",
    "text_number",
]

# Cut after . ! ? and the white space that follows, and at every line break. Linear:
# a fixed-width look-behind and one character class.
_CUT = re.compile(r"(?<=[.!?])\s+|[\r\n]+")
_ANY_CUT = re.compile(r"[.!?]\s|[\r\n]")  # a text without one is one sentence
_DIGITS = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?")
_SENTENCE_SHOWN = 160

DEFAULT_SUCCESS = Searcher(
    r"(?i)\b(?:done|completed|successful(?:ly)?|all set)\b"
    r"|\b(?:has|have) been [a-z]+(?:ed|en|d|t)\b",
    case_sensitive=True,
)
DEFAULT_FAILURE = Searcher(
    r"(?i)\b(?:not|unable|couldn[\x{2019}']t|could not|can[\x{2019}']t|cannot"
    r"|failed|error|sorry)\b",
    case_sensitive=True,
)


def answer_sentences(text: str) -> list[str]:
    """The sentences of a text, in order."""
    if _ANY_CUT.search(text) is None:
        whole = text.strip()
        return [whole] if whole else []
    return [piece for piece in (p.strip() for p in _CUT.split(text)) if piece]


def shown(sentence: str) -> str:
    """A sentence as a finding quotes it: cut past 160 characters."""
    if len(sentence) <= _SENTENCE_SHOWN:
        return sentence
    return sentence[: _SENTENCE_SHOWN - 3] + "..."


def text_number(text: str) -> Decimal | None:
    """The number a text writes (see the module docstring), or None."""
    body = text.strip().rstrip(",")
    sign = ""
    if body[:1] in ("+", "-"):
        sign, body = body[0], body[1:].lstrip()
    if body and unicodedata.category(body[0]) == "Sc":
        body = body[1:].lstrip()
    if not body or _DIGITS.fullmatch(body) is None:
        return None
    return Decimal(sign + body.replace(",", ""))


def _number(value: Any) -> Decimal | None:
    """A call's JSON number as a Decimal (a float by its shortest repr), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return Decimal(value) if isinstance(value, int) else Decimal(repr(value))
    except (InvalidOperation, ValueError):
        return None


class CallValues:
    """The values a path reached in one call, ready to compare with texts."""

    __slots__ = ("numbers", "strings", "values")

    def __init__(self, values: Iterable[Any], ignore_case: bool) -> None:
        self.values = list(values)
        self.strings = {
            (v.casefold() if ignore_case else v) for v in self.values if isinstance(v, str)
        }
        self.numbers = {n for n in map(_number, self.values) if n is not None and n.is_finite()}

    def holds(self, text: str, ignore_case: bool) -> bool:
        """Whether the text equals one of the values."""
        if (text.casefold() if ignore_case else text) in self.strings:
            return True
        if self.numbers:
            number = text_number(text)
            return number is not None and number in self.numbers
        return False


def found_texts(pattern: Searcher, sentence: str) -> list[str]:
    """The distinct texts the pattern finds in a sentence, in order: its first group's
    (a match where the group took no part adds nothing), or the whole match's."""
    if not pattern.search(sentence):  # the common case, without building matches
        return []
    group = 1 if pattern.group_count else 0
    out: dict[str, None] = {}
    for match in pattern.finditer(sentence):
        text = match.group(group)
        if text is not None:
            out[text] = None
    return list(out)
