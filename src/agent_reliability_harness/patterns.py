"""Linear-time regular expressions (RE2) for policy patterns.

Policy patterns run over untrusted trace text, so a backtracking engine could
be made to hang; RE2 guarantees time linear in the text. This module is the
only place that touches the `re2` binding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import re2

_ESCAPED_Z_END = "\\Z"


def _translate(pattern: str) -> str:
    r"""Map the one common Python-only escape, ``\Z`` (end of text), to RE2's ``\z``."""
    if _ESCAPED_Z_END not in pattern:
        return pattern
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append("\\z" if nxt == "Z" else ch + nxt)
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _options(case_sensitive: bool) -> Any:
    options = re2.Options()
    options.log_errors = False
    options.case_sensitive = case_sensitive
    return options


def _error_text(exc: Exception) -> str:
    detail = exc.args[0] if exc.args else str(exc)
    if isinstance(detail, bytes):
        detail = detail.decode("utf-8", "replace")
    return str(detail)


def check_pattern(pattern: str, case_sensitive: bool = True) -> Any:
    """Compile one pattern or raise ValueError with RE2's reason."""
    try:
        return re2.compile(_translate(pattern), _options(case_sensitive))
    except Exception as exc:  # the binding raises re2.error, a bare Exception subclass
        raise ValueError(
            f"is not a valid regular expression ({_error_text(exc)}); ARH uses the "
            "linear-time RE2 syntax, without look-around or back-references"
        ) from None


class FullMatcher:
    """Case-sensitive whole-string match, for argument `pattern` constraints."""

    __slots__ = ("_regex", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._regex = check_pattern(pattern, case_sensitive=True)

    def fullmatch(self, text: str) -> bool:
        return self._regex.fullmatch(text) is not None


# Patterns whose meaning depends on where the whole text starts or ends, beyond what
# multi-line ^ and $ express (\A, \z, or a flag group that could turn (?m) off).
_TEXT_ANCHORED = re2.compile(r"\\[Az]|\(\?[a-zA-Z]*-")
_SEPARATOR = "\n"
_NEWLINE = b"\n"


class PatternSet:
    r"""Case-insensitive search for many patterns in one pass over a text.

    `may_match_any` screens many texts with a single scan of their join: each
    pattern is compiled again under (?m), so ^ and $ also hold at the separating
    newline, and the separator is not a word character, so \b and \B hold as they
    do at the edges of each text. A match inside one text is then a match in the
    join; a match in the join may be spurious and only means "check each text".
    """

    __slots__ = ("_joined", "_line_anchored", "_probes", "_set", "patterns")

    def __init__(self, patterns: Sequence[str], probes: Sequence[str] = ()) -> None:
        """`probes`: case-insensitive RE2 searched in the same scan as the patterns by
        `screen` (as they are, without (?m)), never by the other methods."""
        self.patterns = tuple(patterns)
        for pattern in self.patterns:
            check_pattern(pattern, case_sensitive=False)
        self._set: Any = None
        self._joined: Any = None
        self._line_anchored = False
        self._probes = tuple(probes)
        if self.patterns:
            translated = [_translate(p) for p in self.patterns]
            # Any ^ or $, even escaped or in a class: only ever errs towards a newline.
            self._line_anchored = any("^" in p or "$" in p for p in translated)
            self._set = _compile_set(translated)
            if not any(_TEXT_ANCHORED.search(p) for p in translated):
                try:
                    joined = [f"(?m:{p})" for p in translated] + list(self._probes)
                    self._joined = _compile_set(joined)
                except Exception:  # re2.error; then every text is checked on its own
                    self._joined = None

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def matches(self, text: str) -> list[int]:
        """Indices of the patterns that match somewhere in `text`, ascending."""
        if self._set is None:
            return []
        found: list[int] | None = self._set.Match(text)
        if not found:
            return []
        found.sort()
        return found

    def may_match_any(self, texts: list[str]) -> bool:
        """False only when no pattern matches any of the texts (one scan)."""
        if self._set is None or not texts:
            return False
        if self._joined is None:
            return True
        return bool(self._joined.Match(_SEPARATOR.join(texts)))

    @property
    def screens(self) -> bool:
        """Whether `may_match_delimited` can clear a text (no pattern is text-anchored)."""
        return self._joined is not None

    def may_match_delimited(self, text: bytes, delimiter: bytes = b"\n") -> bool:
        r"""False only when no pattern matches any piece of the UTF-8 `text` that has
        `delimiter` or an end of `text` on either side. `delimiter` is one ASCII byte
        that is not a word character (\n or "); other text between the pieces can
        only turn the answer True. Always True when the set does not screen.

        This is `may_match_any` over a text that holds the pieces: (?m) makes ^ and $
        hold at a newline, and \b and \B see any non-word byte as they see an end of
        text. With no ^ or $ in any pattern the delimiter need not be a newline; with
        one, it is made one first.
        """
        if self._joined is None:
            return self._set is not None
        return self.screen(text, delimiter)[0]

    def screen(self, text: bytes, delimiter: bytes = b"\n") -> tuple[bool, frozenset[int] | None]:
        """`may_match_delimited`, and the indices of the probes found in `text` in the same
        scan (None when the text had to be changed first, or nothing was scanned)."""
        if self._joined is None:
            return self._set is not None, None
        probed = not (delimiter != _NEWLINE and self._line_anchored)
        if not probed:
            text = text.replace(delimiter, _NEWLINE)
        found: list[int] = self._joined.Match(text) or []
        count = len(self.patterns)
        may = any(index < count for index in found)
        return may, frozenset(i - count for i in found if i >= count) if probed else None


def _compile_set(patterns: Sequence[str]) -> Any:
    regex_set = re2.Set.SearchSet(_options(case_sensitive=False))
    for pattern in patterns:
        regex_set.Add(pattern)
    regex_set.Compile()
    return regex_set
