"""Linear-time regular expressions (RE2) for policy patterns.

Policy patterns run over untrusted trace text, so a backtracking engine could
be made to hang; RE2 guarantees time linear in the text. This module is the
only place that touches the `re2` binding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import re2

from .globs import glob_to_regex

__all__ = ["FullMatcher", "GlobSet", "PatternSet", "Searcher", "check_pattern", "glob_to_regex"]

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


def _one_pattern_set(pattern: str, case_sensitive: bool) -> Any:
    """An RE2 set of one translated pattern (None if RE2 cannot build it): it tells a match
    in C, several times faster than the binding's search, which builds a match object."""
    try:
        return _compile_set([pattern], _options(case_sensitive))
    except Exception:  # re2.error (the set's memory budget): the regex answers instead
        return None


class FullMatcher:
    """Case-sensitive whole-string match, for argument `pattern` constraints."""

    __slots__ = ("_regex", "_set", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._regex = check_pattern(pattern, case_sensitive=True)
        # Anchored at both ends: a search that finds exactly the full matches (not with a
        # `\Q`, which quotes to its `\E` or the end and so could swallow the anchors).
        anchored = None if "\\Q" in pattern else rf"\A(?:{_translate(pattern)})\z"
        self._set = None if anchored is None else _one_pattern_set(anchored, True)

    def fullmatch(self, text: str) -> bool:
        if self._set is not None:
            return bool(self._set.Match(text))
        return self._regex.fullmatch(text) is not None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FullMatcher) and other.pattern == self.pattern

    def __hash__(self) -> int:
        return hash(self.pattern)

    def __repr__(self) -> str:
        return f"FullMatcher({self.pattern!r})"

    def __reduce__(self) -> tuple[type[FullMatcher], tuple[str]]:
        # Compiled RE2 objects cannot be pickled: a process-pool or Dask worker compiles
        # the pattern again from its text.
        return (FullMatcher, (self.pattern,))


class Searcher:
    """Search for one pattern anywhere in a text (`not_pattern`, `untrusted_if` markers)."""

    __slots__ = ("_regex", "_set", "case_sensitive", "pattern")

    def __init__(self, pattern: str, case_sensitive: bool = True) -> None:
        self.pattern = pattern
        self.case_sensitive = case_sensitive
        self._regex = check_pattern(pattern, case_sensitive=case_sensitive)
        self._set = _one_pattern_set(_translate(pattern), case_sensitive)

    def search(self, text: str) -> bool:
        if self._set is not None:
            return bool(self._set.Match(text))
        return self._regex.search(text) is not None

    def finditer(self, text: str) -> Any:
        """The non-overlapping matches, in order (objects with `start()` and `end()`, in
        code points): what data flow's taint regions are cut from."""
        return self._regex.finditer(text)

    def starts(self, text: str) -> list[int]:
        """Start offsets (code points) of the non-overlapping matches, ascending."""
        return [match.start() for match in self._regex.finditer(text)]

    def first(self, text: str) -> Any:
        """The first match (`group(name)` gives a group's text, None when it did not
        take part), or None: what policy v1.3 claims read named groups from."""
        return self._regex.search(text)

    @property
    def group_names(self) -> frozenset[str]:
        """The names of the pattern's named groups."""
        return frozenset(self._regex.groupindex)

    @property
    def group_count(self) -> int:
        """How many capturing groups the pattern has."""
        return int(self._regex.groups)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Searcher)
            and other.pattern == self.pattern
            and other.case_sensitive == self.case_sensitive
        )

    def __hash__(self) -> int:
        return hash((self.pattern, self.case_sensitive))

    def __repr__(self) -> str:
        return f"Searcher({self.pattern!r}, case_sensitive={self.case_sensitive})"

    def __reduce__(self) -> tuple[type[Searcher], tuple[str, bool]]:
        # As FullMatcher: workers compile the pattern again from its text.
        return (Searcher, (self.pattern, self.case_sensitive))


