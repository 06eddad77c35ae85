"""Replaying a recorded trace through the guard's Python API (the agreement property of
docs/guard.md): each call asked with `before`, then recorded as the trace has it."""

from __future__ import annotations

import re
from typing import Any

from agent_reliability_harness.engine import Evaluator
from agent_reliability_harness.guard import Guard
from agent_reliability_harness.models.report import TraceReport
from agent_reliability_harness.models.trace import Trace
from agent_reliability_harness.session import denies

_MAX_CALLS = "ARH-SEQ-004"
_TOOL = re.compile(r"tool '(.*)' (?:would be|was) called")

# (step position or tool, rule ID, agent): where a call was (or would be) denied.
Denial = tuple[Any, str, str | None]


def replay(trace: Trace, evaluator: Evaluator) -> tuple[set[Denial], TraceReport, int]:
    """The denials of a replay, the report `close()` gives, and how many calls were asked."""
    guard = Guard(evaluator.policy, trace=trace, evaluator=evaluator)
    denied: set[Denial] = set()
    calls = 0
    for position, step in enumerate(trace.steps):
        if step.is_tool_call:
            calls += 1
            decision = guard.before(
                step.tool_name, step.arguments, agent=step.agent, step_id=step.step_id
            )
            for finding in guard.last_findings:
                if denies(finding):
                    denied.add(_where(finding, position))
            assert decision.allowed is not any(denies(f) for f in guard.last_findings)
        guard.record(step)
    return denied, guard.close(), calls


def offline_denials(report: TraceReport, trace: Trace) -> set[Denial]:
    """Where `arh validate` reports an error-severity preventive finding on a tool call."""
    found: set[Denial] = set()
    steps = trace.steps
    for finding in report.findings:
        if finding.rule_id == _MAX_CALLS and finding.step_index is None:
            if finding.severity.value == "error":
                found.add(_where(finding, None))
        elif denies(finding) and steps[finding.step_index or 0].is_tool_call:
            found.add((finding.step_index, finding.rule_id or "", finding.agent))
    return found


def _where(finding: Any, position: int | None) -> Denial:
    if finding.rule_id == _MAX_CALLS:
        match = _TOOL.match(finding.message)
        assert match is not None, finding.message
        return (match.group(1), _MAX_CALLS, finding.agent)
    return (position, finding.rule_id, finding.agent)
