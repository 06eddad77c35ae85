"""reading.read_local: one open, fstat and read per file, and still whole when the file
system does not behave as a regular file's usually does."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_reliability_harness import reading
from agent_reliability_harness.reading import read_local


def test_a_read_that_would_block_is_made_again_blocking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The fd is left non-blocking (a regular file ignores O_NONBLOCK); a file system that
    # honours it anyway must not cost the input.
    path = tmp_path / "t.json"
    path.write_bytes(b'{"a": 1}')
    real_read = os.read
    calls: list[bool] = []

    def read(fd: int, size: int) -> bytes:
        calls.append(os.get_blocking(fd))
        if len(calls) == 1:
            raise BlockingIOError(11, "Resource temporarily unavailable")
        return real_read(fd, size)

    monkeypatch.setattr(reading.os, "read", read)
    assert read_local(str(path), 1 << 20) == b'{"a": 1}'
    assert calls == [False, True]


def test_a_file_that_grows_after_the_fstat_is_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(b"12345")
    real_fstat = os.fstat

    def fstat(fd: int) -> os.stat_result:
        info = real_fstat(fd)
        path.write_bytes(b"1234567890")  # grows between the fstat and the read
        return info

    monkeypatch.setattr(reading.os, "fstat", fstat)
    assert read_local(str(path), 1 << 20) == b"1234567890"
    with pytest.raises(OSError, match="input limit"):
        path.write_bytes(b"12345")
        read_local(str(path), 8)
