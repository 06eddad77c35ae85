"""The agreement property (docs/guard.md, ../shared/spec/guard.md section 1): every trace
of samples/, tests/cases/ and (when present) the real runs, replayed through the guard's
Python API, is denied exactly where `arh validate` reports an error-severity preventive
finding on a call (same calls, same rule IDs; ARH-SEQ-004 by tool), and `close()` gives
the report `arh validate` gives. The figures (traces, calls, denials) are printed."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from guard_replay import offline_denials, replay

from agent_reliability_harness.api import load_policy, load_traces
from agent_reliability_harness.engine import Evaluator
from agent_reliability_harness.models.policy import parse_policy
from agent_reliability_harness.models.trace import Trace
from helpers import with_defaults

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
REAL = Path(os.environ.get("ARH_REAL_RUNS") or ROOT.parent / "shared" / "real-runs")
SAMPLES = (
    "samples",
    "samples/agents",
    "samples/dataflow",
    "samples/trajectory",
    "samples/repeated",
)
NOT_RUNS = {"PROVENANCE.txt", "LICENSE", "LICENSE.agentdojo"}


class Tally:
    def __init__(self) -> None:
        self.traces = self.calls = self.denials = 0
        self.disagreements: list[str] = []

    def check(self, trace: Trace, evaluator: Evaluator, label: str) -> None:
        denied, closed, calls = replay(trace, evaluator)
        offline = evaluator.evaluate(trace)
        expected = offline_denials(offline, trace)
        self.traces += 1
        self.calls += calls
        self.denials += len(denied)
        if denied != expected:
            self.disagreements.append(
                f"{label}: guard only {sorted(denied - expected, key=str)}, "
                f"validate only {sorted(expected - denied, key=str)}"
            )
        if msgspec.json.encode(closed) != msgspec.json.encode(offline):
            self.disagreements.append(f"{label}: close() differs from validate")

    def assert_agrees(self, name: str) -> None:
        print(f"{name}: {self.traces} traces, {self.calls} calls, {self.denials} denials")
        assert not self.disagreements, "\n".join(self.disagreements[:20])


def _cases() -> Iterator[tuple[Trace, Evaluator, str]]:
    for path in sorted((ROOT / "tests" / "cases").glob("*/*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        trace = dict(case.get("trace", {}))
        if "steps" in case:
            trace["steps"] = case["steps"]
        whole, policy = with_defaults(trace, case.get("policy"))
        yield Trace.from_dict(whole), Evaluator(parse_policy(policy)), str(path)


def test_rule_cases_agree() -> None:
    tally = Tally()
    for trace, evaluator, label in _cases():
        tally.check(trace, evaluator, label)
    assert tally.denials > 0
    tally.assert_agrees("tests/cases")


def test_samples_agree() -> None:
    tally = Tally()
    for folder in SAMPLES:
        evaluator = Evaluator(load_policy(str(ROOT / folder / "policy.json")))
        for path in sorted((ROOT / folder).glob("**/*.json*")):
            if "polic" in str(path.relative_to(ROOT / folder)):
                continue
            for trace in load_traces([str(path)]):
                tally.check(trace, evaluator, str(path))
    assert tally.denials > 0
    tally.assert_agrees("samples")


@pytest.mark.skipif(not REAL.is_dir(), reason="no ../shared/real-runs here")
def test_real_runs_agree() -> None:
    policies = [HERE / "real-runs-policy.json", ROOT / "samples" / "policy.json"]
    policies.append(ROOT / "samples" / "dataflow" / "policy.json")
    evaluators = [Evaluator(load_policy(str(p))) for p in policies]
    tally = Tally()
    for path in sorted(REAL.rglob("*")):
        if not path.is_file() or path.name in NOT_RUNS or path.suffix in {".md", ".txt"}:
            continue
        try:
            traces = list(load_traces([str(path)]))
        except Exception:
            continue
        for trace in traces:
            for evaluator in evaluators:
                tally.check(trace, evaluator, f"{path} under {evaluator.policy.policy_id}")
    assert tally.traces > 1000
    tally.assert_agrees("real runs")
