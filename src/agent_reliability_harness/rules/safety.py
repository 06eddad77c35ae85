"""ARH-SAF-001: unsafe patterns in any text the agent produced or handled.

All patterns are scanned together, once per text blob, by one linear-time RE2
set, so neither pattern count nor hostile text can blow up the scan.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import msgspec

from ..models.common import Category, Severity
from ..models.policy import BLOB_KINDS, Policy, ScopedPatterns
from ..models.trace import Step
from ..patterns import PatternSet
from .base import Hit, RuleContext, RuleState, rule


def _strings(value: Any, root: str) -> Iterator[tuple[str, str]]:
    """Every non-empty string inside a JSON value, any depth, with its path; iterative."""
    stack: list[tuple[str, Any]] = [(root, value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            if item:
                yield path, item
        elif isinstance(item, dict):
            stack.extend((f"{path}.{k}", v) for k, v in reversed(item.items()))
        elif isinstance(item, list | tuple):  # a tuple (API-built steps) is a JSON array
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(item))))


def text_blobs(step: Step) -> Iterator[tuple[str, str]]:
    """The text blobs of a step: text, strings in arguments and output, and the error."""
    if step.text:
        yield "text", step.text
    if step.arguments:
        yield from _strings(step.arguments, "arguments")
    if step.output is not None:
        yield from _strings(step.output, "output")
    if step.error:
        yield "error", step.error


def _string_values(value: Any, out: list[str]) -> None:
    """The non-empty strings `_strings` yields, in the same order, without their paths."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or (kind is not dict and kind is not list and isinstance(item, str)):
            if item:
                out.append(item)
        elif kind is dict or isinstance(item, dict):
            stack.extend(reversed(item.values()))
        elif kind is list or isinstance(item, list | tuple):
            stack.extend(reversed(item))


def blob_texts(step: Step) -> list[str]:
    """The texts of `text_blobs(step)`, in order."""
    out: list[str] = []
    if step.text:
        out.append(step.text)
    if step.arguments:
        _string_values(step.arguments, out)
    if step.output is not None:
        _string_values(step.output, out)
    if step.error:
        out.append(step.error)
    return out


# --- The one-scan screen over the trace's JSON encoding -------------------------------
#
# Walking every string of every step in Python costs far more than scanning them.
# Instead the step values that hold blobs, (text, arguments, output, error) per step,
# are encoded together by msgspec (C) into one JSON text J, turned into a screen
# text T by the byte replacements below, and T is screened in one RE2 scan. Why no
# match can hide:
#
# 1. In J every string, key or value, is `"` + its encoding + `"`, where each
#    character is written as itself (UTF-8) or as an escape that starts with `\`;
#    `"`, `\` and the control characters are always escaped. So outside strings
#    J has no `"` and no `\`, and J has no raw control character at all.
# 2. No `\` in J (the usual case): every string is written verbatim and every `"`
#    is a delimiter, so T = J holds each blob verbatim with a `"` on both sides.
# 3. Otherwise the escapes are undone by replacements that cannot misread one
#    another. First each `\\` becomes a placeholder (a left-to-right scan only
#    finds it at the start of an escape: an earlier `\` would start an escape that
#    ends on the second one), so every `\` left starts an escape and the next byte
#    names it. `\"` becomes a second placeholder, the remaining `"` (delimiters)
#    newlines, the short escapes `\n \t \r \b \f` their characters and each
#    `\uXXXX` (msgspec writes one only for a control character) its character.
#    Anything else left with a `\` sends the trace to the exact path; then the
#    placeholders become `\` and `"`. The placeholders are bytes 0xFE and 0xFF,
#    which UTF-8 never holds (checked anyway). Each string now stands decoded,
#    verbatim, between two newlines.
# 4. T thus holds each blob between two delimiters, with extra pieces in between
#    (keys, empty strings, numbers, JSON punctuation, strings that are not blobs,
#    such as those in tuples). `PatternSet.may_match_delimited` finds every match
#    that lies within one delimited piece, the argument of the plain join, so
#    extra pieces can only add spurious candidates, which the exact path then
#    clears. A value msgspec refuses (a str subclass, a lone surrogate, an unknown
#    type, too deep a nesting) also takes the exact path.
#
# This relies on the values being what `parse_trace` builds: text and error are
# str or None, and arguments and output are JSON data (dict, list, str, int,
# float, bool, None). msgspec writes an Enum member as its value, so a str Enum
# whose value differs from its own text could hide; JSON data has none.
#
# 5. Counting blobs on the way: once `\\` and `\"` are placeholders (or when J has no
#    `\`), every `"` delimits a string and `":` ends exactly the keys, so the blobs are
#    the strings, less the keys, less the empty strings that are not keys.

