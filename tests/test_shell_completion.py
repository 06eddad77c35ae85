"""`arh completion bash|zsh`: the scripts parse in their shells (bash -n, zsh -n) and, run
by the real shell, complete the subcommands, flags, choices and files the parser knows.

bash is driven through its completion variables (COMP_WORDS, COMP_CWORD); zsh through a
pseudo-terminal (tests/data/shell/capture.zsh), as a person pressing Tab would. Locally
the zsh tests skip when zsh is missing; under CI they fail instead (`make setup`
installs it)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agent_reliability_harness.cli import build_parser, main
from agent_reliability_harness.cli.common import COMMANDS, Streams
from agent_reliability_harness.cli.completion import commands
from helpers import ROOT

CAPTURE = ROOT / "tests" / "data" / "shell" / "capture.zsh"
IN_CI = bool(os.environ.get("CI"))


def _script(shell: str) -> str:
    out = io.StringIO()
    assert main(["completion", shell], Streams(out, io.StringIO(), None)) == 0
    return out.getvalue()


def _zsh() -> str:
    found = shutil.which("zsh")
    if found is None:
        if IN_CI:
            pytest.fail("zsh must be installed in CI (make setup installs it)")
        pytest.skip("zsh is not installed (apt-get install zsh)")
    return found


def test_unknown_shell_is_misuse() -> None:
    err = io.StringIO()
    assert main(["completion", "fish"], Streams(io.StringIO(), err, None)) == 2
    assert "invalid choice: 'fish'" in err.getvalue()


def test_the_parser_is_read_whole() -> None:
    found = {c.name: c for c in commands(build_parser())}
    assert list(found) == list(COMMANDS)
    validate = {n for f in found["validate"].flags for n in f.names}
    assert {"--policy", "--show", "--html-out", "--jobs", "--quiet"} <= validate
    show = next(f for f in found["validate"].flags if "--show" in f.names)
    assert show.choices == ("all", "failures", "summary")
    policy = next(f for f in found["validate"].flags if "--policy" in f.names)
    assert policy.kind == "file" and policy.repeat
    assert found["completion"].choices == ("bash", "zsh")


# ---- bash -------------------------------------------------------------------------


def test_bash_script_parses(tmp_path: Path) -> None:
    path = tmp_path / "arh.bash"
    path.write_text(_script("bash"))
    subprocess.run(["bash", "-n", str(path)], check=True)


def _bash(words: list[str], cwd: Path) -> list[str]:
    """What bash offers for the last of `words` (the word being completed)."""
    script = cwd / "arh.bash"
    script.write_text(_script("bash"))
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    program = (
        f"source {script}; COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; "
        "_arh; printf '%s\\n' \"${COMPREPLY[@]}\""
    )
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", program],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return [line for line in done.stdout.splitlines() if line]


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["arh", ""], set(COMMANDS) | {"--version", "--help", "-h"}),
        (["arh", "comp"], {"compare", "completion"}),
        (["arh", "validate", "--sh"], {"--show"}),
        (["arh", "validate", "--show", ""], {"all", "failures", "summary"}),
        (["arh", "validate", "--show", "f"], {"failures"}),
        (["arh", "compare", "--fail-on", ""], {"regressions", "failures", "never"}),
        (["arh", "validate", "--format", "claude"], {"claude-code"}),
        (["arh", "completion", ""], {"bash", "zsh"}),
        (["arh", "validate", "--policy", "p.json", "--ht"], {"--html-out"}),
        (["arh", "validate", "--jobs", ""], set()),
    ],
)
def test_bash_completes(words: list[str], expected: set[str], tmp_path: Path) -> None:
    assert set(_bash(words, tmp_path)) == expected


def test_bash_completes_files_for_paths_and_file_flags(tmp_path: Path) -> None:
    (tmp_path / "traces").mkdir()
    (tmp_path / "policy.json").write_text("{}")
    assert set(_bash(["arh", "validate", "--policy", "pol"], tmp_path)) == {"policy.json"}
    assert set(_bash(["arh", "validate", "--policy", "p.json", "tr"], tmp_path)) == {"traces"}
    assert set(_bash(["arh", "compare", "--baseline", "po"], tmp_path)) == {"policy.json"}


# ---- zsh --------------------------------------------------------------------------


def test_zsh_script_parses(tmp_path: Path) -> None:
    path = tmp_path / "_arh"
    path.write_text(_script("zsh"))
    subprocess.run([_zsh(), "-n", str(path)], check=True)


def _zsh_offers(line: str, tmp_path: Path) -> set[str]:
    functions = tmp_path / "functions"
    functions.mkdir(exist_ok=True)
    (functions / "_arh").write_text(_script("zsh"))
    done = subprocess.run(
        [_zsh(), "-f", str(CAPTURE), str(functions), line],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return {word for word in done.stdout.splitlines() if word.strip()}


@pytest.mark.parametrize(
    ("line", "expected", "exact"),
    [
        ("arh ", set(COMMANDS), True),
        ("arh comp", {"compare", "completion"}, True),
        ("arh validate --sh", {"--show"}, True),
        ("arh validate --show ", {"all", "failures", "summary"}, True),
        ("arh compare --fail-on ", {"regressions", "failures", "never"}, True),
        ("arh completion ", {"bash", "zsh"}, True),
        ("arh validate --", {"--policy", "--html-out", "--show", "--jobs", "--quiet"}, False),
    ],
)
def test_zsh_completes(line: str, expected: set[str], exact: bool, tmp_path: Path) -> None:
    offered = _zsh_offers(line, tmp_path)
    assert offered == expected if exact else expected <= offered, offered


def test_zsh_completes_files(tmp_path: Path) -> None:
    (tmp_path / "policy.json").write_text("{}")
    assert "policy.json" in _zsh_offers("arh validate --policy pol", tmp_path)
