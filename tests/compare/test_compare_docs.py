"""docs/regression-testing.md stays true: every `$ command` in it is replayed on a copy of the
samples, and its output must be exactly what the page shows."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cmp_helpers import REPO, SAMPLES

DOC = REPO / "docs" / "regression-testing.md"
_BLOCK = re.compile(r"^```\n(.*?)^```$", re.S | re.M)


def _sessions() -> list[tuple[str, str]]:
    """(command, expected output) for every `$ ` line of the page, in order."""
    steps: list[tuple[str, str]] = []
    for block in _BLOCK.findall(DOC.read_text(encoding="utf-8")):
        lines = block.splitlines()
        if not lines or not lines[0].startswith("$ "):
            continue
        index = 0
        while index < len(lines):
            command = lines[index][2:]
            index += 1
            while command.endswith("\\"):
                command = command[:-1] + " " + lines[index].strip()
                index += 1
            output: list[str] = []
            while index < len(lines) and not lines[index].startswith("$ "):
                output.append(lines[index])
                index += 1
            steps.append((command, "".join(f"{line}\n" for line in output)))
    return steps


BIN = str(Path(sys.executable).parent)


@pytest.mark.skipif(shutil.which("sed") is None, reason="the page uses sed")
@pytest.mark.skipif(shutil.which("arh", path=BIN) is None, reason="needs the installed `arh`")
def test_documented_commands_print_what_the_page_shows(tmp_path: Path) -> None:
    shutil.copy(SAMPLES / "policy.json", tmp_path / "policy.json")
    shutil.copytree(SAMPLES / "traces", tmp_path / "traces")
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    env.pop("NO_COLOR", None)
    last = 0
    steps = _sessions()
    assert len(steps) > 10
    for command, expected in steps:
        if command == "echo $?":
            assert f"{last}\n" == expected, command
            continue
        done = subprocess.run(
            ["bash", "-c", command + " 2>&1"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        last = done.returncode
        assert done.stdout == expected, command
