"""The package as users get it: build the wheel and sdist, install the wheel into a fresh
virtualenv and run `arh` from there on the samples.

Offline: the build uses the backend installed here (--no-isolation), and the fresh
venv sees exactly the two runtime dependencies (linked from this environment) and
the wheel, never the source tree.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NAME = "arh-harness"
RUNTIME = ("google-re2", "msgspec")
SUMMARY = "9 traces: 2 passed, 7 failed, average score 91.09; findings: 20 error, 1 warning, 0 info"

pytest.importorskip("build", reason="`build` is in the dev extra")


def _run(*args: str, cwd: Path = ROOT, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(args), cwd=cwd, capture_output=True, text=True, check=False, timeout=240, **kwargs
    )


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    done = _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def _runtime_site(target: Path) -> None:
    """Link the runtime dependencies' top-level files into `target` (a .pth names it)."""
    for name in RUNTIME:
        files = importlib.metadata.files(name) or []
        base = Path(str(importlib.metadata.distribution(name).locate_file("")))
        for top in sorted({f.parts[0] for f in files if f.parts[0] != ".."}):
            (target / top).symlink_to(base / top)


def test_wheel_and_sdist_hold_the_package(dist: Path) -> None:
    (wheel,) = dist.glob("arh_harness-*.whl")
    (sdist,) = dist.glob("arh_harness-*.tar.gz")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(meta).decode()
        points = archive.read(meta.replace("METADATA", "entry_points.txt")).decode()
    with tarfile.open(sdist) as archive:
        members = {m.split("/", 1)[1] for m in archive.getnames() if "/" in m}
    package = "agent_reliability_harness/"
    for part in ("1-base", "2-list", "3-trace", "4-page"):
        assert f"{package}render/html_report/assets/js/{part}.js" in names
    assert f"{package}render/html_report/assets/report.css" in names
    assert f"{package}pytest_plugin.py" in names
    assert f"Name: {NAME}\n" in metadata and "License-Expression: Apache-2.0" in metadata
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "arh = agent_reliability_harness.cli:main" in points
    assert "[pytest11]\narh = agent_reliability_harness.pytest_plugin" in points
    for needed in ("LICENSE", "README.md", "pyproject.toml", "action.yml", ".pre-commit-hooks.yaml",
                   "scripts/github_action.py", "samples/policy.json", "Makefile",
                   "examples/arh-refund-rules/pyproject.toml"):  # fmt: skip
        assert needed in members, needed


def test_wheel_installs_into_a_fresh_venv_and_runs(dist: Path, tmp_path: Path) -> None:
    (wheel,) = dist.glob("arh_harness-*.whl")
    venv = tmp_path / "venv"
    assert _run(sys.executable, "-m", "venv", "--without-pip", str(venv)).returncode == 0
    python = venv / "bin" / "python"
    site = Path(_run(str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))")
                .stdout.strip())  # fmt: skip
    deps = tmp_path / "runtime-deps"
    deps.mkdir()
    _runtime_site(deps)
    (site / "runtime-deps.pth").write_text(f"{deps}\n", encoding="utf-8")
    done = _run(sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                "--no-index", "--quiet", str(wheel))  # fmt: skip
    assert done.returncode == 0, done.stderr
    work = tmp_path / "work"  # away from the source tree, so only the wheel can be imported
    shutil.copytree(ROOT / "samples", work / "samples")
    env = {"PATH": f"{venv / 'bin'}{os.pathsep}/usr/bin:/bin", "HOME": str(tmp_path)}
    where = _run(str(python), "-c", "import agent_reliability_harness as a; print(a.__file__)",
                 cwd=work, env=env)  # fmt: skip
    assert where.stdout.startswith(str(site)), where.stdout + where.stderr
    arh = str(venv / "bin" / "arh")
    version = _run(arh, "--version", cwd=work, env=env)
    assert version.returncode == 0 and version.stdout.startswith("arh ")
    done = _run(arh, "validate", "--policy", "samples/policy.json", "samples/traces",
                "--html-out", "report.html", cwd=work, env=env)  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert done.stdout.rstrip("\n").splitlines()[-1] == SUMMARY
    assert "ARH report" in (work / "report.html").read_text(encoding="utf-8")