class GlobSet:
    """Whole-text match against any of several fnmatch globs, in one RE2 pass."""

    __slots__ = ("_regex", "case_sensitive", "globs")

    def __init__(self, globs: Sequence[str], case_sensitive: bool = True) -> None:
        self.globs = tuple(globs)
        self.case_sensitive = case_sensitive
        self._regex: Any = None
        if self.globs:
            joined = "|".join(f"(?:{glob_to_regex(g)})" for g in self.globs)
            self._regex = check_pattern(joined, case_sensitive=case_sensitive)

    def __bool__(self) -> bool:
        return bool(self.globs)

    def matches(self, text: str) -> bool:
        return self._regex is not None and self._regex.fullmatch(text) is not None

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, GlobSet)
            and other.globs == self.globs
            and other.case_sensitive == self.case_sensitive
        )

    def __hash__(self) -> int:
        return hash((self.globs, self.case_sensitive))

    def __repr__(self) -> str:
        return f"GlobSet({list(self.globs)!r}, case_sensitive={self.case_sensitive})"

    def __reduce__(self) -> tuple[type[GlobSet], tuple[tuple[str, ...], bool]]:
        # As FullMatcher: workers compile the globs again from their text.
        return (GlobSet, (self.globs, self.case_sensitive))


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

    Patterns that RE2 cannot compile as one set within its memory budget (twenty
    `x0[a-z]{1000}` do not fit, each alone does) are split into several sets, each
    holding a run of consecutive patterns: a few passes instead of one, same answers.
    """

    __slots__ = ("_joined", "_line_anchored", "_probes", "_sets", "patterns")

    def __init__(self, patterns: Sequence[str], probes: Sequence[str] = ()) -> None:
        """`probes`: case-insensitive RE2 searched in the same scan as the patterns by
        `screen` (as they are, without (?m)), never by the other methods."""
        self.patterns = tuple(patterns)
        for pattern in self.patterns:
            check_pattern(pattern, case_sensitive=False)
        self._sets: list[tuple[int, Any]] = []
        self._joined: list[tuple[int, Any]] | None = None
        self._line_anchored = False
        self._probes = tuple(probes)
        if self.patterns:
            translated = [_translate(p) for p in self.patterns]
            # Any ^ or $, even escaped or in a class: only ever errs towards a newline.
            self._line_anchored = any("^" in p or "$" in p for p in translated)
            self._sets = _compile_sets(translated)
            if not any(_TEXT_ANCHORED.search(p) for p in translated):
                try:
                    joined = [f"(?m:{p})" for p in translated] + list(self._probes)
                    self._joined = _compile_sets(joined)
                except Exception:  # re2.error; then every text is checked on its own
                    self._joined = None

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, PatternSet)
            and other.patterns == self.patterns
            and other._probes == self._probes
        )

    def __hash__(self) -> int:
        return hash((self.patterns, self._probes))

    def __repr__(self) -> str:
        return f"PatternSet({list(self.patterns)!r})"

    def __reduce__(self) -> tuple[type[PatternSet], tuple[tuple[str, ...], tuple[str, ...]]]:
        # As FullMatcher: workers compile the set again from the pattern texts.
        return (PatternSet, (self.patterns, self._probes))

    def matches(self, text: str) -> list[int]:
        """Indices of the patterns that match somewhere in `text`, ascending."""
        sets = self._sets
        if len(sets) == 1:  # the usual case: one pass, indices as RE2 gives them
            found: list[int] | None = sets[0][1].Match(text)
            if not found:
                return []
            found.sort()
            return found
        every: list[int] = []
        for offset, regex_set in sets:  # in pattern order, so `every` stays ascending
            part = regex_set.Match(text)
            if part:
                every.extend(sorted(offset + i for i in part))
        return every

    def may_match_any(self, texts: list[str]) -> bool:
        """False only when no pattern matches any of the texts (one scan)."""
        if not self._sets or not texts:
            return False
        if self._joined is None:
            return True
        joined = _SEPARATOR.join(texts)
        return any(regex_set.Match(joined) for _, regex_set in self._joined)

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
            return bool(self._sets)
        return self.screen(text, delimiter)[0]

    def screen(self, text: bytes, delimiter: bytes = b"\n") -> tuple[bool, frozenset[int] | None]:
        """`may_match_delimited`, and the indices of the probes found in `text` in the same
        scan (None when the text had to be changed first, or nothing was scanned)."""
        if self._joined is None:
            return bool(self._sets), None
        probed = not (delimiter != _NEWLINE and self._line_anchored)
        if not probed:
            text = text.replace(delimiter, _NEWLINE)
        found = [
            offset + i for offset, regex_set in self._joined for i in regex_set.Match(text) or ()
        ]
        count = len(self.patterns)
        may = any(index < count for index in found)
        return may, frozenset(i - count for i in found if i >= count) if probed else None


def _compile_set(patterns: Sequence[str], options: Any = None) -> Any:
    regex_set = re2.Set.SearchSet(options or _options(case_sensitive=False))
    for pattern in patterns:
        regex_set.Add(pattern)
    regex_set.Compile()
    return regex_set


class _Single:
    """One pattern that RE2 compiles alone but not as a set, with a set's `Match`."""

    __slots__ = ("_regex",)

    def __init__(self, pattern: str) -> None:
        self._regex = re2.compile(pattern, _options(case_sensitive=False))

    def Match(self, text: str | bytes) -> list[int] | None:  # the name of RE2's Set method
        return [0] if self._regex.search(text) is not None else None


def _compile_sets(patterns: Sequence[str], offset: int = 0) -> list[tuple[int, Any]]:
    """(offset of its first pattern, set) covering `patterns` in order: one set when RE2
    can build it, else the halves, recursively (at most 2n - 1 attempts)."""
    try:
        return [(offset, _compile_set(patterns))]
    except Exception:  # re2.error: "failed to compile Set" (the set's memory budget)
        if len(patterns) == 1:
            return [(offset, _Single(patterns[0]))]
    middle = len(patterns) // 2
    return _compile_sets(patterns[:middle], offset) + _compile_sets(
        patterns[middle:], offset + middle
    )
