"""Shared fixtures: the repository's samples and a small generated corpus."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
sys.path.insert(0, str(ROOT / "benchmarks"))

import corpus  # noqa: E402  (benchmarks/ is not a package)


@pytest.fixture(scope="session")
def bench_corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(policy file, JSONL corpus of 300 generated traces, about 30% with seeded faults)."""
    base = tmp_path_factory.mktemp("bench")
    policy = base / "policy.json"
    policy.write_text(json.dumps(corpus.POLICY))
    traces = base / "corpus.jsonl"
    corpus.write_jsonl(str(traces), 5, 300)
    return policy, traces
