"""The cache's entries: whole and intact, or a miss (never another payload)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from agent_reliability_harness.pipeline.cache_store import LocalStore, seal, unseal


@given(st.binary(max_size=200))
def test_a_sealed_payload_comes_back(payload: bytes) -> None:
    assert unseal(seal(payload)) == payload


@given(st.binary(max_size=100), st.data())
def test_a_cut_or_flipped_entry_is_refused(payload: bytes, data: st.DataObject) -> None:
    entry = seal(payload)
    cut = data.draw(st.integers(0, len(entry) - 1))
    assert unseal(entry[:cut]) is None
    at = data.draw(st.integers(0, len(entry) - 1))
    bit = data.draw(st.integers(0, 7))
    flipped = entry[:at] + bytes([entry[at] ^ (1 << bit)]) + entry[at + 1 :]
    assert unseal(flipped) is None


def test_the_store_keeps_and_trims(tmp_path: Path) -> None:
    store = LocalStore(str(tmp_path))
    store.check_writable()
    assert store.get("ab" * 32) is None
    store.put("ab" * 32, b"one")
    store.put("cd" * 32, b"two")
    assert store.get("ab" * 32) == b"one"
    assert store.stats().entries == 2
    assert store.trim(1) == 2
    assert store.stats().entries == 0
