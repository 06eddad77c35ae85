"""ARH-SEQ-006/007: the considered calls against `trajectory.expected` (policy v1.1
section 5). One TrajectoryMatcher per trace, fed in trace order a chunk at a time and
shared by both rules, decides them; this module only words its answer."""

from __future__ import annotations

import json
from collections.abc import Container, Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from ..models.common import Category, Severity, Status
from ..models.policy import ExpectedCall as PolicyEntry
from ..models.policy import Policy
from ..patterns import PatternSet
from ._effective_status import failed_by_output
from .base import MAX_FINDINGS, Hit, Moment, RuleContext, RuleResult, RuleState, brief, rule
from .facts import TraceFacts

if TYPE_CHECKING:  # the matcher is imported when a policy has a trajectory section
    from ..trajectory import MissingCall, TrajectoryResult, TrajectorySpec

SEQUENCE = Category.SEQUENCE
ERROR = Severity.ERROR
_FAILED = Status.ERROR
# A finding's `observed` arguments are cut past this many characters of JSON.
_ARGUMENTS_SHOWN = 2000
# Argument names listed in a missing call's diff before "and K more", and the longest
# JSON text of a value shown next to its name.
_KEYS_SHOWN = 6
_VALUE_SHOWN = 40


class TrajectoryPlan(msgspec.Struct, frozen=True):
    """What both rules need of the policy, made once per Evaluator."""

    spec: TrajectorySpec
    entries: tuple[PolicyEntry, ...]  # as the policy holds them (`entry`: as written)
    tools: frozenset[str]  # the tools some entry names
    failures: PatternSet  # error_handling.error_output_patterns
    required: int  # non-optional entries: one sequence check each


def compile_trajectory(policy: Policy) -> TrajectoryPlan:
    from ..trajectory import ArgumentsMatch, ExpectedCall, MatchMode, TrajectorySpec  # noqa: PLC0415

    section = policy.trajectory
    assert section is not None
    spec = TrajectorySpec(
        expected=tuple(
            ExpectedCall(e.tool, e.arguments, ArgumentsMatch(e.arguments_match.value), e.optional)
            for e in section.expected
        ),
        match=MatchMode(section.match.value),
        arguments_match=ArgumentsMatch(section.arguments_match.value),
        ignore_tools=section.ignore_tools.globs,
        ignore_arguments=frozenset(section.ignore_arguments),
    )
    return TrajectoryPlan(
        spec,
        section.expected,
        frozenset(e.tool for e in section.expected),
        policy.error_handling.error_output_patterns,
        section.required_entries,
    )


class _Matching:
    """One trace's matching. Calls carry their step id as label, with the tool where
    extras are forbidden: the matcher keeps labels for its nearest-call candidates and,
    where extras are forbidden, for every considered call (8 bytes each, the strings
    being the trace's own)."""

    __slots__ = ("failed", "fed", "matcher", "plan", "result")

    def __init__(self, plan: TrajectoryPlan) -> None:
        from ..trajectory import TrajectoryMatcher  # noqa: PLC0415

        self.plan = plan
        self.matcher = TrajectoryMatcher(plan.spec, keep_labels=plan.spec.match.forbids_extras)
        self.fed = 0  # steps fed so far
        self.failed: dict[str, int] = {}  # failed calls per expected tool
        self.result: TrajectoryResult | None = None

    def feed(self, ctx: RuleContext) -> None:
        """The chunk's calls, once, whichever rule sees the chunk first."""
        facts = ctx.facts
        end = facts.start + len(facts.steps)
        if end <= self.fed:
            return
        self.fed = end
        plan = self.plan
        failed = failed_by_output(facts, plan.failures)
        ok: list[tuple[str, Mapping[str, Any] | None, int, Any]]
        if plan.spec.match.forbids_extras:
            ok = [
                (step.tool_name or "", step.arguments, index, (step.step_id, step.tool_name))
                for index, step in facts.calls
                if step.status is not _FAILED and index not in failed
            ]
        else:
            # Where extras are allowed, only the calls of the expected tools matter (their
            # order among themselves is the order of the trace).
            tools = plan.tools
            ok = [
                (step.tool_name or "", step.arguments, index, step.step_id)
                for index, step in facts.calls
                if step.tool_name in tools and step.status is not _FAILED and index not in failed
            ]
        if failed or any(step.status is _FAILED for _, step in facts.calls):
            self._count_failed(facts, failed)
        self.matcher.add_many(ok)

    def _count_failed(self, facts: TraceFacts, failed: Container[int]) -> None:
        for index, step in facts.calls:
            tool = step.tool_name or ""
            if (step.status is _FAILED or index in failed) and tool in self.plan.tools:
                self.failed[tool] = self.failed.get(tool, 0) + 1

    def outcome(self) -> TrajectoryResult:
        if self.result is None:
            self.result = self.matcher.finish()
        return self.result

    def call(self, position: int) -> tuple[str, str, bool]:
        """(step id, tool, fits some entry) of a considered call (where extras are
        forbidden)."""
        (step_id, tool), fits = self.matcher.label_of(position)
        return step_id, tool, fits

    def failed_note(self, tool: str) -> str:
        """What to add to a missing call's message about failed calls of its tool."""
        failed = self.failed.get(tool, 0)
        if not failed:
            return ""
        calls = "1 failed call" if failed == 1 else f"{failed} failed calls"
        return f" ({calls} of '{tool}' not considered)"


