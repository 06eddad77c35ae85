"""Which of many literal strings occur in a text: RE2 sets of literals, one linear pass
over the text per batch, so resolving every unit a trace asks about costs about the
text's length, not units x text.

Texts and literals are matched as bytes in Latin-1 mode, encoded with
``utf-8``/``surrogatepass``: that encoding is injective and self-synchronising, so a
byte substring is exactly a str substring, lone surrogates included.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import re2

# A batch's DFA must fit RE2's memory budget, or Set.Match fails (and the binding
# reports that as "no match"). Each batch holds an empty literal first: it matches
# every text, so a result without it means the pass failed and the batch is checked
# by plain substring search instead.
_BATCH_LITERALS = 512
_BATCH_BYTES = 16_384
_MAX_MEM = 64 << 20
# Below this many literals, Python's own substring search is cheaper than a set.
_DIRECT = 4


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _options(case_sensitive: bool) -> Any:
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.literal = True
    options.case_sensitive = case_sensitive
    options.log_errors = False
    options.max_mem = _MAX_MEM
    return options


class _Batch:
    __slots__ = ("first", "literals", "set")

    def __init__(self, first: int, literals: list[bytes], case_sensitive: bool) -> None:
        self.first = first
        # Without case, only ASCII letters may differ (see LiteralSearch).
        self.literals = literals if case_sensitive else [x.lower() for x in literals]
        self.set: Any = None
        if len(literals) >= _DIRECT or not case_sensitive:
            self.set = self._compile(literals, case_sensitive)

    @staticmethod
    def _compile(literals: list[bytes], case_sensitive: bool) -> Any:
        regex_set = re2.Set.SearchSet(_options(case_sensitive))
        regex_set.Add(b"")
        for literal in literals:
            regex_set.Add(literal)
        try:
            regex_set.Compile()
        except re2.error:  # over the memory budget: fall back to substring search
            return None
        return regex_set

    def occurring(self, text: bytes, out: list[int], case_sensitive: bool) -> None:
        if self.set is not None:
            found = self.set.Match(text)
            if found:
                out.extend(self.first + i - 1 for i in found if i)
                return
        # A set that could not be built or whose pass failed: the plain reference.
        if not case_sensitive:
            text = text.lower()
        out.extend(self.first + i for i, lit in enumerate(self.literals) if lit in text)


class LiteralSearch:
    """Built once for the literals; `occurring(text)` lists the indices of those that
    are substrings of `text`, ascending. Without `case_sensitive`, ASCII letters match
    either case (Latin-1 mode: a text that is ASCII can match only ASCII literals, and
    its letters fold only to ASCII letters)."""

    __slots__ = ("_batches", "case_sensitive", "shortest")

    def __init__(
        self,
        literals: Sequence[str],
        case_sensitive: bool = True,
        batch: tuple[int, int] = (_BATCH_LITERALS, _BATCH_BYTES),
    ) -> None:
        """`batch`: the most literals and bytes of literals one RE2 set holds (each set
        is one pass over a text; a set over RE2's memory budget fails, and its literals
        are then searched one by one)."""
        self.case_sensitive = case_sensitive
        most_literals, most_bytes = batch
        self._batches: list[_Batch] = []
        self.shortest = min((len(encode(x)) for x in literals), default=0)
        pending: list[bytes] = []
        size = 0
        first = 0
        for number, literal in enumerate(literals):
            data = encode(literal)
            if pending and (len(pending) >= most_literals or size + len(data) > most_bytes):
                self._batches.append(_Batch(first, pending, case_sensitive))
                pending, size, first = [], 0, number
            pending.append(data)
            size += len(data)
        if pending:
            self._batches.append(_Batch(first, pending, case_sensitive))

    def occurring(self, text: bytes) -> list[int]:
        out: list[int] = []
        if len(text) < self.shortest:
            return out
        for batch in self._batches:
            batch.occurring(text, out, self.case_sensitive)
        out.sort()
        return out
