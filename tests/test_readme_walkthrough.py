"""README "Writing a policy" stays true: its commands are replayed in a copy of the samples
(the section's JSON block is the `refunds.json` it tells the reader to save), and each must
print exactly what the README shows."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT, SAMPLES

SECTION = re.search(
    r"^## Writing a policy\n(.*?)^## ",
    (ROOT / "README.md").read_text(encoding="utf-8"),
    re.S | re.M,
)
_BLOCK = re.compile(r"^```(json|console)\n(.*?)^```$", re.S | re.M)
BIN = str(Path(sys.executable).parent)


def _steps(console: str) -> list[tuple[str, str]]:
    steps: list[tuple[str, str]] = []
    for line in console.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], ""))
        else:
            command, output = steps[-1]
            steps[-1] = (command, output + line + "\n")
    return steps


@pytest.mark.skipif(shutil.which("sed") is None, reason="the section uses sed")
@pytest.mark.skipif(shutil.which("arh", path=BIN) is None, reason="needs the installed `arh`")
def test_the_walkthrough_prints_what_the_readme_shows(tmp_path: Path) -> None:
    assert SECTION is not None
    shutil.copytree(SAMPLES / "traces", tmp_path / "traces")
    shutil.copytree(SAMPLES / "policies", tmp_path / "policies")
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    env.pop("NO_COLOR", None)
    last, replayed = 0, 0
    for kind, body in _BLOCK.findall(SECTION.group(1)):
        if kind == "json":
            (tmp_path / "refunds.json").write_text(body, encoding="utf-8")
            continue
        for command, expected in _steps(body):
            replayed += 1
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
    assert replayed >= 10