_KEY = "trajectory.matching"


def _matching(ctx: RuleContext, plan: TrajectoryPlan) -> _Matching:
    return ctx.facts.shared(_KEY, lambda: _Matching(plan))


class _TrajectoryRule(RuleState):
    __slots__ = ()

    def scan(self, ctx: RuleContext) -> None:
        _matching(ctx, self.compiled).feed(ctx)


def _applies(policy: Policy) -> bool:
    return policy.trajectory is not None


def _forbids_extras(policy: Policy) -> bool:
    return policy.trajectory is not None and policy.trajectory.match.forbids_extra_calls


@rule(
    "ARH-SEQ-006",
    SEQUENCE,
    ERROR,
    moment=Moment.CLOSING,
    title="Expected call missing",
    remediation="Make the agent make this call (tool and arguments) where the trajectory "
    "expects it, or fix the expected entry (arguments_match, optional, ignore_arguments).",
    applies=_applies,
    compile=compile_trajectory,
)
class ExpectedCallMissing(_TrajectoryRule):
    """One check per non-optional entry; a hit, at the trace, per entry left unmatched."""

    __slots__ = ()

    def finish(self, ctx: RuleContext) -> RuleResult:
        matching = _matching(ctx, self.compiled)
        hits = [_missing_hit(matching, miss) for miss in matching.outcome().missing]
        return RuleResult(checks=self.compiled.required, failed=len(hits), hits=hits)


@rule(
    "ARH-SEQ-007",
    SEQUENCE,
    ERROR,
    moment=Moment.CLOSING,
    title="Unexpected call",
    remediation="Stop the agent from making calls the trajectory does not expect, or add "
    "the call to trajectory.expected (or its tool to ignore_tools).",
    applies=_forbids_extras,
    compile=compile_trajectory,
)
class UnexpectedCall(_TrajectoryRule):
    """One check per considered call (strict, unordered and subset); a hit at each call
    that matches no entry."""

    __slots__ = ()

    def finish(self, ctx: RuleContext) -> RuleResult:
        matching = _matching(ctx, self.compiled)
        outcome = matching.outcome()
        plan = matching.plan
        mode = plan.spec.match.value
        hits = []
        taken = "matched by other calls" + (" or out of order" if plan.spec.match.ordered else "")
        for position in outcome.unexpected[:MAX_FINDINGS]:
            step_id, tool, fits = matching.call(position)
            if tool not in plan.tools:
                why = f"no entry names '{tool}'"
            elif fits:
                why = f"the entries it fits are {taken}"
            else:
                why = f"its arguments fit no entry of '{tool}'"
            message = f"call of '{tool}' matches no expected entry: {why} (match '{mode}')"
            hits.append(Hit(position, message, step_id=step_id))
        unexpected = len(outcome.unexpected)
        return RuleResult(
            checks=outcome.considered, failed=unexpected, hits=hits, more=unexpected - len(hits)
        )


def _missing_hit(matching: _Matching, miss: MissingCall) -> Hit:
    entry = matching.plan.entries[miss.entry]
    tool = entry.tool
    label = f"expected call '{tool}' (trajectory.expected[{miss.entry}])"
    nearest = miss.nearest
    if nearest is None:
        if matching.matcher.considered_calls(tool):
            message = f"{label} has no match: every call of '{tool}' matches another entry"
        else:
            message = f"{label} was never made{matching.failed_note(tool)}"
        return Hit(None, message, expected=entry.entry)
    tag = nearest.label  # the step id, or (step id, tool)
    where = f"the call of '{tool}' at step '{tag if isinstance(tag, str) else tag[0]}'"
    diff = _differences(entry, nearest.arguments, matching.plan.spec)
    if diff:
        message = f"{label} has no match; nearest: {where}, which differs in {diff}"
    else:
        message = f"{label} has no match in order: {where} fits it but is out of order"
    message += matching.failed_note(tool)
    return Hit(
        None,
        message,
        expected=entry.entry,
        observed=brief(dict(nearest.arguments), _ARGUMENTS_SHOWN),
    )


def _differences(entry: PolicyEntry, arguments: Mapping[str, Any], spec: TrajectorySpec) -> str:
    """The argument names that keep a call from fitting an entry, as a short list
    (empty when it fits): missing, different, and (exact) not expected."""
    from ..trajectory import ArgumentsMatch, json_equal  # noqa: PLC0415

    expected = entry.compared_arguments
    mode = entry.arguments_match
    if expected is None or mode.value == ArgumentsMatch.IGNORE.value:
        return ""
    ignored = spec.ignore_arguments
    parts = []
    for key, value in expected.items():
        if key not in arguments:
            parts.append(f"'{key}' (missing)")
        elif not json_equal(value, arguments[key]):
            got, want = _short(arguments[key]), _short(value)
            shown = f" ({got}, expected {want})" if got and want else ""
            parts.append(f"'{key}'{shown}")
    if mode.value == ArgumentsMatch.EXACT.value:
        parts += [
            f"'{key}' (not expected)"
            for key in arguments
            if key not in expected and key not in ignored
        ]
    if len(parts) > _KEYS_SHOWN:
        parts[_KEYS_SHOWN:] = [f"{len(parts) - _KEYS_SHOWN} more"]
    return ", ".join(parts)


def _short(value: Any) -> str:
    """A value as JSON text when it is short enough to name in a message, else ""."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= _VALUE_SHOWN else ""
