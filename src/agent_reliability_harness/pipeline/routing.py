"""Which policy judges a trace: the first whose `applies_to` matches (policy v1.1 section 3:
fnmatch, case-sensitive; every listed field must match one of its globs)."""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import Evaluator
from ..models.policy import AppliesTo, Policy
from ..models.trace import Trace


def applies(applies_to: AppliesTo | None, trace: Trace) -> bool:
    """Whether a policy with this `applies_to` judges the trace (None: every trace). A
    listed field the trace does not have (a missing task_id) matches no glob."""
    if applies_to is None:
        return True
    return applies_to.matches(trace.trace_id, trace.agent_name, trace.workflow, trace.task_id)


def no_policy_message(trace: Trace) -> str:
    """The input error of a trace that no policy applies to."""
    return f"trace '{trace.trace_id}': no policy applies"


class Router:
    """The policies of a run in order, each compiled once into an Evaluator."""

    def __init__(self, policies: Sequence[Policy], fail_under: float) -> None:
        if not policies:
            raise ValueError("a run needs at least one policy")
        self.evaluators = tuple(Evaluator(policy, fail_under) for policy in policies)
        self._conditions = tuple(policy.applies_to for policy in policies)
        # The evaluators a trace may end up with whatever its labels: those up to the
        # first that applies to every trace.
        last = next((i for i, c in enumerate(self._conditions) if c is None), None)
        self.possible = self.evaluators if last is None else self.evaluators[: last + 1]
        self._only = self.evaluators[0] if self._conditions[0] is None else None

    def pick(self, trace: Trace) -> Evaluator | None:
        """The evaluator of the first policy that applies to the trace, or None."""
        if self._only is not None:
            return self._only
        for evaluator, condition in zip(self.evaluators, self._conditions, strict=True):
            if applies(condition, trace):
                return evaluator
        return None
