"""`arh infer` and the policy v1.2 keys: same-entity `preconditions`, tools' `output`
contracts and per-agent tool sets (`agents`). Each is learned when every good run shows
it (positive) and not when one good run breaks it (negative); the inferred policy passes
its good runs and flags a run that breaks what was learned."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from agent_reliability_harness.infer import Evidence, InferOptions, Result, infer_paths
from agent_reliability_harness.infer.document import base_policy
from agent_reliability_harness.infer.learn import RunStats
from agent_reliability_harness.models.policy import parse_policy
from agent_reliability_harness.models.trace import parse_trace
from helpers import make_trace, response, tool_call


class _Messages:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def error(self, message: str) -> None:
        self.lines.append(message)

    def warn(self, message: str) -> None:
        self.lines.append(message)


def _run(number: int, order: str, refund: str | None = None, **extra: Any) -> dict[str, Any]:
    """A refund run: lookup_order(order) -> {order_id, amount}, then issue_refund of it."""
    amount = 10 + number
    steps = [
        tool_call("s1", "get_customer", {"customer_id": f"C{number}"}, output={"id": f"C{number}"}),
        tool_call(
            "s2",
            "lookup_order",
            {"order_id": order},
            output=json.dumps({"order_id": order, "amount": amount, "state": "paid"}),
        ),
        tool_call(
            "s3",
            "issue_refund",
            {"order_id": refund or order, "amount": amount},
            output={"refund_id": f"R-{number}", "ok": True},
        ),
        response("s4", "done"),
    ]
    return make_trace(*steps, trace_id=f"run-{number}", outcome={"success": True}, **extra)


def _infer(tmp_path: Path, rows: list[dict[str, Any]]) -> Result:
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    messages = _Messages()
    result = infer_paths([str(path)], InferOptions("v12"), None, None, messages)
    assert messages.lines == []
    return result


def _good(count: int = 4) -> list[dict[str, Any]]:
    return [_run(n, f"ORD-{100 + n}") for n in range(count)]


def test_preconditions_on_the_same_entity_are_learned(tmp_path: Path) -> None:
    result = _infer(tmp_path, _good())
    policy = result.learned.inferred.policy
    assert policy["schema_version"] == "1.2"
    assert policy["preconditions"] == [
        {
            "call": "issue_refund",
            "requires": "lookup_order",
            # both from the latest lookup: one precondition; the argument path first
            "same": {"amount": "output.amount", "order_id": "order_id"},
        }
    ]
    lines = dict(result.learned.inferred.evidence.lines)
    assert lines["preconditions[0]"] == (
        "issue_refund needs an earlier successful lookup_order with amount = output.amount, "
        "order_id = order_id: in all 4 calls of issue_refund (4 runs)"
    )
    assert result.checked.checker.good_failed == 0
    parse_policy(policy)  # it loads


def test_a_precondition_one_good_run_breaks_is_not_learned(tmp_path: Path) -> None:
    broken = _run(9, "ORD-109", refund="ORD-999")  # refunds another order, still good
    result = _infer(tmp_path, [*_good(), broken])
    same = [p["same"] for p in result.learned.inferred.policy.get("preconditions", [])]
    assert same == [{"amount": "output.amount"}]  # the order id no longer holds
    assert result.checked.checker.good_failed == 0


def test_values_met_by_different_earlier_calls_make_separate_preconditions(
    tmp_path: Path,
) -> None:
    rows = []
    for n in range(3):
        steps = [
            tool_call("s1", "find", {"id": f"A{n}"}),
            tool_call("s2", "find", {"id": f"B{n}"}),
            tool_call("s3", "link", {"left": f"A{n}", "right": {"id": f"B{n}"}}),
            response("s4"),
        ]
        rows.append(make_trace(*steps, trace_id=f"r{n}", outcome={"success": True}))
    result = _infer(tmp_path, rows)
    assert result.learned.inferred.policy["preconditions"] == [
        # the latest find had the right id; the left one an earlier find: not one call
        {"call": "link", "requires": "find", "same": {"right.id": "id"}},
        {"call": "link", "requires": "find", "same": {"left": "id"}},
    ]
    assert result.checked.checker.good_failed == 0


def test_a_precondition_needs_a_successful_earlier_call(tmp_path: Path) -> None:
    failed = _run(9, "ORD-109")
    failed["steps"][1]["status"] = "error"
    result = _infer(tmp_path, [*_good(), failed])
    assert "preconditions" not in result.learned.inferred.policy


def test_constants_and_single_runs_give_no_precondition(tmp_path: Path) -> None:
    same_order = [_run(n, "ORD-1") for n in range(3)]
    for run in same_order:  # the amount is the same too
        run["steps"][1]["output"] = json.dumps({"order_id": "ORD-1", "amount": 5})
        run["steps"][2]["arguments"]["amount"] = 5
    assert "preconditions" not in _infer(tmp_path, same_order).learned.inferred.policy
    lone = _infer(tmp_path, _good(1)).learned.inferred.policy
    assert "preconditions" not in lone


def test_the_learned_precondition_flags_a_run_about_another_entity(tmp_path: Path) -> None:
    bad = _run(9, "ORD-109", refund="ORD-999")
    bad["outcome"] = {"success": False}
    checker = _infer(tmp_path, [*_good(), bad]).checked
    assert checker.checker.flagged == 1
    assert ("ARH-SEQ-008", 1) in checker.rules


def test_output_contracts_are_learned_when_every_output_agrees(tmp_path: Path) -> None:
    tools = _infer(tmp_path, _good()).learned.inferred.policy["allowed_tools"]
    assert tools["lookup_order"]["output"] == {
        "type": "object",
        "required": ["amount", "order_id", "state"],
        "properties": {
            "amount": {"type": "integer"},
            "order_id": {"type": "string"},
            "state": {"type": "string"},
        },
    }
    assert tools["issue_refund"]["output"]["properties"]["ok"] == {"type": "boolean"}


def test_an_output_one_good_run_breaks_weakens_or_drops_the_contract(tmp_path: Path) -> None:
    rows = _good()
    rows[0]["steps"][1]["output"] = json.dumps({"order_id": "ORD-100", "amount": 1.5})
    rows[1]["steps"][0]["output"] = "C1"  # a string where the others are objects
    tools = _infer(tmp_path, rows).learned.inferred.policy["allowed_tools"]
    assert tools["lookup_order"]["output"] == {
        "type": "object",
        "required": ["amount", "order_id"],  # `state` is missing once
        "properties": {"amount": {"type": "number"}, "order_id": {"type": "string"}},
    }
    assert "output" not in tools["get_customer"]


def test_a_broken_output_is_flagged(tmp_path: Path) -> None:
    bad = _run(9, "ORD-109")
    bad["steps"][1]["output"] = json.dumps({"error": "not found"})
    bad["outcome"] = {"success": False}
    checked = _infer(tmp_path, [*_good(), bad]).checked
    assert checked.checker.flagged == 1 and ("ARH-SCH-014", 1) in checked.rules


def test_without_outputs_and_agents_the_policy_is_v11(tmp_path: Path) -> None:
    rows = [_run(n, f"ORD-{100 + n}", refund=f"ORD-{200 + n}") for n in range(4)]
    for row in rows:
        for step in row["steps"]:
            step.pop("output", None)
    policy = _infer(tmp_path, rows).learned.inferred.policy
    assert policy["schema_version"] == "1.1"
    assert not {"preconditions", "agents"} & set(policy)
    assert not any("output" in tool for tool in policy["allowed_tools"].values())


def _agents(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for row in rows:
        row["steps"][0]["agent"] = "triage"
        for step in row["steps"][1:3]:
            step["agent"] = "refund*desk"  # a glob character: written as a literal
    return rows


EXPECTED_AGENTS = {
    "agent": {"allowed_tools": {}},  # the trace's agent_name: the final response
    "refund[*]desk": {
        "allowed_tools": {
            "issue_refund": {
                "description": "called by agent refund*desk in 4 of its 4 good runs (4 calls)",
                "optional_arguments": {"amount": {}, "order_id": {}},
            },
            "lookup_order": {
                "description": "called by agent refund*desk in 4 of its 4 good runs (4 calls)",
                "optional_arguments": {"order_id": {}},
            },
        }
    },
    "triage": {
        "allowed_tools": {
            "get_customer": {
                "description": "called by agent triage in 4 of its 4 good runs (4 calls)",
                "optional_arguments": {"customer_id": {}},
            }
        }
    },
}


def test_per_agent_tool_sets_are_learned(tmp_path: Path) -> None:
    result = _infer(tmp_path, _agents(_good()))
    policy = result.learned.inferred.policy
    assert policy["agents"] == EXPECTED_AGENTS
    assert result.checked.checker.good_failed == 0
    # The section loads (the good runs pass it, above: the checker judges them under it).
    assert parse_policy(policy).agents is not None


def test_agents_need_two_named_agents(tmp_path: Path) -> None:
    rows = _good()
    for row in rows:
        for step in row["steps"]:
            step["agent"] = "solo"
    assert "agents" not in _infer(tmp_path, rows).learned.inferred.policy
    # no step names its agent: the agent_name alone says nothing about sub-agents
    assert "agents" not in _infer(tmp_path, _good()).learned.inferred.policy


def test_one_good_run_by_another_agent_widens_its_tool_set(tmp_path: Path) -> None:
    rows = _agents(_good())
    rows[0]["steps"][2]["agent"] = "triage"  # this run's refund is made by triage
    agents = _infer(tmp_path, rows).learned.inferred.policy["agents"]
    assert sorted(agents["triage"]["allowed_tools"]) == ["get_customer", "issue_refund"]
    assert (
        "3 of its 4 good runs"
        in agents["refund[*]desk"]["allowed_tools"]["issue_refund"]["description"]
    )


def _stats(rows: list[dict[str, Any]]) -> RunStats:
    stats = RunStats()
    for row in rows:
        report: Any = SimpleNamespace(
            total_latency_ms=None, total_cost_usd=None, total_tokens=None, task_id=None
        )
        stats.add(parse_trace(row), report)
    return stats


@pytest.mark.parametrize("cut", [0, 1, 2, 3, 4, 5, 6])
def test_merging_in_any_split_learns_the_same(cut: int) -> None:
    rows = _agents(_good(4))
    rows.append(_run(9, "ORD-109", refund="ORD-999"))
    rows.append(_run(7, "ORD-107"))
    rows[2]["steps"][1]["output"] = "not json"

    def document(stats: RunStats) -> dict[str, Any]:
        return base_policy(stats, "p", "test", Evidence())

    merged = _stats(rows[:cut])
    merged.merge(_stats(rows[cut:]))
    assert document(merged) == document(_stats(rows))


# Few tools and few values, each run about one entity (most values are its value), so that
# preconditions are often learned and coincidences (the same value in several places, in
# arguments and outputs, JSON-equal numbers 1 and 1.0) are the rule: every precondition,
# output contract and agent entry learned must still hold in every good run.
_POOL = ["p", "q", 1, 1.0, 2, True, None]


@st.composite
def _run_calls(draw: st.DrawFn) -> list[dict[str, Any]]:
    first, second = (draw(st.sampled_from(["p", "q", "r", 1, 2.0])) for _ in range(2))
    value = st.sampled_from([first, first, second, second, *_POOL])
    output = st.one_of(
        st.none(),
        st.fixed_dictionaries({"x": value}, optional={"w": value}),
        st.builds(lambda v: json.dumps({"x": v, "n": {"m": v}}), value),
        st.sampled_from(["text", "[1, 2]"]),
    )
    call = st.fixed_dictionaries(
        {
            "tool": st.sampled_from(["a", "b", "c"]),
            "arguments": st.fixed_dictionaries(
                {"x": value}, optional={"y": st.fixed_dictionaries({"z": value})}
            ),
            "output": output,
            "status": st.sampled_from(["ok", "ok", "ok", "error"]),
            "agent": st.sampled_from([None, "m", "n"]),
        }
    )
    calls = draw(st.lists(call, min_size=2, max_size=7))
    calls[0]["tool"] = "a"  # a tool that comes first, whose values the others may reuse
    return calls


def _random_run(number: int, calls: list[dict[str, Any]]) -> dict[str, Any]:
    steps = []
    for index, call in enumerate(calls):
        extra = {k: call[k] for k in ("output", "status", "agent") if call[k] is not None}
        steps.append(tool_call(f"s{index}", call["tool"], call["arguments"], **extra))
    steps.append(response(f"s{len(calls)}", "done"))
    return make_trace(*steps, trace_id=f"r{number}", outcome={"success": True})


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_run_calls(), min_size=2, max_size=6), st.integers(0, 6))
def test_what_is_learned_holds_in_every_good_run(calls: list[Any], cut: int) -> None:
    rows = [_random_run(number, run) for number, run in enumerate(calls)]
    with tempfile.TemporaryDirectory() as work:
        result = _infer(Path(work), rows)
    checker = result.checked.checker
    assert (checker.good, checker.good_failed) == (len(rows), 0), checker.failed_ids
    event(f"preconditions: {len(result.learned.inferred.policy.get('preconditions', []))}")
    merged = _stats(rows[:cut])
    merged.merge(_stats(rows[cut:]))
    whole = _stats(rows)
    assert base_policy(merged, "p", "t", Evidence()) == base_policy(whole, "p", "t", Evidence())
