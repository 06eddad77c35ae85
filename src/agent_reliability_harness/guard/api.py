"""The Python API of the guard: `Guard(policy)`, then `before` each tool call, `after` its
outcome, `record` any other step, and `close` for the session's report.

    guard = Guard("policy.json")
    decision = guard.before("refund", {"order_id": "A1"}, step_id="c1")
    if decision.allowed:
        guard.after("c1", output=run_refund("A1"))
    report = guard.close()  # the TraceReport `arh validate` gives the recorded trace
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from ..engine import Evaluator
from ..models.common import Severity, Status, StepType
from ..models.policy import LoadedPolicy, Policy, parse_policy
from ..models.report import Finding, TraceReport
from ..models.trace import Step, Trace
from ..scoring import DEFAULT_FAIL_UNDER
from ..session import Session, denies

__all__ = ["GUARD_KEY", "Decision", "DecisionFinding", "Guard", "denial_step", "load_guard_policy"]

# The metadata key of a step the guard decided about: {"denied": [rule IDs], "reason": ...}.
GUARD_KEY = "arh_guard"
_ERROR, _OK = Status.ERROR, Status.OK


class DecisionFinding(msgspec.Struct, frozen=True):
    """A finding that landed on the call: rule ID, severity and message."""

    rule_id: str
    severity: str
    message: str
    denies: bool = False


class Decision(msgspec.Struct, frozen=True):
    """Whether the call may run, and every preventive finding on it (warnings included:
    context for the model, never a denial)."""

    allowed: bool
    findings: tuple[DecisionFinding, ...] = ()
    step_id: str = ""

    @property
    def denied_rules(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f.rule_id for f in self.findings if f.denies))

    @property
    def reason(self) -> str:
        """The denial's reason (rule IDs and messages), "" for an allowed call."""
        return "; ".join(f"{f.rule_id}: {f.message}" for f in self.findings if f.denies)

    @property
    def context(self) -> str:
        """The findings that do not deny (warnings), as context for the model."""
        return "; ".join(
            f"{f.rule_id} ({f.severity}): {f.message}" for f in self.findings if not f.denies
        )


def load_guard_policy(policy: str | Path | Mapping[str, Any] | Policy | LoadedPolicy) -> Policy:
    """A policy given as a path, a decoded policy object, or a loaded policy."""
    if isinstance(policy, Policy):
        return policy
    if isinstance(policy, LoadedPolicy):
        return policy.policy
    if isinstance(policy, str | Path):
        from ..models.policy import load_policy  # noqa: PLC0415
        from ..rules.plugins import check_plugins  # noqa: PLC0415

        loaded = load_policy(str(policy))
        check_plugins(loaded)  # the plugins it names, imported (as `arh validate` does)
        return loaded.policy
    return parse_policy(dict(policy))


def denial_step(step: Step, decision: Decision) -> Step:
    """A denied call as the session records it: status error, `metadata.arh_guard`."""
    metadata = {
        **step.metadata,
        GUARD_KEY: {"denied": list(decision.denied_rules), "reason": decision.reason},
    }
    return msgspec.structs.replace(
        step, status=_ERROR, error=f"denied by arh guard: {decision.reason}", metadata=metadata
    )


