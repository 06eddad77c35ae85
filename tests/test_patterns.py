"""patterns.py: globs match as fnmatch does, split RE2 sets find what one pass would,
and searches report where markers start."""

from __future__ import annotations

import fnmatch

import re2
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness.patterns import (
    FullMatcher,
    GlobSet,
    PatternSet,
    Searcher,
    glob_to_regex,
)

GLOB_CHARS = st.text(st.sampled_from("ab*?[]!-^\\.z"), max_size=7)
TEXTS = st.text(st.sampled_from("ab-]![^\\.zA\n"), max_size=6)


@settings(max_examples=750, deadline=None)
@given(GLOB_CHARS, TEXTS)
def test_glob_matches_as_fnmatchcase(glob: str, text: str) -> None:
    assert GlobSet([glob]).matches(text) == fnmatch.fnmatchcase(text, glob), glob_to_regex(glob)


@settings(max_examples=500, deadline=None)
@given(st.lists(GLOB_CHARS, min_size=1, max_size=3), TEXTS)
def test_glob_sets_match_any_glob(globs: list[str], text: str) -> None:
    assert GlobSet(globs).matches(text) == any(fnmatch.fnmatchcase(text, g) for g in globs)


def test_case_insensitive_globs() -> None:
    trusted = GlobSet(["*@example.com", "ACME-??"], case_sensitive=False)
    assert trusted.matches("Jo@Example.COM") and trusted.matches("acme-12")
    assert not trusted.matches("jo@example.com.evil") and not GlobSet([]).matches("")


def _one_by_one(patterns: list[str], text: str) -> list[int]:
    options = re2.Options()
    options.case_sensitive = False
    return [i for i, p in enumerate(patterns) if re2.compile(p, options).search(text)]


LARGE = [f"x{i}[a-z]{{1000}}" for i in range(20)]


def test_patterns_over_the_set_budget_are_split_and_agree() -> None:
    patterns = PatternSet(LARGE)
    assert len(patterns._sets) > 1 and patterns.screens  # one RE2 set could not hold them
    for text in ["x3" + "a" * 1000, "x17" + "b" * 999 + " x0" + "C" * 1000, "x5" + "a" * 999, ""]:
        assert patterns.matches(text) == _one_by_one(LARGE, text)
        assert patterns.may_match_any([text]) == bool(_one_by_one(LARGE, text))
        assert patterns.may_match_delimited(text.encode()) == bool(_one_by_one(LARGE, text))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 19), max_size=6),
    st.lists(st.sampled_from([*LARGE[:4], "x1b", "zz"]), min_size=1, max_size=5),
)
def test_split_sets_agree_with_single_searches(picks: list[int], pieces: list[str]) -> None:
    chosen = [LARGE[i] for i in picks] + ["x1b", "zz+"]
    text = " ".join(p.replace("[a-z]{1000}", "q" * 1000) for p in pieces)
    assert PatternSet(chosen).matches(text) == _one_by_one(chosen, text)


def test_searcher_positions_and_case() -> None:
    marker = Searcher("<information>", case_sensitive=False)
    assert marker.starts("é <INFORMATION> x <information>") == [2, 18]
    assert Searcher("abc").search("xxabcxx") and not Searcher("abc").search("ABC")
    assert Searcher("a") == Searcher("a") != Searcher("a", case_sensitive=False)


_TOKENS = ["a", "b", ".", "a*", "b+", "(a|b)", "[ab]", "^", "$", r"\b", r"\d", "(?i)", r"\Z"]
_TOKENS += [r"\A", r"\z", "x?", "(?:ab)", r"\Qa.", r"\E", "|", "é", "[^a]", "{2}"]


def _compiles(pattern: str) -> bool:
    try:
        FullMatcher(pattern)
    except ValueError:
        return False
    return True


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=5).map("".join).filter(_compiles),
    st.text(alphabet="abAB.1é\n ", max_size=6),
    st.booleans(),
)
def test_set_answers_equal_the_regex_answers(pattern: str, text: str, case: bool) -> None:
    """FullMatcher and Searcher answer with a one-pattern RE2 set where they can; that is
    exactly the regex's fullmatch / search."""
    matcher = FullMatcher(pattern)
    assert matcher.fullmatch(text) == (matcher._regex.fullmatch(text) is not None)
    searcher = Searcher(pattern, case_sensitive=case)
    assert searcher.search(text) == (searcher._regex.search(text) is not None)
