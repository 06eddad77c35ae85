"""`arh infer` proposes policy v1.3 claims (never enables them): a side-effect tool whose
argument values reappear verbatim in the final answer of every good run that called it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_reliability_harness.infer import InferOptions, Result, infer_paths
from agent_reliability_harness.models.policy import parse_policy
from helpers import make_trace, report, response, tool_call


class _Messages:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def error(self, message: str) -> None:
        self.lines.append(message)

    def warn(self, message: str) -> None:
        self.lines.append(message)


def _run(number: int, answer: str | None = None) -> dict[str, Any]:
    order = f"ORD-{100 + number}"
    steps = [
        tool_call("s1", "lookup_order", {"order_id": order}, output={"amount": 10 + number}),
        tool_call(
            "s2", "issue_refund", {"order_id": order, "amount": 10 + number, "reason": "late"}
        ),
        response("s3", answer or f"Your refund for order {order} has been issued."),
    ]
    return make_trace(*steps, trace_id=f"run-{number}", outcome={"success": True})


def _infer(tmp_path: Path, rows: list[dict[str, Any]]) -> Result:
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    messages = _Messages()
    result = infer_paths([str(path)], InferOptions("v13"), None, None, messages)
    assert messages.lines == []
    return result


def test_claims_are_proposed_not_enabled(tmp_path: Path) -> None:
    policy = _infer(tmp_path, [_run(n) for n in range(4)]).learned.inferred.policy
    assert "claims" not in policy
    (proposed,) = policy["x-arh-proposed"]["claims"]
    assert proposed["requires"] == "issue_refund"
    assert proposed["values"] == [{"pattern": r"\b(ORD\-[0-9]{3})\b", "in": "order_id"}]
    assert proposed["description"].startswith("proposed: in all 4 good runs")
    parse_policy(policy)  # the proposal is an annotation: the policy loads as it is
    enabled = {**policy, "schema_version": "1.3", "claims": [proposed]}
    other = _run(2, "Your refund for order ORD-555 has been issued.")
    found = [f.rule_id for f in report(other, enabled).findings]
    assert found == ["ARH-GRD-004"]


def test_no_proposal_when_one_good_run_does_not_say_it(tmp_path: Path) -> None:
    rows = [_run(n) for n in range(3)] + [_run(3, "All done, thank you!")]
    policy = _infer(tmp_path, rows).learned.inferred.policy
    assert "x-arh-proposed" not in policy


def test_no_proposal_for_a_constant_or_a_read_tool(tmp_path: Path) -> None:
    rows = [_run(n, f"Order ORD-{100 + n} refunded: late.") for n in range(4)]
    policy = _infer(tmp_path, rows).learned.inferred.policy
    names = [c["name"] for c in policy["x-arh-proposed"]["claims"]]
    assert names == ["issue_refund order_id"]  # not `reason` (constant), not lookup_order
