"""A run imports only what it needs: `arh validate` none of compare's, Markdown's, SARIF's
or JUnit's code, and never Dask or fsspec unless asked for."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers import SAMPLES

PACKAGE = "agent_reliability_harness"


def _loaded(args: list[str]) -> set[str]:
    code = (
        "import sys, json; from agent_reliability_harness.cli import main; "
        f"main({args!r}); print(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_validate_imports_only_its_formats(tmp_path: object) -> None:
    base = ["validate", "--policy", str(SAMPLES / "policy.json"), str(SAMPLES / "traces")]
    loaded = _loaded([*base, "--quiet"])
    for module in (
        "compare",
        "models.baseline",
        "render.markdown",
        "render.sarif",
        "render.junit",
        "render.compare_console",
        "pipeline.dask_executor",
        "pipeline.regression",
    ):
        assert f"{PACKAGE}.{module}" not in loaded, module
    assert not {"distributed", "dask", "fsspec"} & loaded
    assert f"{PACKAGE}.render.json_" in loaded  # console and JSON are what a run writes
    with_md = _loaded([*base, "--quiet", "--md-out", "-"])
    assert f"{PACKAGE}.render.markdown" in with_md and f"{PACKAGE}.render.sarif" not in with_md


def test_canonical_v1_run_imports_no_v11_machinery() -> None:
    """A v1 policy over canonical traces needs no trajectory matcher, value index,
    repeated-run statistics, inference, YAML or hashing (they are imported when a policy
    or a run asks for them)."""
    base = ["validate", "--policy", str(SAMPLES / "policy.json"), str(SAMPLES / "traces")]
    loaded = _loaded([*base, "--quiet", "--jobs", "1"])
    for package in ("trajectory", "dataflow", "stats", "infer"):
        assert not {m for m in loaded if m.startswith(f"{PACKAGE}.{package}")}, package
    assert not {"yaml", "hashlib", "_hashlib"} & loaded
