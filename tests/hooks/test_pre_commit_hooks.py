"""The pre-commit hooks: the manifest passes pre-commit's own schema, its file patterns
pick the right files, and the hooks run through pre-commit itself (offline: a local
repository whose hooks copy the manifest's entries, so nothing is installed)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
SAMPLES = ROOT / "samples"

clientlib = pytest.importorskip("pre_commit.clientlib", reason="pre-commit is in the dev extra")


def _hooks() -> dict[str, dict[str, Any]]:
    return {hook["id"]: hook for hook in clientlib.load_manifest(str(MANIFEST))}


def test_manifest_is_valid_for_pre_commit() -> None:
    hooks = _hooks()
    assert set(hooks) == {"arh-validate", "arh-check-policy"}
    for hook in hooks.values():
        assert hook["language"] == "python"  # pre-commit installs this package for it
        assert hook["entry"].split()[0] == "arh"
    assert hooks["arh-check-policy"]["entry"].split()[1:3] == ["check-policy", "--strict"]


@pytest.mark.parametrize(
    ("hook", "path", "picked"),
    [
        ("arh-validate", "traces/run-1.json", True),
        ("arh-validate", "agents/support/traces/2024/batch.jsonl", True),
        ("arh-validate", "package.json", False),
        ("arh-validate", "samples/policy.json", False),
        ("arh-validate", "traces/notes.md", False),
        ("arh-check-policy", "policies/agent-policy.json", True),
        ("arh-check-policy", "policy.json", True),
        ("arh-check-policy", "ci/refund.policy.json", True),
        ("arh-check-policy", "traces/run-1.json", False),
        ("arh-check-policy", "apolicy.json", False),
    ],
)
def test_file_patterns(hook: str, path: str, picked: bool) -> None:
    assert bool(re.search(_hooks()[hook]["files"], path)) is picked


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, timeout=60)


def _local_config(policy: str) -> str:
    """The manifest's hooks as `repo: local` with language system (the test's arh)."""
    hooks = []
    for hook in _hooks().values():
        args = ["--policy", policy] if hook["id"] == "arh-validate" else hook["args"]
        hooks.append(
            {
                "id": hook["id"],
                "name": hook["name"],
                "entry": hook["entry"],
                "language": "system",
                "files": hook["files"],
                "args": args,
                "require_serial": hook["require_serial"],
            }
        )
    return json.dumps({"repos": [{"repo": "local", "hooks": hooks}]})  # JSON is YAML


def _pre_commit(repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    bin_dir = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "PRE_COMMIT_HOME": str(home),
        "PRE_COMMIT_COLOR": "never",
    }
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed by pre-commit")
def test_hooks_run_through_pre_commit(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "traces").mkdir(parents=True)
    (repo / "policies").mkdir()
    shutil.copy(SAMPLES / "policy.json", repo / "policies" / "agent-policy.json")
    shutil.copy(SAMPLES / "traces" / "refund-ok.json", repo / "traces" / "refund-ok.json")
    (repo / "package.json").write_text('{"name": "not-a-trace"}', encoding="utf-8")
    config = _local_config("policies/agent-policy.json")
    (repo / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    done = _pre_commit(repo, tmp_path / "home")
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"arh validate \(agent traces\)\.+Passed", done.stdout)
    assert re.search(r"arh check-policy \(strict\)\.+Passed", done.stdout)

    shutil.copy(SAMPLES / "traces" / "grounding-fail.json", repo / "traces" / "grounding.json")
    (repo / "policies" / "broken-policy.json").write_text('{"policy_id": 3}', encoding="utf-8")
    _git(repo, "add", "-A")
    done = _pre_commit(repo, tmp_path / "home")
    assert done.returncode == 1
    assert re.search(r"arh validate \(agent traces\)\.+Failed", done.stdout)
    assert "[FAIL] grounding-fail-0006" in done.stdout
    assert "not-a-trace" not in done.stdout
    assert re.search(r"arh check-policy \(strict\)\.+Failed", done.stdout)
    assert "error: invalid policy policies/broken-policy.json: policy policy_id" in done.stdout


def _check_policy(*args: str) -> tuple[int, str, str]:
    import io  # noqa: PLC0415

    from agent_reliability_harness.cli import main  # noqa: PLC0415
    from agent_reliability_harness.cli.common import Streams  # noqa: PLC0415

    out, err = io.StringIO(), io.StringIO()
    code = main(["check-policy", *args], Streams(out, err, None))
    return code, out.getvalue(), err.getvalue()


def test_check_policy_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert _check_policy("samples/policy.json") == (
        0,
        "ok: samples/policy.json (policy refund-support-v1)\n",
        "",
    )
    bad = tmp_path / "bad.json"
    bad.write_text("[]", encoding="utf-8")
    code, out, err = _check_policy("--quiet", "samples/policy.json", str(bad))
    assert code == 1 and out == "" and err.startswith("error: invalid policy ")
    # A typo is a warning (with a did-you-mean); --strict makes it fail.
    typo = tmp_path / "typo.json"
    typo.write_text('{"policy_id": "p", "sequence": {"forbiden_tools": ["x"]}}', encoding="utf-8")
    code, out, err = _check_policy(str(typo))
    assert code == 0 and "sequence.forbiden_tools: unknown key" in err
    assert "did you mean 'forbidden_tools'" in err
    code, out, err = _check_policy("--strict", str(typo))
    assert code == 1 and "1 warning(s), and --strict is given" in err
