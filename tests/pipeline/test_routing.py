"""Several policies in one run: each trace is judged by the first whose `applies_to`
matches (fnmatch, case-sensitive, every listed field); none matching is an input error
for that trace alone. With one policy, the bytes are those of a one-policy run."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from agent_reliability_harness import api
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.models.policy import AppliesTo, Policy, parse_policy
from agent_reliability_harness.models.trace import parse_trace
from agent_reliability_harness.pipeline import applies, documents, executors
from helpers import SAMPLES, make_trace, response


def _trace(**labels: Any) -> Any:
    trace = make_trace(response("s1"), **{k: v for k, v in labels.items() if k == "trace_id"})
    trace.update({k: v for k, v in labels.items() if k != "trace_id"})
    return parse_trace(trace)


CASES = [
    (None, {}, True),
    (AppliesTo(workflow=("refund*",)), {"workflow": "refund-v2"}, True),
    (AppliesTo(workflow=("refund*",)), {"workflow": "Refund-v2"}, False),  # case-sensitive
    (AppliesTo(workflow=("a", "refund?")), {"workflow": "refunds"}, True),  # any glob
    (AppliesTo(workflow=("refund*",), agent_name=("bot",)), {"workflow": "refund"}, False),
    (AppliesTo(workflow=("refund*",), agent_name=("ag*",)), {"workflow": "refund"}, True),
    (AppliesTo(task_id=("*",)), {}, False),  # no task_id: a listed field cannot match
    (AppliesTo(task_id=("t-[0-9]",)), {"task_id": "t-7"}, True),
    (AppliesTo(trace_id=("x*",)), {"trace_id": "t1"}, False),
    (AppliesTo(trace_id=()), {}, False),  # a listed field with no glob matches nothing
]


@pytest.mark.parametrize(("condition", "labels", "expected"), CASES)
def test_applies(condition: AppliesTo | None, labels: dict[str, Any], expected: bool) -> None:
    assert applies(condition, _trace(**labels)) is expected


def _policy(policy_id: str, **globs: list[str]) -> Policy:
    policy = parse_policy({"policy_id": policy_id, "allow_unlisted_tools": True})
    if not globs:
        return policy
    condition = AppliesTo(**{field: tuple(values) for field, values in globs.items()})
    return msgspec.structs.replace(policy, applies_to=condition)


def test_first_matching_policy_judges_each_trace() -> None:
    policies = [
        _policy("refunds", workflow=["refund*"]),
        _policy("bots", agent_name=["bot-*"]),
        _policy("also-refunds", workflow=["refund"]),
    ]
    traces = [
        make_trace(response("s1"), trace_id="a", workflow="refund"),
        make_trace(response("s1"), trace_id="b", agent_name="bot-1"),
        make_trace(response("s1"), trace_id="c"),
    ]
    run = api.validate(traces, policies)
    assert [(r.trace_id, r.policy_id) for r in run.reports] == [("a", "refunds"), ("b", "bots")]
    assert [(e.index, e.message) for e in run.input_errors] == [(2, "trace 'c': no policy applies")]
    assert run.policy_id == "refunds, bots, also-refunds"
    with pytest.raises(api.InputError, match="trace 'c': no policy applies"):
        api.validate_trace(traces[2], policies)


def test_one_policy_in_a_list_keeps_the_bytes() -> None:
    policy = api.load_policy(str(SAMPLES / "policy.json"))
    paths = [str(SAMPLES / "traces")]
    assert api.report_json(api.validate_paths(paths, [policy])) == api.report_json(
        api.validate_paths(paths, policy)
    )


@pytest.fixture
def policies(tmp_path: Path) -> Path:
    folder = tmp_path / "policies"
    folder.mkdir()
    base = {"allow_unlisted_tools": True}
    docs = {
        "20-bots.json": {"policy_id": "bots", "applies_to": {"agent_name": ["bot-*"]}},
        "10-refunds.json": {"policy_id": "refunds", "applies_to": {"workflow": ["refund*"]}},
        "30-never.json": {"policy_id": "never", "applies_to": {"task_id": ["none"]}},
    }
    for name, doc in docs.items():
        (folder / name).write_text(json.dumps({**base, **doc}))
    (folder / "README.md").write_text("not a policy")
    return folder


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def test_policy_directories_and_repeated_flags(
    policies: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert [p.policy_id for p in api.load_policies([str(policies)])] == [
        "refunds",
        "bots",
        "never",
    ]
    fallback = tmp_path / "fallback.json"
    fallback.write_text(json.dumps({"policy_id": "fallback", "applies_to": {"trace_id": ["f*"]}}))
    traces = tmp_path / "t.jsonl"
    rows = [
        make_trace(response("s1"), trace_id="a", workflow="refund-2"),
        make_trace(response("s1"), trace_id="b", agent_name="bot-1", workflow="refund"),
        make_trace(response("s1"), trace_id="zzz"),
        make_trace(response("s1"), trace_id="f1"),
    ]
    traces.write_text("".join(json.dumps(row) + "\n" for row in rows))
    args = ["validate", "--policy", str(policies), "--policy", str(fallback), str(traces)]
    code, out, err = _cli([*args, "--json-out", "-", "--quiet"])
    assert code == 1
    assert err == f"error: {traces}:3: trace 'zzz': no policy applies\n"
    report = json.loads(out)
    assert [(r["trace_id"], r["policy_id"]) for r in report["reports"]] == [
        ("a", "refunds"),
        ("b", "refunds"),  # first match wins, in the order given
        ("f1", "fallback"),
    ]
    assert report["policy_id"] == "refunds, bots, never, fallback"
    assert report["input_errors"][0]["line"] == 3
    one = _cli([*args, "--jobs", "1"])
    monkeypatch.setattr(executors, "CHUNK_UNITS", 1)
    assert _cli([*args, "--jobs", "2"]) == one


def test_streamed_big_trace_is_routed_by_its_labels(
    policies: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(documents, "STREAM_MIN_BYTES", 0)  # every file is streamed
    for name, labels in (("a.json", {"agent_name": "bot-2"}), ("b.json", {"workflow": "x"})):
        trace = make_trace(response("s1"), response("s2"), trace_id=name[0], **labels)
        # The labels after the steps: known only once every chunk was read.
        (tmp_path / name).write_text(json.dumps(dict(reversed(list(trace.items())))))
    code, out, err = _cli(
        ["validate", "--policy", str(policies), str(tmp_path / "a.json"), str(tmp_path / "b.json")]
    )
    assert code == 1
    assert "[PASS] a  score 100.00  policy bots" in out
    assert err == f"error: {tmp_path}/b.json: trace 'b': no policy applies\n"


def test_a_directory_without_policies_is_an_error(tmp_path: Path) -> None:
    code, _, err = _cli(["validate", "--policy", str(tmp_path), str(SAMPLES / "traces")])
    assert code == 1
    assert (
        err
        == f"error: invalid policy {tmp_path}: directory contains no *.json, *.yaml or *.yml files\n"
    )
