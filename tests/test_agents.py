"""Policy v1.2 section 1, `agents`: per-agent partial policies (see POLICY-SPEC.md,
"Multi-agent runs"). The rule cases (tests/cases) hold the findings; here: positions,
scores, chunked and streamed reading, the CLI's streamed files, and loading."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.engine import Evaluator
from agent_reliability_harness.errors import PolicyError
from agent_reliability_harness.models.policy import check_policy, parse_policy
from agent_reliability_harness.models.trace import Trace
from agent_reliability_harness.models.trace_stream import TraceStream
from agent_reliability_harness.pipeline import documents
from helpers import ROOT

DATA = ROOT / "tests" / "data" / "agents"
POLICY = json.loads((DATA / "policy.json").read_text(encoding="utf-8"))
HANDOFF = json.loads((DATA / "traces" / "handoff.json").read_text(encoding="utf-8"))


def _evaluator(policy: dict[str, Any] = POLICY) -> Evaluator:
    return Evaluator(parse_policy(policy))


def _dumps(value: Any) -> str:
    return json.dumps(value.to_dict(), sort_keys=True)


def test_findings_carry_the_original_positions_and_ids() -> None:
    report = _evaluator().evaluate(Trace.from_dict(HANDOFF))
    found = {(f.rule_id, f.step_id, f.step_index, f.agent) for f in report.findings}
    assert ("ARH-SCH-001", "r2", 3, "researcher") in found  # 2nd step of researcher's run
    assert ("ARH-SEQ-002", "w2", 7, None) in found  # the top level: the whole trace
    assert ("ARH-SEQ-009", "x1", 8, None) in found
    assert ("ARH-BUD-004", None, None, "researcher") in found


def test_entry_checks_add_to_their_category() -> None:
    """schema: the top level checks 7 calls (ARH-SCH-002), researcher's entry its 2 calls
    (ARH-SCH-001, 1 failed): 8 of 9. budget: researcher's tokens, 1 check failed.
    sequence: forbidden drop_table (1 failed of 1), writer-1's required tool (1 failed)
    and 4 agents listed or not (2 failed): 4 failed of 6. completion: writer-1's
    max_steps (passed)."""
    report = _evaluator().evaluate(Trace.from_dict(HANDOFF))
    assert report.category_scores == {
        "schema": 88.89,
        "budget": 0.0,
        "sequence": 33.33,
        "completion": 100.0,
    }


@pytest.mark.parametrize("size", [1, 2, 3, 4, 7])
def test_chunks_with_and_without_the_agent_name_give_the_whole_report(size: int) -> None:
    evaluator, trace = _evaluator(), Trace.from_dict(HANDOFF)
    whole = _dumps(evaluator.evaluate(trace))
    for known in (trace.agent_name, None):  # None: given only by finish (steps held)
        run = evaluator.start()
        for start in range(0, len(trace.steps), size):
            run.add(trace.steps[start : start + size], agent_name=known)
        assert _dumps(run.finish(trace)) == whole


@pytest.mark.parametrize("layout", ["head first", "steps first"])
def test_a_streamed_file_gives_the_whole_report(layout: str) -> None:
    data = dict(HANDOFF)
    if layout == "steps first":
        data = {"steps": data.pop("steps"), **data}
    stream = TraceStream(io.BytesIO(json.dumps(data).encode()), chunk_steps=2)
    evaluator = _evaluator()
    run = evaluator.start()
    for steps in stream.chunks():
        run.add(steps, agent_name=stream.agent_name)
    assert stream.agent_name == (None if layout == "steps first" else "orchestrator")
    assert run.agent_name_fits(stream.head)
    assert _dumps(run.finish(stream.head)) == _dumps(evaluator.evaluate(Trace.from_dict(HANDOFF)))


def test_an_agent_name_repeated_after_the_steps_reads_the_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """JSON's last duplicate key wins: the stream read the steps as another agent's, so
    the file is read whole; both ways give the report of the trace as decoded."""
    text = json.dumps(HANDOFF)[:-1] + ', "agent_name": "researcher"}'
    path = tmp_path / "dup.json"
    path.write_text(text)
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps(POLICY))

    def run(name: str) -> str:
        out = tmp_path / f"{name}.json"
        streams = Streams(out=io.StringIO(), err=io.StringIO(), stdin=io.BytesIO())
        main(["validate", "--policy", str(policy), str(path), "--json-out", str(out)], streams)
        return out.read_text()

    whole = run("whole")
    monkeypatch.setattr(documents, "STREAM_MIN_BYTES", 0)
    assert run("streamed") == whole
    report = json.loads(whole)["reports"][0]
    assert report["agent_name"] == "researcher"
    assert {"ARH-SEQ-009", "ARH-SCH-001"} <= {f["rule_id"] for f in report["findings"]}


def test_traces_without_agents_belong_to_their_agent_name() -> None:
    policy = {"policy_id": "p", "agents": {"bot": {"sequence": {"forbidden_tools": ["rm"]}}}}
    trace = Trace.from_dict(
        {
            "trace_id": "t",
            "agent_name": "bot",
            "workflow": "w",
            "steps": [{"step_id": "s1", "type": "tool_call", "tool_name": "rm"}],
        }
    )
    report = _evaluator(policy).evaluate(trace)
    assert [(f.rule_id, f.agent) for f in report.findings] == [
        ("ARH-SCH-001", None),  # the top level allows no tool (allow_unlisted_tools false)
        ("ARH-SEQ-002", "bot"),
    ]


def test_no_agents_no_agent_key() -> None:
    policy = {k: v for k, v in POLICY.items() if k not in ("agents", "allow_unlisted_agents")}
    report = _evaluator(policy).evaluate(Trace.from_dict(HANDOFF))
    assert all("agent" not in f.to_dict() for f in report.findings)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            {"budgets": {"max_total_tokens": -1}},
            "policy agents.r.budgets.max_total_tokens: must be an integer >= 0 (got -1)",
        ),
        (
            {"allowed_tools": {"t": {"min_calls": 3, "max_calls": 1}}},
            "policy agents.r: tool 't': min_calls (3) exceeds max_calls (1)",
        ),
        ({"grounding": {}}, "policy agents.r.grounding: applies to the whole trace only"),
        ({"agents": {}}, "policy agents.r.agents: applies to the whole trace only"),
        ([], "policy agents.r: must be an object (got array)"),
    ],
)
def test_entry_errors_name_their_place(entry: Any, message: str) -> None:
    with pytest.raises(PolicyError) as caught:
        parse_policy({"policy_id": "p", "agents": {"r": entry}})
    assert str(caught.value).startswith(message)


def test_entry_typos_and_no_op_keys_are_warnings() -> None:
    loaded = check_policy(
        {"policy_id": "p", "agents": {"r": {"budget": {}, "sequence": {"forbiden_tools": []}}}}
    )
    assert [str(w) for w in loaded.warnings] == [
        "policy agents.r.budget: unknown key (did you mean 'budgets'?)",
        "policy agents.r.sequence.forbiden_tools: unknown key (did you mean 'forbidden_tools'?)",
    ]
    with pytest.raises(PolicyError):
        check_policy({"policy_id": "p", "agents": {"r": {"budget": {}}}}, strict=True)
    loaded = check_policy({"policy_id": "p", "allow_unlisted_agents": False})
    assert [str(w) for w in loaded.warnings] == [
        "policy allow_unlisted_agents: has no effect without 'agents'"
    ]


def test_compare_lists_the_agent_of_new_findings(at_repo_root: Path) -> None:
    from agent_reliability_harness.api import validate_paths  # noqa: PLC0415
    from agent_reliability_harness.compare import compare  # noqa: PLC0415
    from agent_reliability_harness.render import RenderOptions, get_renderer  # noqa: PLC0415

    paths = ["tests/data/agents/traces"]
    top_only = {k: v for k, v in POLICY.items() if k not in ("agents", "allow_unlisted_agents")}
    result = compare(
        validate_paths(paths, parse_policy(top_only)), validate_paths(paths, parse_policy(POLICY))
    )
    options = RenderOptions(tool_version="0.0.0-test")
    data = json.loads(get_renderer("compare", "json").render(result, options))
    new = [f for t in data["traces"] for f in t["new_findings"]]
    assert {"rule_id": "ARH-SCH-001", "severity": "error", "category": "schema",
            "step_id": "r2", "agent": "researcher",
            "message": "tool 'shell' is not in allowed_tools"} in new  # fmt: skip
    assert "(step r2, agent researcher)" in get_renderer("compare", "console").render(
        result, options
    )
    assert "`r2` · agent `researcher`" in get_renderer("compare", "md").render(result, options)


def test_assert_trace_names_the_agent() -> None:
    from agent_reliability_harness.testing import TraceAssertionError, assert_trace  # noqa: PLC0415

    with pytest.raises(TraceAssertionError) as caught:
        assert_trace(HANDOFF, POLICY)
    assert "step #4 r2, agent researcher: tool 'shell' is not in allowed_tools" in str(caught.value)
    assert "trace, agent writer-1: required tool 'save_draft' was never called" in str(caught.value)
