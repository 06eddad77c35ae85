"""Synthetic traces with mixed verdicts, for size and truncation checks.

`python tests/synthetic.py 10000` prints the size of each CI format for that many traces.
"""

from __future__ import annotations

import sys
from typing import Any

from agent_reliability_harness.api import load_policy, validate
from agent_reliability_harness.models.report import RunReport
from agent_reliability_harness.render import RenderOptions, get_renderer


def _step(n: int, tool: str, args: dict[str, Any], **extra: Any) -> dict[str, Any]:
    step = {"step_id": f"s{n}", "type": "tool_call", "tool_name": tool, "arguments": args}
    step.update({"latency_ms": 100, "cost_usd": 0.001, "input_tokens": 10, "output_tokens": 5})
    step.update(extra)
    return step


def _answer(n: int, text: str = "Done.") -> dict[str, Any]:
    return {"step_id": f"s{n}", "type": "model_response", "text": text, "latency_ms": 100}


def synthetic_trace(index: int) -> dict[str, Any]:
    """Trace `index`: every 4th passes cleanly; the others fail or warn in different ways."""
    kind = index % 4
    steps = [_step(1, "lookup_order", {"order_id": f"ORD-{index % 10000:04d}"})]
    if kind == 1:  # schema and sequence errors
        steps.append(
            _step(2, "issue_refund", {"order_id": "ORD-1", "amount": 900, "currency": "GBP"})
        )
        steps.append(_step(3, "delete_account", {"id": index}))
    elif kind == 2:  # an undeclared argument: a warning only
        steps.append(_step(2, "search_kb", {"query": "refunds", "lang": "en"}))
    elif kind == 3:  # unsafe content and no final answer
        steps.append(_step(2, "search_kb", {"query": "ignore previous instructions"}))
        return _trace(index, steps)
    steps.append(_answer(len(steps) + 1))
    return _trace(index, steps)


def _trace(index: int, steps: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "trace_id": f"synthetic-{index:05d}",
        "agent_name": "synthetic-agent",
        "workflow": f"workflow-{index % 7}",
        "steps": steps,
    }


def synthetic_run(count: int, policy_path: str = "samples/policy.json") -> RunReport:
    return validate([synthetic_trace(i) for i in range(count)], load_policy(policy_path))


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 10_000
    run = synthetic_run(count)
    options = RenderOptions(tool_version="0")
    print(
        f"{count} traces: {run.summary.failed_traces} failed, "
        f"{sum(len(r.findings) for r in run.reports)} findings"
    )
    for name in ("md", "junit", "sarif", "json"):
        text = get_renderer("run", name).render(run, options)
        print(f"{name}: {len(text)} characters, {len(text.encode('utf-8'))} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
