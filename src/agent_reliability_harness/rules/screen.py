"""The one-scan screen: JSON data (a trace's steps, a chunk's tool outputs) encoded by msgspec
into one text in which every string stands verbatim between two delimiters, so that a
PatternSet can clear all of it in one RE2 scan (ARH-SAF-001, error_output_patterns).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from ..models.trace import Step

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
    return screen_json([(s.text, s.arguments, s.output, s.error) for s in steps])


def screen_json(value: Any) -> tuple[bytes, bytes, int] | None:
    """`screen_text` for any JSON data: a text holding every string of `value` (object
    keys too) verbatim between two delimiters, the delimiter, and the number of strings
    that are not keys and not empty (-1: count them with `blob_count` / `quick_blob_count`
    after the scan); None when the value must take the exact path."""
    try:
        data = _encode(value)
    except Exception:  # msgspec refused a value: the exact path handles everything
        return None
    if b"\\" not in data:
        return data, b'"', -1  # counted after the scan (see PROBES)
    if _PLACEHOLDER_BACKSLASH in data or _PLACEHOLDER_QUOTE in data:
        return None
    data = data.replace(b"\\\\", _PLACEHOLDER_BACKSLASH).replace(b'\\"', _PLACEHOLDER_QUOTE)
    blobs = blob_count(data)
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


def blob_count(data: bytes) -> int:
    """The non-empty string values in JSON text whose every `"` delimits a string."""
    empty = data.count(b'""')
    if empty:
        empty -= data.count(b'"":')
    return data.count(b'"') // 2 - data.count(b'":') - empty


# Searched with the patterns, in the same scan, over JSON text whose every `"` delimits
# a string: an empty string. Without one, the blobs are the strings less the keys; in a
# copy of the text holding only its quotes and colons, the colons outside the strings
# (between an even and an odd quote) are the ones that end keys.
PROBES = ('""',)
_ALL_BUT_QUOTES_AND_COLONS = bytes(b for b in range(256) if b not in b'":')


def quick_blob_count(data: bytes) -> int:
    pieces = data.translate(None, _ALL_BUT_QUOTES_AND_COLONS).split(b'"')
    keys = len(b"".join(pieces[::2]))
    return (len(pieces) - 1) // 2 - keys


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