_PLACEHOLDER_BACKSLASH = b"\xff"
_PLACEHOLDER_QUOTE = b"\xfe"
_SHORT_ESCAPES = (
    (b"\\n", b"\n"),
    (b"\\t", b"\t"),
    (b"\\r", b"\r"),
    (b"\\b", b"\b"),
    (b"\\f", b"\f"),
)
_UNICODE_ESCAPE = b"\\u"
_encode = msgspec.json.Encoder().encode


def screen_text(steps: Sequence[Step]) -> tuple[bytes, bytes, int] | None:
    """A text holding every blob of `steps` verbatim between two delimiters (or an end
    of the text), that delimiter, and the number of blobs; None when the steps must take
    the exact path. With the delimiter `"`, the text is JSON with no `\\` in it.
    """
    try:
        data = _encode([(s.text, s.arguments, s.output, s.error) for s in steps])
    except Exception:  # msgspec refused a value: the exact path handles everything
        return None
    if b"\\" not in data:
        return data, b'"', -1  # counted after the scan (see _PROBES)
    if _PLACEHOLDER_BACKSLASH in data or _PLACEHOLDER_QUOTE in data:
        return None
    data = data.replace(b"\\\\", _PLACEHOLDER_BACKSLASH).replace(b'\\"', _PLACEHOLDER_QUOTE)
    blobs = _blob_count(data)
    data = data.replace(b'"', b"\n")
    for escape, char in _SHORT_ESCAPES:
        data = data.replace(escape, char)
    if _UNICODE_ESCAPE in data:
        decoded = _unicode_escapes(data)
        if decoded is None:
            return None
        data = decoded
    if b"\\" in data:
        return None
    text = data.replace(_PLACEHOLDER_BACKSLASH, b"\\").replace(_PLACEHOLDER_QUOTE, b'"')
    return text, b"\n", blobs


def _blob_count(data: bytes) -> int:
    """The non-empty string values in JSON text whose every `"` delimits a string."""
    empty = data.count(b'""')
    if empty:
        empty -= data.count(b'"":')
    return data.count(b'"') // 2 - data.count(b'":') - empty


# Searched with the patterns, in the same scan, over JSON text whose every `"` delimits
# a string: an empty string. Without one, the blobs are the strings less the keys; in a
# copy of the text holding only its quotes and colons, the colons outside the strings
# (between an even and an odd quote) are the ones that end keys.
_PROBES = ('""',)
_ALL_BUT_QUOTES_AND_COLONS = bytes(b for b in range(256) if b not in b'":')


def _quick_blob_count(data: bytes) -> int:
    pieces = data.translate(None, _ALL_BUT_QUOTES_AND_COLONS).split(b'"')
    keys = len(b"".join(pieces[::2]))
    return (len(pieces) - 1) // 2 - keys


def _screen_patterns(policy: Policy) -> tuple[PatternSet, ScopedPatterns | None]:
    """The policy's unsafe patterns with the probes, the screen of every blob (once per
    Evaluator), and the per-blob sets of scoped patterns (None: every pattern searches
    every blob, as in v1)."""
    return PatternSet(policy.unsafe_patterns.patterns, probes=_PROBES), policy.unsafe_scoped


def _unicode_escapes(data: bytes) -> bytes | None:
    """`data` with each `\\u00XX` (a control character; every `\\` starts an escape
    here) decoded; None for any other code point or a malformed escape."""
    first, *rest = data.split(_UNICODE_ESCAPE)
    out = [first]
    for piece in rest:
        digits = piece[:4]
        if len(digits) != 4 or not digits.isalnum() or not digits.isascii():
            return None
        try:
            code = int(digits, 16)
        except ValueError:
            return None
        if code >= 0x20:
            return None
        out.append(bytes((code,)))
        out.append(piece[4:])
    return b"".join(out)


