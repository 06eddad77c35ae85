"""Issue 18's promises on `arh infer` (added to main after the issue was filed), each
through the CLI: runs of extreme but valid numbers give a policy that loads (no bound
or budget beyond what a policy may hold), standard input goes through the bounded read
path, and an output that cannot be created is reported before any run is read, by the
name given."""

from __future__ import annotations

import json
from pathlib import Path

from faultkit import arh, assert_clean, cli, write_json

from helpers import make_trace, response, tool_call

TOP, MOST = 1.79e308, 2**63 - 1


def _extreme_runs(directory: Path) -> list[str]:
    paths = []
    for i in range(3):
        steps = [
            tool_call("s1", "t", {"n": TOP if i else -TOP}, latency_ms=TOP, cost_usd=TOP),
            response("s2", latency_ms=TOP, input_tokens=MOST, output_tokens=MOST),
        ]
        trace = make_trace(*steps, trace_id=f"task1-run{i}")
        trace["outcome"] = {"success": True, "reward": TOP}
        paths.append(str(write_json(directory / f"run{i}.json", trace)))
    return paths


def test_extreme_numbers_give_a_policy_that_loads(tmp_path: Path) -> None:
    runs = _extreme_runs(tmp_path / "runs")
    policy = tmp_path / "inferred.json"
    code, out, err = cli(["infer", *runs, "--out", str(policy), "--task-id-from", r"^(task\d)-"])
    assert (code, err) == (0, ""), err
    assert "passes 3 of 3 good runs" in out
    document = json.loads(policy.read_text())
    # Totals beyond a float (latency, cost) or beyond 2**63-1 (tokens): no budget at all
    # rather than one the policy loader refuses.
    assert "budgets" not in document or not document["budgets"].keys() - {"description"}
    code, _, err = cli(["check-policy", str(policy)])
    assert (code, err) == (0, "")
    code, _, err = cli(["validate", "--policy", str(policy), *runs])
    assert (code, err) == (0, "")


def test_standard_input_is_bounded(tmp_path: Path) -> None:
    run = _extreme_runs(tmp_path)[0]
    data = Path(run).read_bytes()
    code, out, err = cli(
        ["infer", "-", "--all-good", "--out", "-", "--max-input-bytes", "64"], data
    )
    assert_clean(err, code)
    assert err.startswith("error: <stdin>: cannot read: larger than the input limit of 64 bytes")
    assert out == ""


def test_standard_input_within_the_limit_is_learned_from(tmp_path: Path) -> None:
    run = _extreme_runs(tmp_path)[0]
    done = arh(["infer", "-", "--all-good", "--out", "-"], stdin=open(run, "rb"))  # noqa: SIM115
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["allowed_tools"]["t"]


def test_an_output_that_cannot_be_created_is_reported_first(tmp_path: Path) -> None:
    runs = _extreme_runs(tmp_path)
    target = tmp_path / "nodir" / "p.json"
    code, out, err = cli(["infer", *runs, "--all-good", "--out", str(target)])
    assert (code, out) == (1, "")
    assert err == f"error: {target}: cannot write: No such file or directory\n"


def test_a_full_device_is_named_in_the_error(tmp_path: Path) -> None:
    runs = _extreme_runs(tmp_path)
    done = arh(["infer", *runs, "--all-good", "--out", "/dev/full", "--quiet"])
    assert done.returncode == 1
    assert done.stderr == b"error: /dev/full: cannot write: No space left on device\n"
