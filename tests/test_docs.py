"""The README's promises hold: its Python example runs and its commands exist."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from helpers import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_opens_with_install_then_the_two_commands() -> None:
    blocks = README.split("```")[1::2]
    assert "pipx install arh-harness" in blocks[0] and "pip install arh-harness" in blocks[0]
    assert 'name = "arh-harness"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "make demo" in blocks[1] and "make test" in blocks[1]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^demo:", makefile, re.M) and re.search(r"^test:", makefile, re.M)
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_readme_python_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    block = README.split("```python", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(ROOT)
    exec(compile(block, "README.md", "exec"), {})


def test_docs_link_to_files_that_exist() -> None:
    for doc in ("README.md", "POLICY-SPEC.md", "COMPATIBILITY.md"):
        text = (ROOT / doc).read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
            assert (ROOT / target).exists(), f"{doc} links to missing {target}"
    assert os.path.exists(Path(ROOT, "TRACE-SPEC.md"))
