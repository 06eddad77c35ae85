"""nesting.within on big documents: the depth read from brackets and quotes alone (the
text cut down by `_structure`) is the depth of the JSON value, escapes and all."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness.nesting import _regex, _structure, within

# Strings full of what could mislead a depth count: brackets, quotes, backslashes,
# escapes (\n, \u0000) and non-ASCII text.
_TEXT = st.text(alphabet=st.sampled_from('[]{}"\\:,n u\n\x00é'), max_size=8)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=20,
)


def _depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


@settings(max_examples=400, deadline=None)
@given(_VALUES, st.booleans())
def test_structure_nests_as_the_document(value: Any, ascii_only: bool) -> None:
    data = json.dumps(value, ensure_ascii=ascii_only).encode()
    depth = _depth(value)
    for limit in {max(depth - 1, 0), depth, depth + 1}:
        expected = depth <= limit
        assert (_regex(limit).fullmatch(data) is not None) is expected
        assert (_regex(limit).fullmatch(_structure(data)) is not None) is expected


def test_big_documents_at_and_over_the_limit() -> None:
    tricky = '"[\\\\\\"{\\u005b"'  # a string holding [\"{[ (escaped), between quotes
    filler = json.dumps(["x" * 100, tricky] * 600)  # depth 1, over 64 KiB: the regex path
    at_limit = "[" * 511 + filler + "]" * 511
    assert len(at_limit) > 1 << 16
    assert within(at_limit.encode())
    assert not within(("[" + at_limit + "]").encode())
    assert within(at_limit) and not within("[" + at_limit + "]")  # str: the plain path
