"""docs/repeated-runs.md and docs/infer.md stay true: every `$ command` of their console
blocks is replayed on a copy of samples/repeated and must print exactly what the page
shows. `ARH_UPDATE_DOCS=1` rewrites the outputs in the pages instead (review the diff)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT, SAMPLES

BIN = str(Path(sys.executable).parent)
_BLOCK = re.compile(r"^```\n(\$ .*?)^```$", re.S | re.M)
PAGES = ("repeated-runs.md", "infer.md")


def _steps(block: str) -> list[tuple[str, str]]:
    """(command as written, output) for each `$ ` line of a block."""
    lines = block.splitlines()
    steps: list[tuple[str, str]] = []
    index = 0
    while index < len(lines):
        written = [lines[index]]
        index += 1
        while written[-1].endswith("\\"):
            written.append(lines[index])
            index += 1
        output: list[str] = []
        while index < len(lines) and not lines[index].startswith("$ "):
            output.append(lines[index])
            index += 1
        steps.append(("\n".join(written), "".join(f"{line}\n" for line in output)))
    return steps


def _run(command: str, cwd: Path, last: int) -> tuple[str, int]:
    if command == "echo $?":
        return f"{last}\n", last
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}", COLUMNS="100")
    env.pop("NO_COLOR", None)
    done = subprocess.run(
        ["bash", "-c", command + " 2>&1"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout, done.returncode


def replay(page: Path, work: Path, update: bool) -> list[tuple[str, str, str]]:
    """Run every command; returns (command, shown, printed) where they differ, or rewrites
    the page with what was printed."""
    text = page.read_text(encoding="utf-8")
    differences: list[tuple[str, str, str]] = []
    last = 0
    rewritten = []
    position = 0
    for match in _BLOCK.finditer(text):
        rewritten.append(text[position : match.start(1)])
        block = []
        for written, shown in _steps(match.group(1)):
            command = re.sub(r"\\\n\s*", " ", written)[2:]
            printed, last = _run(command, work, last)
            if printed != shown:
                differences.append((command, shown, printed))
            block.append(f"{written}\n{printed}")
        rewritten.append("".join(block))
        position = match.end(1)
    rewritten.append(text[position:])
    if update:
        page.write_text("".join(rewritten), encoding="utf-8")
    return differences


@pytest.mark.skipif(shutil.which("arh", path=BIN) is None, reason="needs the installed `arh`")
@pytest.mark.parametrize("name", PAGES)
def test_documented_commands_print_what_the_page_shows(name: str, tmp_path: Path) -> None:
    shutil.copytree(SAMPLES / "repeated", tmp_path / "repeated")
    page = ROOT / "docs" / name
    differences = replay(page, tmp_path, bool(os.environ.get("ARH_UPDATE_DOCS")))
    assert len(_BLOCK.findall(page.read_text(encoding="utf-8"))) >= 3
    assert not differences, differences[0]
