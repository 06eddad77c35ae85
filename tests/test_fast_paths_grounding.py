"""The citation URL fast path only accepts what the urlsplit-based check accepts."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness.rules.grounding import _SIMPLE_URL, _valid_url_general, valid_url

pytestmark = pytest.mark.slow  # an equivalence oracle (see pyproject.toml)


def _check(url: Any) -> None:
    if isinstance(url, str) and _SIMPLE_URL.fullmatch(url):
        assert _valid_url_general(url), url
    assert valid_url(url) == _valid_url_general(url)


# Characters that urlsplit treats specially, whitespace it strips, and non-ASCII that NFKC
# turns into delimiters (U+2100 is "a/c", U+FF03 is "#").
_URL_CHARS = "aZ09.-_~:/?#[]@%!$&'()*+,;=\\ \t\r\n\x00\x1f\x7f\x85\xa0\u2028\u2100\uff03é"
_PIECES = st.text(alphabet=_URL_CHARS, max_size=8)
_SCHEMES = st.sampled_from(["http", "https", "HTTP", "Https", "ftp", "", "h", "http s", " http"])
_URLISH = st.builds(
    lambda scheme, sep, host, port, rest: scheme + sep + host + port + rest,
    _SCHEMES,
    st.sampled_from(["://", ":/", ":", "//", ":///", "://@", "://["]),
    st.one_of(st.from_regex(r"[A-Za-z0-9.-]{0,6}", fullmatch=True), _PIECES),
    st.one_of(st.just(""), st.from_regex(r":[0-9]{0,6}", fullmatch=True), _PIECES),
    st.one_of(st.just(""), st.from_regex(r"[/?#][!-~]{0,8}", fullmatch=True), _PIECES),
)


@settings(max_examples=1000, deadline=None)
@given(st.one_of(_URLISH, st.text(), st.text(alphabet=_URL_CHARS)))
def test_fast_url_check_agrees_with_urlsplit(url: str) -> None:
    _check(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://kb.example.com/a/1596",
        "http://a",
        "http://a:",
        "http://a:99999/x?y#z",
        "http://./[x]@y",
        "https://-",
        "http://host/path with space",
        "http://[::1]/",
        "http://[bad/",
        "http://user@host/",
        "http://@host",
        "http://:80",
        "http://",
        "HTTP://a",
        " http://a ",
        "http://a\n",
        "http://ex\u2100ample.com",
        "http://exämple.com",
        "ftp://files",
        5,
        None,
    ],
)
def test_fast_url_check_examples(url: Any) -> None:
    _check(url)


def test_common_urls_take_the_fast_path() -> None:
    for url in ("https://kb.example.com/a/1596", "http://localhost:8080/x?q=1&r=[2]#f"):
        assert _SIMPLE_URL.fullmatch(url)
