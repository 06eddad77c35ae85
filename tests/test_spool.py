"""The spool a streamed report's elements wait in: the same text back whether it stayed in
memory or moved to a temporary file."""

from __future__ import annotations

import pytest

from agent_reliability_harness.atomic import Spool

PIECES = ['{"a": 1}', ",\n", "", "\r\u00e9\u20ac\U0001f600", "x" * 50, "\n"]


@pytest.mark.parametrize("in_memory", [0, 10, 60, 10_000])
def test_what_was_written_comes_back_whole(in_memory: int) -> None:
    spool = Spool(in_memory)
    for piece in PIECES:
        spool.write(piece)
    assert not spool.empty
    assert "".join(spool.chunks(size=7)) == "".join(PIECES)
    assert list(spool.chunks()) == []  # read back once


@pytest.mark.parametrize("in_memory", [0, 10_000])
def test_pieces_are_at_most_size_characters(in_memory: int) -> None:
    spool = Spool(in_memory)
    spool.write("y" * 25)
    assert [len(c) for c in spool.chunks(size=10)] == [10, 10, 5]


def test_nothing_or_only_empty_text_is_empty() -> None:
    spool = Spool()
    assert spool.empty and list(spool.chunks()) == []
    spool.write("")
    assert spool.empty
