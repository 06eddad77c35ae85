"""Shared fixtures: sample paths, run reports for the renderer tests, a generated corpus."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from agent_reliability_harness.api import load_policy, validate_paths
from agent_reliability_harness.models.report import RunReport
from agent_reliability_harness.render import RenderOptions
from helpers import ROOT, SAMPLES

# No test depends on timing: every run loads a profile without deadlines. CI also runs
# the same examples every time (a red build is always reproducible); locally,
# hypothesis explores new examples each run.
settings.register_profile("ci", derandomize=True, deadline=None, database=None)
settings.register_profile("local", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "local")

sys.path.insert(0, str(ROOT / "benchmarks"))

import corpus  # noqa: E402  (benchmarks/ is not a package)

# Renderer inputs, read relative to the repository root so report paths are stable.
# "samples" is a frozen copy of samples/ (golden files must not move when the samples
# grow); "live" is samples/ itself, checked by the consumers but not against goldens.
FROZEN = "tests/data/samples"
RUNS = {
    "samples": [f"{FROZEN}/traces"],
    "mixed": ["tests/data/mixed"],
    "live": ["samples/traces"],
    "agents": ["tests/data/agents/traces"],  # policy v1.2 `agents`: multi-agent traces
    "claims": ["tests/data/claims/traces"],  # policy v1.3 claims: sentence and call shown
}
POLICIES = {
    "live": "samples/policy.json",
    "agents": "tests/data/agents/policy.json",
    "claims": "tests/data/claims/policy.json",
}
# A fixed version keeps golden files stable across releases.
OPTIONS = RenderOptions(tool_version="0.0.0-test")


@pytest.fixture(autouse=True)
def _plain_console_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The console's defaults read CI (--show failures in CI logs), FORCE_COLOR and
    NO_COLOR; every test starts without them (tests of those defaults set them), so the
    suite prints the same under CI. helpers.IN_CI keeps what CI said."""
    for name in ("CI", "FORCE_COLOR", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def samples() -> Path:
    return SAMPLES


def run_report(name: str, with_positions: bool = True) -> RunReport:
    """The run report of a named input set (call from the repository root)."""
    policy = load_policy(POLICIES.get(name, f"{FROZEN}/policy.json"))
    return validate_paths(RUNS[name], policy, with_positions=with_positions)


@pytest.fixture
def at_repo_root(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(ROOT)
    yield ROOT


@pytest.fixture
def report_of(at_repo_root: Path) -> Callable[[str], RunReport]:
    """run_report, for tests parametrized over input sets."""
    return run_report


@pytest.fixture
def options() -> RenderOptions:
    return OPTIONS


@pytest.fixture
def samples_run(at_repo_root: Path) -> RunReport:
    return run_report("samples")


@pytest.fixture
def mixed_run(at_repo_root: Path) -> RunReport:
    return run_report("mixed")


@pytest.fixture(scope="session")
def bench_corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(policy file, JSONL corpus of 300 generated traces, about 30% with seeded faults)."""
    base = tmp_path_factory.mktemp("bench")
    policy = base / "policy.json"
    policy.write_text(json.dumps(corpus.POLICY))
    traces = base / "corpus.jsonl"
    corpus.write_jsonl(str(traces), 5, 300)
    return policy, traces
