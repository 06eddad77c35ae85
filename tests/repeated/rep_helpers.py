"""Shared by the repeated-run tests: the seeded scenario (benchmarks/repeated.py), CLI
runs in-process, and the expected figures of a task computed from its counts."""

from __future__ import annotations

import io
import json
import sys
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.stats import round_output, wilson_interval
from helpers import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

import repeated

SCENARIO = ROOT / "samples" / "repeated"


def cli(args: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO(stdin)))
    return code, out.getvalue(), err.getvalue()


def write_policy(directory: Path) -> Path:
    path = directory / "policy.json"
    path.write_text(json.dumps(repeated.POLICY))
    return path


def expected_task(task_id: str, expected: Any) -> dict[str, Any]:
    """The `tasks` entry the seeds imply, computed here from first principles."""
    n, c = expected.runs, expected.passed
    rules = []
    for rule_id in sorted(expected.fired):
        fired = expected.fired[rule_id]
        low, high = wilson_interval(fired, n)
        rules.append(
            {
                "rule_id": rule_id,
                "fired_runs": fired,
                "rate": round_output(Fraction(fired, n)),
                "ci95": [round_output(low), round_output(high)],
                "flaky": 0 < fired < n,
            }
        )
    return {
        "task_id": task_id,
        "runs": n,
        "passed": c,
        "pass_at_k": {
            str(k): round_output(1 - Fraction(comb(n - c, k), comb(n, k))) for k in range(1, n + 1)
        },
        "pass_hat_k": {
            str(k): round_output(Fraction(comb(c, k), comb(n, k))) for k in range(1, n + 1)
        },
        "rules": rules,
    }
