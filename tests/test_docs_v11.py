"""docs/trajectories.md, docs/dataflow.md and docs/agents.md stay true: their `$ command` blocks are replayed
on a copy of the samples and must print what the pages show (`ARH_UPDATE_DOCS=1` rewrites
the outputs instead; review the diff)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from helpers import ROOT, SAMPLES
from test_docs_repeated import _BLOCK, BIN, replay


@pytest.mark.skipif(shutil.which("arh", path=BIN) is None, reason="needs the installed `arh`")
@pytest.mark.parametrize(
    ("name", "sample"),
    [("trajectories.md", "trajectory"), ("dataflow.md", "dataflow"), ("agents.md", "agents")],
)
def test_documented_commands_print_what_the_page_shows(
    name: str, sample: str, tmp_path: Path
) -> None:
    shutil.copytree(SAMPLES / sample, tmp_path / sample)
    page = ROOT / "docs" / name
    differences = replay(page, tmp_path, bool(os.environ.get("ARH_UPDATE_DOCS")))
    assert len(_BLOCK.findall(page.read_text(encoding="utf-8"))) >= 1
    assert not differences, differences[0]
