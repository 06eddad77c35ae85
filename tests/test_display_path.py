"""display_path names a local path exactly as it did through pathlib (PurePosixPath,
relative to the working directory when inside it), now without importing pathlib."""

from __future__ import annotations

import contextlib
import os
from pathlib import PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_reliability_harness.io import display_path, shown_name

pytestmark = pytest.mark.skipif(os.sep != "/", reason="the POSIX path rules")


def _through_pathlib(text: str, cwd: str) -> str:
    pure = PurePosixPath(text)
    if pure.is_absolute():
        with contextlib.suppress(ValueError):
            pure = pure.relative_to(cwd)
    return shown_name(pure.as_posix())


# Paths made of the pieces pathlib treats specially: runs of slashes, `.`, `..`, and
# names (one with a space, one non-ASCII).
PATHS = st.lists(st.sampled_from(["/", "//", "///", ".", "..", "a", "b c", "é"]), max_size=8).map(
    "".join
)
CASES = [
    ("/a/b/c.json", "/a"),
    ("/a/b", "/a/b"),
    ("/a/b", "/"),
    ("//a/b", "/a"),
    ("//a/b", "//a"),
    ("///a/b", "/a"),
    ("/a/./b//c/", "/a/b"),
    ("/ab/c", "/a"),
    ("/a", "/a/b"),
    ("a/./b/", "/a"),
    ("./a", "/"),
    (".", "/x"),
    ("/", "/"),
    ("/a/b", ""),
    ("/a/b", "a"),
    ("/a/../b", "/a"),
]


@pytest.mark.parametrize(("path", "cwd"), CASES)
def test_display_path_is_what_pathlib_gave(path: str, cwd: str) -> None:
    assert display_path(path, cwd) == _through_pathlib(path, cwd)


@given(path=PATHS.filter(bool), cwd=PATHS)
def test_display_path_is_what_pathlib_gave_for_any_path(path: str, cwd: str) -> None:
    assert display_path(path, cwd) == _through_pathlib(path, cwd)


def test_the_working_directory_is_the_default(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert display_path(str(tmp_path / "x" / "t.json")) == "x/t.json"
    assert display_path(str(tmp_path)) == "."
