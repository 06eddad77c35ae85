"""`arh infer` at the command line: which runs are good, what is written where, the
evidence, the check on the other runs, determinism across executors, and misuse."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import corpus
import pytest

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.models.policy import load_policies, load_policy
from agent_reliability_harness.pipeline import executors
from helpers import make_trace, response, tool_call


def cli(args: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO(stdin)))
    return code, out.getvalue(), err.getvalue()


def _corpus(path: Path, count: int = 120, seed: int = 9, outcome: bool = True) -> Path:
    with path.open("w") as handle:
        for trace, expected in corpus.iter_corpus(seed, count):
            if outcome:
                trace["outcome"] = {"success": not expected, "reward": 0.0 if expected else 1.0}
            handle.write(json.dumps(trace) + "\n")
    return path


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    return _corpus(tmp_path / "runs.jsonl")


def test_learns_from_the_successful_runs_and_flags_the_others(runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "policy.json"
    code, text, err = cli(["infer", str(runs), "--out", str(out)])
    assert (code, err) == (0, "")
    lines = text.splitlines()
    assert lines[0].startswith("learned from ") and "(good: outcome.success is true)" in lines[0]
    good = int(lines[0].split()[2])
    assert f"check: the policy passes {good} of {good} good runs and flags " in text
    policy = load_policy(str(out))
    assert policy.warnings == () and policy.policy.policy_id == "inferred"
    document = json.loads(out.read_text())
    assert list(document)[:5] == [
        "schema_version",
        "policy_id",
        "description",
        "allow_unlisted_tools",
        "allowed_tools",
    ]
    assert list(document["allowed_tools"]) == sorted(document["allowed_tools"])
    refund = document["allowed_tools"]["issue_refund"]
    assert refund["side_effect"] is True and refund["max_calls"] == 1
    spec = refund["required_arguments"]
    assert spec["currency"]["enum"] == ["USD"] and spec["order_id"]["pattern"] == "ORD-[0-9]+"
    assert spec["amount"]["type"] == "number" and spec["amount"]["min"] == 0
    assert "in all " in spec["amount"]["description"]
    assert document["sequence"]["required_tools"] == ["get_customer"]
    validate = cli(["validate", "--policy", str(out), str(runs), "--quiet", "--json-out", "-"])
    reports = json.loads(validate[1])["reports"]
    assert all(r["passed"] for r in reports if r["outcome"]["success"])
    flagged = sum(not r["passed"] for r in reports if not r["outcome"]["success"])
    assert f"flags {flagged} of " in text and flagged > 0


def test_good_if_all_good_and_the_default_without_outcomes(runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    by_reward = cli(["infer", str(runs), "--out", str(out), "--good-if", "reward >= 1"])
    assert "(good: outcome satisfies 'reward >= 1')" in by_reward[1]
    same = json.loads(out.read_text())
    cli(["infer", str(runs), "--out", str(out)])
    assert json.loads(out.read_text())["allowed_tools"] == same["allowed_tools"]
    every = cli(["infer", str(runs), "--out", str(out), "--all-good"])
    assert "learned from 120 of 120 runs (good: every run, --all-good)" in every[1]
    assert "flags 0 of 0 other runs" in every[1]
    plain = _corpus(tmp_path / "plain.jsonl", outcome=False)
    unlabelled = cli(["infer", str(plain), "--out", str(out)])
    assert (
        "learned from 120 of 120 runs (good: every run, as none records an outcome)"
        in unlabelled[1]
    )
    code, _, err = cli(["infer", str(runs), "--out", str(out), "--good-if", "reward > 5"])
    assert code == 1 and "none of the 120 runs is good (outcome satisfies 'reward > 5')" in err


def test_out_dir_writes_task_policies_that_route_by_task(tmp_path: Path) -> None:
    runs = tmp_path / "tasks.jsonl"
    rows = []
    for task in ("a", "b"):
        for n in range(3):
            steps = [
                tool_call("s1", f"find_{task}", {"id": f"X-{n}0{n}", "kind": task}),
                response("s2"),
            ]
            rows.append(
                make_trace(*steps, trace_id=f"{task}-{n}", task_id=task, outcome={"success": True})
            )
    lone = make_trace(tool_call("s1", "find_a"), response("s2"), trace_id="lone", task_id="c")
    rows.append({**lone, "outcome": {"success": True}})
    runs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out_dir = tmp_path / "policies"
    code, text, err = cli(["infer", str(runs), "--out-dir", str(out_dir), "--policy-id", "demo"])
    assert (code, err) == (0, ""), err
    names = sorted(p.relative_to(out_dir).as_posix() for p in out_dir.rglob("*.json"))
    assert names == ["base/policy.json", "task-0001-a.json", "task-0002-b.json", "zz-default.json"]
    child = json.loads((out_dir / "task-0001-a.json").read_text())
    assert child["extends"] == "base/policy.json" and child["applies_to"] == {"task_id": ["a"]}
    assert child["trajectory"]["expected"] == [{"tool": "find_a", "arguments": {"kind": "a"}}]
    loaded = [p.policy.policy_id for p in load_policies([str(out_dir)])]
    assert loaded == ["demo/a", "demo/b", "demo"]
    assert "task policies: 2 with an expected trajectory; 1 tasks without" in text
    assert f"wrote {out_dir} (4 policy files)" in text
    again = cli(["infer", str(runs), "--out-dir", str(out_dir)])
    assert again[0] == 1 and "must be a new or empty directory" in again[2]


def test_explain_prints_the_evidence_of_every_constraint(runs: Path, tmp_path: Path) -> None:
    code, text, _ = cli(["infer", str(runs), "--out", "-", "--explain", "--quiet"])
    document = json.loads(text)
    assert code == 0
    code, explained, _err = cli(
        ["infer", str(runs), "--out", str(tmp_path / "p.json"), "--explain", "--quiet"]
    )
    lines = explained.splitlines()
    assert (
        "allowed_tools.issue_refund.side_effect: side-effect candidate: never called twice"
        in explained
    )
    assert any(line.startswith("budgets.max_total_cost_usd: max_total_cost_usd ") for line in lines)
    for name in document["allowed_tools"]:
        assert any(line.startswith(f"allowed_tools.{name}: called in ") for line in lines)


def test_output_is_the_same_on_every_executor_and_from_stdin(
    runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = []
    for how in (["--jobs", "1"], ["--jobs", "2"]):
        code, out, _ = cli(["infer", str(runs), "--out", "-", "--explain", *how])
        texts.append(out)
        monkeypatch.setattr(executors, "CHUNK_UNITS", 7)
        monkeypatch.setattr(executors, "CHUNK_BYTES", 5_000)
    assert texts[0] == texts[1]
    code, out, _err = cli(["infer", "-", "--out", "-", "--explain"], stdin=runs.read_bytes())
    assert code == 0 and out == texts[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["x.jsonl"], "give --out FILE and/or --out-dir DIR"),
        (["-", "-", "--out", "p.json"], "standard input (-) can be read only once"),
        (
            ["x.jsonl", "--out", "p.json", "--jobs", "2", "--dask", "tcp://x:1"],
            "give --jobs or --dask",
        ),
    ],
)
def test_misuse(args: list[str], message: str) -> None:
    code, _, err = cli(["infer", *args])
    assert code == 2 and message in err


@pytest.mark.parametrize("expression", ["reward >", "and x", "reward >= 'a", "x y", ""])
def test_bad_good_if(expression: str) -> None:
    code, _, err = cli(["infer", "x.jsonl", "--out", "p.json", "--good-if", expression])
    assert code == 2 and "--good-if" in err  # argparse's message, on the streams given


def test_unreadable_inputs_are_errors_and_the_rest_is_learned(runs: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    code, out, err = cli(["infer", str(runs), str(bad), "--out", str(tmp_path / "p.json")])
    assert code == 1 and err.startswith(f"error: {bad}: ") and "learned from " in out
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = cli(["infer", str(empty), "--out", str(tmp_path / "q.json")])
    assert code == 1 and "error:" in err and not (tmp_path / "q.json").exists()


def test_the_policy_warns_about_what_it_cannot_allow(tmp_path: Path) -> None:
    runs = tmp_path / "r.jsonl"
    rows: list[dict[str, Any]] = [
        make_trace(tool_call("s1", None), response("s2"), trace_id=f"t{n}") for n in range(2)
    ]
    runs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, _, err = cli(["infer", str(runs), "--out", str(tmp_path / "p.json")])
    assert code == 0
    assert "warning: the good runs make 2 tool calls without a tool name (ARH-SCH-002)" in err
    assert "warning: good run 't0' fails the inferred policy (ARH-SCH-002)" in err
