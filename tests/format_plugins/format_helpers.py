"""Helpers for format plugin tests: the example plugin (examples/arh-acme-format)
installed into a directory of its own (offline: the project's hatchling builds it), and
plugins written by hand. Every plugin runs in a subprocess whose PYTHONPATH holds that
directory, never in the test process, so that the suite's formats stay the built-in ones.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "arh-acme-format"
FIXTURE = EXAMPLE / "tests" / "fixtures" / "refund-run.json"


def run_python(args: list[str], sites: list[Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`python ARGS` with the sites and this checkout's src on PYTHONPATH."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*map(str, sites), str(ROOT / "src")])}
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env,
        capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip


def arh(args: list[str], sites: list[Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`python -m agent_reliability_harness ARGS` with the sites and this checkout's src."""
    return run_python(["-m", "agent_reliability_harness", *args], sites, cwd)


def install_example(site: Path) -> None:
    """The example plugin, installed with pip as a user would (no network, no deps)."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation",
         "--no-deps", "--no-index", "--target", str(site), str(EXAMPLE)],
        capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert (site / "arh_acme_format" / "format.py").is_file()


def fake_plugin(site: Path, name: str, module: str, source: str) -> Path:
    """An installed distribution declaring the `arh.formats` entry point `name` =
    `module:FORMAT`, whose module is `source`."""
    site.mkdir(parents=True, exist_ok=True)
    (site / f"{module}.py").write_text(source, encoding="utf-8")
    info = site / f"{module}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        f"[arh.formats]\n{name} = {module}:FORMAT\n", encoding="utf-8"
    )
    return site