class Guard:
    """One guarded session of one policy. `trace`: the session's top-level fields
    (trace_id, agent_name, workflow, inputs, metadata; its steps are ignored)."""

    def __init__(
        self,
        policy: str | Path | Mapping[str, Any] | Policy | LoadedPolicy,
        *,
        trace: Trace | None = None,
        fail_under: float = DEFAULT_FAIL_UNDER,
        evaluator: Evaluator | None = None,
    ) -> None:
        if evaluator is None:
            evaluator = Evaluator(load_guard_policy(policy), fail_under)
        head = trace or Trace(
            trace_id="guard-session", agent_name="agent", workflow="guard", steps=()
        )
        self.session = Session(evaluator, head)
        self._ids = itertools.count(1)
        self.closed: TraceReport | None = None
        # The full findings (step, agent, expected, observed) of the last decision.
        self.last_findings: tuple[Finding, ...] = ()

    def before(
        self,
        tool: str | None,
        arguments: Mapping[str, Any] | None,
        *,
        agent: str | None = None,
        step_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Decision:
        """Decide a tool call before it runs, from the session so far; the call joins the
        session (pending, or as a failed call when denied)."""
        self._open()
        if step_id is None or self.session.is_pending(step_id):
            step_id = self._new_id(step_id)
        step = Step(
            step_id=step_id,
            type=StepType.TOOL_CALL,
            tool_name=tool,
            arguments=None if arguments is None else dict(arguments),
            agent=agent,
            metadata=dict(metadata or {}),
        )
        decision = self.decide(step)
        self.session.add_pending(step if decision.allowed else denial_step(step, decision))
        return decision

    def decide(self, step: Step) -> Decision:
        """The decision on a call (its outcome, if any, is not read); nothing recorded."""
        asked = msgspec.structs.replace(step, output=None, error=None, status=_OK)
        findings = self.session.ask(asked)
        self.last_findings = tuple(findings)
        listed = tuple(_listed(f) for f in findings)
        allowed = not any(f.denies for f in listed)
        return Decision(allowed, listed, step.step_id)

    def after(
        self,
        step_id: str,
        *,
        output: Any = None,
        error: str | None = None,
        status: str | Status | None = None,
        **fields: Any,
    ) -> None:
        """A call's outcome (KeyError for a step id that is not pending)."""
        self._open()
        step = self.session.pending_step(step_id)
        done = msgspec.structs.replace(
            step,
            output=output,
            error=error,
            status=Status(status) if status is not None else (_ERROR if error else _OK),
            **fields,
        )
        self.session.resolve(done)

    def record(self, step: Step | Mapping[str, Any]) -> None:
        """Any canonical step; a tool call with the id of a pending call is that call's
        outcome (a replay records what really happened)."""
        self._open()
        if not isinstance(step, Step):
            step = Step.from_dict(dict(step), len(self.session.steps))
        if step.is_tool_call and self.session.is_pending(step.step_id):
            self.session.resolve(step)
        else:
            self.session.record(step)

    def trace(self) -> Trace:
        """The session so far as a canonical trace (denied calls included)."""
        return self.session.trace()

    def pending(self) -> list[str]:
        """The ids of the allowed calls still waiting for their outcome, oldest first (a
        denied call never ran: it is in the session as a failed call)."""
        session = self.session
        return [i for i in session.pending if GUARD_KEY not in session.pending_step(i).metadata]

    def report(self) -> TraceReport:
        """The report of the session so far, closing rules included; the session goes
        on (a Stop hook: the agent answered, the user may ask again)."""
        return self.session.evaluator.evaluate(self.trace())

    @classmethod
    def restore(cls, evaluator: Evaluator, trace: Trace, pending: list[str]) -> Guard:
        """A session carried on from its recorded steps (`pending`: the calls of them still
        waiting for an outcome): one pass of the rules over them."""
        guard = cls(evaluator.policy, trace=trace, evaluator=evaluator)
        waiting = set(pending)
        for step in trace.steps:
            if step.step_id in waiting and step.is_tool_call:
                guard.session.add_pending(step)
            else:
                guard.session.record(step)
        return guard

    def close(self) -> TraceReport:
        """The session's report, closing rules included: `arh validate`'s for `trace()`."""
        if self.closed is None:
            self.closed = self.session.report()
        return self.closed

    def _open(self) -> None:
        if self.closed is not None:
            raise RuntimeError("the guard session is closed")

    def _new_id(self, taken: str | None) -> str:
        while True:
            step_id = f"call-{next(self._ids)}" if taken is None else f"{taken}-{next(self._ids)}"
            if not self.session.is_pending(step_id):
                return step_id


def _listed(finding: Finding) -> DecisionFinding:
    severity = finding.severity
    return DecisionFinding(
        finding.rule_id or "",
        severity.value if isinstance(severity, Severity) else str(severity),
        finding.message,
        denies(finding),
    )
