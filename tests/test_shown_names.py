"""inputs.walk.Shown, the per-directory shortcut of display_path for arguments given one
by one (a shell glob): the same name as display_path for any argument and working
directory, including the forms it leaves to display_path (`//`, `.`, `..`, `-`, escapes)."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from agent_reliability_harness.inputs.walk import Shown
from agent_reliability_harness.io import display_path

PARTS = st.sampled_from(["", ".", "..", "-", "tmp", "ba", "files", "x.json", "é", "\udc80"])
CWDS = st.sampled_from(["/", "/tmp", "/tmp/ba", "/tmp/ba/files", "/x", None])


@given(st.lists(st.lists(PARTS, min_size=1, max_size=5), min_size=1, max_size=6), CWDS)
@example([["", "tmp", "ba"], ["", "tmp", "ba", "files", "x.json"]], "/tmp/ba")
@example([["", "", "tmp"], ["", "tmp", "x.json"]], "/")
@example([["-", "x.json"]], "/tmp")
@example([["", ".", "x.json"]], "/tmp")
def test_shown_is_display_path(arguments: list[list[str]], cwd: str | None) -> None:
    shown = Shown(cwd)  # one instance for all: its cache is what is tested
    for parts in arguments:
        raw = "/".join(parts)
        assert shown(raw) == display_path(raw, cwd), raw
