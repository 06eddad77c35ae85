"""A trace evaluated as it happens: the engine's session API (docs/guard.md).

Offline validation hands an Evaluator's TraceRun every step at once (`Evaluator.evaluate`)
or a chunk at a time; a Session hands it one step at a time, as they happen, and asks
it about each tool call BEFORE the call runs: `ask(step)` gives the findings the
preventive rules (rules.base.Moment) would make on it, from each rule's streaming state
of the steps so far (the rules' own `probe`; nothing is re-read). The call then joins
the session as pending; its outcome replaces it when it is known (`resolve`), and it is
scanned once the next step needs it. `report()` finishes the run: the TraceReport the
Evaluator gives for the recorded trace, byte for byte.

A call still pending when the next step is asked about (parallel calls in one model
response) is scanned as it stands, without its outcome, so that the next decision sees
it as made; its outcome, once known, is still recorded, and the report then reads the
recorded trace once more (the only case where anything is read twice).
"""

from __future__ import annotations

import msgspec

from .engine import Evaluator, TraceRun
from .models.common import Severity
from .models.report import Finding, TraceReport
from .models.trace import Step, Trace
from .rules import get_rule
from .rules.base import Moment

__all__ = ["Session", "denies"]


def denies(finding: Finding) -> bool:
    """Whether a finding denies the call it lands on: an error-severity finding of a
    preventive rule, at a step, about what the call was asked (ARH-SAF-001 in its output
    is not). The same test reads a `arh validate` report and a guard's decisions."""
    if (
        finding.severity is not Severity.ERROR
        or finding.step_index is None
        or finding.rule_id is None
    ):
        return False
    try:
        rule = get_rule(finding.rule_id)
    except KeyError:
        return False
    if rule.moment is not Moment.PREVENTIVE:
        return False
    return rule.decided_before is None or rule.decided_before(finding.observed)


class Session:
    """One run under evaluation as it happens; `head` gives the trace's top-level fields
    (trace_id, agent_name, inputs, metadata such as declared_tools), its steps unread."""

    __slots__ = ("evaluator", "head", "in_flight", "pending", "run", "scanned", "steps")

    def __init__(self, evaluator: Evaluator, head: Trace) -> None:
        self.evaluator = evaluator
        self.head = msgspec.structs.replace(head, steps=()) if head.steps else head
        self.run: TraceRun = evaluator.start(self.head, probing=True)
        self.steps: list[Step] = []  # every step so far, in order, pending calls included
        self.scanned = 0  # how many of them the run has seen
        self.pending: dict[str, int] = {}  # step id -> position, of calls awaiting an outcome
        self.in_flight = False  # a call was scanned before its outcome was known

    def ask(self, step: Step) -> list[Finding]:
        """The preventive findings on the tool call `step` if it came next (sorted as a
        report sorts them); nothing is recorded."""
        self._scan()
        findings = self.run.probe(step)
        findings.sort(key=Finding.sort_key)
        return findings

    def add_pending(self, step: Step) -> int:
        """A call that was asked about joins the session, its outcome not known yet (a
        denied call: as recorded with its denial). Returns its position."""
        position = len(self.steps)
        self.steps.append(step)
        self.pending[step.step_id] = position
        return position

    def is_pending(self, step_id: str) -> bool:
        return step_id in self.pending

    def pending_step(self, step_id: str) -> Step:
        return self.steps[self.pending[step_id]]

    def resolve(self, step: Step) -> None:
        """The pending call with `step`'s id, as it turned out (its outcome)."""
        position = self.pending.pop(step.step_id)
        if position < self.scanned:
            self.in_flight = True  # scanned without its outcome: the report re-reads
        self.steps[position] = step

    def record(self, step: Step) -> None:
        """Any other step (a model response, a user turn, a call not asked about)."""
        self.steps.append(step)

    def _scan(self) -> None:
        steps, start = self.steps, self.scanned
        if start == len(steps):
            return
        self.run.add(steps[start:])
        self.scanned = len(steps)

    def trace(self) -> Trace:
        """The session's steps so far as a canonical trace."""
        return msgspec.structs.replace(self.head, steps=tuple(self.steps))

    def report(self) -> TraceReport:
        """The recorded trace's report, closing rules included (once, at the end)."""
        trace = self.trace()
        if self.in_flight:
            return self.evaluator.evaluate(trace)
        self._scan()
        return self.run.finish(trace)
