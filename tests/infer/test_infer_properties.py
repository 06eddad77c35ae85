"""The promise of `arh infer`: the inferred policy (and the per-task policies) passes every
good run it was learned from, on generated corpora (benchmarks/corpus.py with its seeded
faults, and random traces); the runs with a fault it learned nothing from are flagged."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import corpus
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_reliability_harness.api import validate
from agent_reliability_harness.infer import InferOptions, Selection, infer_paths, policies_of
from agent_reliability_harness.models.common import Severity
from strategies import traces


class Quiet:
    def error(self, message: str) -> None:
        raise AssertionError(message)

    def warn(self, message: str) -> None:
        return None


def _infer(runs: list[dict[str, Any]], trajectories: bool = False, **how: Any) -> Any:
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "runs.jsonl"
        path.write_text("".join(json.dumps(run) + "\n" for run in runs))
        out_dir = str(Path(work) / "policies") if trajectories else None
        options = InferOptions("inferred", how.get("selection", Selection()), trajectories)
        return infer_paths([str(path)], options, str(Path(work) / "p.json"), out_dir, Quiet())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(2, 40))
def test_the_policy_passes_every_good_run_of_the_corpus(seed: int, count: int) -> None:
    runs = []
    for trace, expected in corpus.iter_corpus(seed, count):
        trace["outcome"] = {"success": not expected}
        runs.append(trace)
    good = sum(run["outcome"]["success"] for run in runs)
    if good == 0:
        return
    result = _infer(runs)
    checker = result.checked.checker
    assert (checker.good, checker.good_failed) == (good, 0), checker.failed_ids  # end: responses
    assert checker.others == count - good


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(traces(), min_size=1, max_size=8),
    st.lists(st.sampled_from(["a", "b"]), min_size=8, max_size=8),
)
def test_no_error_in_any_good_run_it_could_govern(
    runs: list[dict[str, Any]], tasks: list[str]
) -> None:
    for index, (run, task) in enumerate(zip(runs, tasks, strict=False)):
        run["trace_id"] = f"r{index}"
        run["task_id"] = task
    result = _infer(runs, trajectories=True, selection=Selection("all"))
    inferred = result.learned.inferred
    policies = policies_of(inferred, "inferred", None, None)
    report = validate(runs, list(policies))
    assert len(report.reports) == len(runs)
    for trace_report in report.reports:
        errors = {f.rule_id for f in trace_report.findings if f.severity is Severity.ERROR}
        # A tool call without a tool name is ARH-SCH-002 under every policy.
        assert errors <= {"ARH-SCH-002"}, (trace_report.trace_id, errors)
