"""Small builders for trace dicts used across the tests."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
# Whether the suite runs under CI (a missing tool then fails instead of skipping). Read
# once at import: the tests themselves run without CI in their environment (conftest),
# since it changes the console's default (--show failures).
IN_CI = bool(os.environ.get("CI"))


def tool_call(
    step_id: str, tool: str | None, arguments: Any = None, **extra: Any
) -> dict[str, Any]:
    step: dict[str, Any] = {"step_id": step_id, "type": "tool_call", "tool_name": tool}
    if arguments is not None:
        step["arguments"] = arguments
    step.update(extra)
    return step


def response(step_id: str, text: str = "ok", **extra: Any) -> dict[str, Any]:
    step: dict[str, Any] = {"step_id": step_id, "type": "model_response", "text": text}
    step.update(extra)
    return step


def make_trace(*steps: dict[str, Any], trace_id: str = "t1", **extra: Any) -> dict[str, Any]:
    trace: dict[str, Any] = {
        "trace_id": trace_id,
        "agent_name": "agent",
        "workflow": "wf",
        "steps": list(steps),
    }
    trace.update(extra)
    return trace


# The defaults that rule tests and case files state only the differences from.
DEFAULT_POLICY: dict[str, Any] = {"policy_id": "p", "allow_unlisted_tools": True}
DEFAULT_TRACE: dict[str, Any] = {"trace_id": "t1", "agent_name": "agent", "workflow": "wf"}

Found = list[tuple[str, str, str | None]]


def with_defaults(
    trace: dict[str, Any] | list[dict[str, Any]] | None = None,
    policy: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The whole trace and policy: the defaults with these keys replaced (a list of steps
    stands for a trace that differs only in its steps)."""
    if isinstance(trace, list):
        trace = {"steps": trace}
    return {**DEFAULT_TRACE, "steps": [], **(trace or {})}, {**DEFAULT_POLICY, **(policy or {})}


def report(
    trace: dict[str, Any] | list[dict[str, Any]] | None = None,
    policy: dict[str, Any] | None = None,
) -> Any:
    """The TraceReport of a trace and policy given as what differs from the defaults."""
    from agent_reliability_harness import validate_trace  # noqa: PLC0415

    whole_trace, whole_policy = with_defaults(trace, policy)
    return validate_trace(whole_trace, whole_policy)


def findings(
    trace: dict[str, Any] | list[dict[str, Any]] | None = None,
    policy: dict[str, Any] | None = None,
) -> Found:
    """(rule_id, severity, step_id) of every finding, in report order, for a trace and a
    policy given as what differs from the defaults: `findings([tool_call(...)], {...})`."""
    return [(f.rule_id, f.severity.value, f.step_id) for f in report(trace, policy).findings]
