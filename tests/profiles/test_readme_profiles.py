"""README's first examples (no policy; --profile coding-agent) print what the README shows."""

from __future__ import annotations

import io
import os
import re
import shlex

import pytest

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from helpers import ROOT

_SECTION = re.search(
    r"^## 60 seconds\n(.*?)^A policy says", (ROOT / "README.md").read_text("utf-8"), re.S | re.M
)
_BLOCKS = re.findall(
    r"^```console\n\$ (.*?)\n(.*?)^```$", _SECTION.group(1) if _SECTION else "", re.S | re.M
)


@pytest.mark.parametrize(("command", "shown"), _BLOCKS, ids=lambda v: str(v)[:40])
def test_readme_first_examples(command: str, shown: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("CI", raising=False)
    args = shlex.split(command)
    assert args[0] == "arh"
    out, err = io.StringIO(), io.StringIO()
    code = main(args[1:], Streams(out, err, io.BytesIO()))
    assert code == 1
    assert out.getvalue() + err.getvalue() == shown
    assert os.path.isdir(ROOT / "samples")


def test_the_section_has_both_examples() -> None:
    assert [c.split()[:3] for c, _ in _BLOCKS] == [
        ["arh", "validate", "samples/traces"],
        ["arh", "validate", "--profile"],
    ]