# A blob's kind (model.BLOB_KINDS) by the first letter of where `text_blobs` found it.
_BLOB_KIND = {kind[0]: kind for kind in BLOB_KINDS}
assert len(_BLOB_KIND) == len(BLOB_KINDS)

# Steps screened per scan, then per re-screen of a window that may match (every blob
# lies within one step, so screening windows hides no match; and a window's text stays
# small however long the trace).
_WINDOWS = (256, 16)


@rule(
    "ARH-SAF-001",
    Category.SAFETY,
    Severity.ERROR,
    title="Unsafe content matched",
    remediation="Stop the agent from emitting or passing this content (redaction, output "
    "filters, tool guards), or narrow the pattern if it is a false positive.",
    applies=lambda p: bool(p.unsafe_patterns),
    compile=_screen_patterns,
)
class UnsafeContent(RuleState):
    """One check per text blob, a hit (and a failed check) per pattern that matches one.
    Steps are screened in windows; a window that may match is screened again in smaller
    ones, and only the smallest that may match are checked blob by blob. Scoped patterns
    (`in`, `tools`) are screened with the rest, as the union of every pattern; a blob is
    then checked against the patterns that apply to its kind and its step's tool. Every
    blob is a check, whichever patterns apply to it."""

    __slots__ = ("dense", "patterns", "scoped")

    def __init__(self, compiled: tuple[PatternSet, ScopedPatterns | None]) -> None:
        super().__init__(compiled)
        self.patterns, self.scoped = compiled
        self.dense = False  # whether most of the last window's smaller ones may match

    def scan(self, ctx: RuleContext) -> None:
        if self.patterns.screens:
            self._screen(ctx.facts.steps, ctx.facts.start, 0)
        else:
            self._check(ctx.facts.steps, ctx.facts.start)

    def _screen(self, steps: Sequence[Step], start: int, level: int) -> int:
        """Screen `steps` in windows of _WINDOWS[level] steps; returns how many of them may
        match. Where most smaller windows did, the next windows that may match are checked
        at once (re-screening text that mostly matches only costs)."""
        size, failed = _WINDOWS[level], 0
        for at in range(0, len(steps), size):
            window = steps[at : at + size]
            if self.dense and level == 0 and (at // size) % 16:  # screened again every 16th
                self._check(window, start + at)
                continue
            if self._clean(window):
                self.dense = self.dense and level > 0  # a clean window: look closer again
                continue
            failed += 1
            if level + 1 < len(_WINDOWS) and len(window) > _WINDOWS[level + 1] and not self.dense:
                parts = -(-len(window) // _WINDOWS[level + 1])
                self.dense = 2 * self._screen(window, start + at, level + 1) > parts
            else:
                self._check(window, start + at)
        return failed

    def _clean(self, steps: Sequence[Step]) -> bool:
        """Whether the screen shows no pattern can match these steps (their blobs are then
        counted); False when they must be looked at more closely."""
        patterns = self.patterns
        screen = screen_text(steps)
        if screen is None:
            return False
        text, delimiter, blobs = screen
        may, probes = patterns.screen(text, delimiter)
        if may:
            return False
        if blobs < 0:
            quick = probes is not None and not probes  # scanned, no empty string
            blobs = _quick_blob_count(text) if quick else _blob_count(text)
        self.result.checks += blobs
        return True

    def _check(self, steps: Sequence[Step], start: int) -> None:
        patterns, result, scoped = self.patterns, self.result, self.scoped
        for index, step in enumerate(steps, start):
            for where, blob in text_blobs(step):
                result.checks += 1
                if scoped is not None:
                    patterns = scoped.for_blob(_BLOB_KIND[where[0]], step.tool_name)
                for match in patterns.matches(blob):
                    pattern = patterns.patterns[match]
                    result.failed += 1
                    result.hits.append(
                        Hit(
                            index,
                            f"unsafe pattern '{pattern}' matched in {where}",
                            expected=f"no match for '{pattern}'",
                            observed=where,
                            step_id=step.step_id,
                        )
                    )
