"""`assert_trace` for an agent's own test suite: one run against a policy, a readable failure.

Works with any test runner (it raises AssertionError); the pytest plugin
(`pytest_plugin`) builds its fixture and trace-file items on it. The core never
imports this module.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from . import adapters
from .api import LoadedTrace, iter_traces, load_policy
from .engine import Evaluator
from .errors import InputError
from .models.common import Severity
from .models.policy import Policy, parse_policy
from .models.report import Finding, TraceReport
from .models.trace import Trace, parse_trace
from .rules import PLUGIN_RULES, REGISTRY
from .scoring import DEFAULT_FAIL_UNDER

PolicyInput = Policy | Mapping[str, Any] | str | os.PathLike[str]
TraceInput = Trace | Mapping[str, Any] | list[Any] | str | os.PathLike[str]
# A failure lists this many findings per rule, then counts the rest.
MAX_PER_RULE = 10


class TraceAssertionError(AssertionError):
    """A trace that did not pass; `report` holds its TraceReport."""

    def __init__(self, message: str, report: TraceReport) -> None:
        super().__init__(message)
        self.report = report


def policy_of(policy: PolicyInput) -> Policy:
    """A compiled policy from a Policy, a decoded policy object or a policy file path."""
    if isinstance(policy, Policy):
        return policy
    if isinstance(policy, Mapping):
        return parse_policy(dict(policy))
    return load_policy(os.fspath(policy))


def trace_of(value: TraceInput, format: str = adapters.AUTO) -> Trace:
    """The one trace in a Trace, a decoded document (canonical or a transcript in any
    supported format) or a file; InputError when it holds no trace or several."""
    return _load(value, format).trace


def _load(value: TraceInput, format: str) -> LoadedTrace:
    if isinstance(value, Trace):
        return LoadedTrace(value, "<trace>")
    if isinstance(value, str | os.PathLike):
        path = os.fspath(value)
        loaded: list[LoadedTrace] = []
        for item in iter_traces([path], format):
            if not isinstance(item, LoadedTrace):
                raise InputError(f"{item.location()}: {item.message}")
            loaded.append(item)
        return _one(loaded, path)
    traces = [parse_trace(t) for t in adapters.to_canonical(value, format, "trace")]
    return _one([LoadedTrace(t, "<input>") for t in traces], "the input")


def _one(loaded: list[LoadedTrace], where: str) -> LoadedTrace:
    if len(loaded) != 1:
        raise InputError(
            f"{where}: holds {len(loaded)} traces; assert_trace checks exactly one "
            "(validate_paths checks many)"
        )
    return loaded[0]


def check_trace(
    trace_or_transcript: TraceInput,
    policy: PolicyInput,
    *,
    format: str = adapters.AUTO,
    fail_under: float = DEFAULT_FAIL_UNDER,
) -> TraceReport:
    """The TraceReport of one trace, without asserting anything."""
    loaded = _load(trace_or_transcript, format)
    return Evaluator(policy_of(policy), fail_under).evaluate(loaded.trace, loaded.source_path)


def assert_trace(
    trace_or_transcript: TraceInput,
    policy: PolicyInput,
    *,
    format: str = adapters.AUTO,
    fail_under: float = DEFAULT_FAIL_UNDER,
) -> TraceReport:
    """Pass when the trace passes the policy (no error finding, score >= fail_under);
    otherwise raise TraceAssertionError listing the findings by severity and rule,
    with their steps. Returns the TraceReport (warnings included) when it passes."""
    __tracebackhide__ = True
    report = check_trace(trace_or_transcript, policy, format=format, fail_under=fail_under)
    if not report.passed:
        raise TraceAssertionError(failure_text(report, fail_under), report)
    return report


def _where(finding: Finding) -> str:
    # Policy v1.2: a finding of an `agents` entry names its agent.
    agent = "" if finding.agent is None else f", agent {finding.agent}"
    if finding.step_id is None:
        return "trace" + agent
    if finding.step_index is None:
        return f"step {finding.step_id}{agent}"
    return f"step #{finding.step_index + 1} {finding.step_id}{agent}"


def _short(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _rule_lines(rule_id: str | None, findings: list[Finding]) -> list[str]:
    rule = (REGISTRY.get(rule_id) or PLUGIN_RULES.get(rule_id)) if rule_id else None
    title = f"  {rule.title}" if rule else ""
    lines = [f"  {rule_id or '(no rule id)'}  {findings[0].category}{title}"]
    for finding in findings[:MAX_PER_RULE]:
        lines.append(f"    {_where(finding)}: {finding.message}")
        if finding.expected is not None:
            lines.append(f"      expected: {_short(finding.expected)}")
        if finding.observed is not None:
            lines.append(f"      observed: {_short(finding.observed)}")
    if len(findings) > MAX_PER_RULE:
        lines.append(f"    ...and {len(findings) - MAX_PER_RULE} more")
    remediation = findings[0].remediation or (rule.remediation if rule else None)
    if remediation:
        lines.append(f"    fix: {remediation}")
    return lines


def failure_text(report: TraceReport, fail_under: float = DEFAULT_FAIL_UNDER) -> str:
    """The findings of a trace grouped by severity, then rule (in report order)."""
    errors = report.error_count()
    why = []
    if errors:
        why.append(f"{errors} error finding{'s' if errors != 1 else ''}")
    if report.score < fail_under:
        why.append(f"score {report.score:.2f} is under {fail_under:g}")
    verdict = "fails" if not report.passed else "passes"
    lines = [
        f"trace {report.trace_id!r} {verdict} policy {report.policy_id!r}: "
        + (", ".join(why) if why else f"score {report.score:.2f}")
    ]
    for severity in Severity:
        found = [f for f in report.findings if f.severity is severity]
        if not found:
            continue
        lines.append(f"{severity.value} ({len(found)})")
        by_rule: dict[str | None, list[Finding]] = {}
        for finding in found:
            by_rule.setdefault(finding.rule_id, []).append(finding)
        for rule_id, findings in by_rule.items():
            lines.extend(_rule_lines(rule_id, findings))
    if report.source_path:
        lines.append(f"source: {report.source_path}")
    return "\n".join(lines)


__all__ = [
    "TraceAssertionError",
    "assert_trace",
    "check_trace",
    "failure_text",
    "policy_of",
    "trace_of",
]
