"""What calls returned (policy v1.2 sections 3 and 4): ARH-SCH-014 checks an output
against its tool's `output` contract, ARH-FLW-006 finds a tool polled in a loop that
makes no progress, ARH-FLW-007 a side-effect call that recorded no outcome."""

from __future__ import annotations

from typing import Any

from ..models.common import Category, Severity, Status, StepType
from ..models.policy import Policy
from ..models.trace import Step
from .arguments import ArgCheck, contract_hits
from .base import Counts, Hit, Moment, RuleContext, RuleResult, RuleState, rule
from .contracts import passes
from .facts import argument_identity
from .outputs import decoded, identity

_ERROR = Status.ERROR
_TOOL_CALL = StepType.TOOL_CALL
_UNREAD: Any = object()


def _output_contracts(policy: Policy) -> dict[str, ArgCheck]:
    return {
        name: ArgCheck(tool.output)
        for name, tool in policy.allowed_tools.items()
        if tool.output is not None
    }


@rule(
    "ARH-SCH-014",
    Category.SCHEMA,
    Severity.ERROR,
    moment=Moment.AFTER,
    title="Tool output breaks its contract",
    remediation="Fix the tool (or its wrapper) so that a successful call returns what "
    "allowed_tools.<tool>.output declares, or correct the contract.",
    applies=lambda p: any(t.output is not None for t in p.allowed_tools.values()),
    since="1.2",
    counts=Counts.PER_CALL,
    compile=_output_contracts,
)
class OutputContract(RuleState):
    """One check per call of a tool with an `output` contract whose effective status is
    ok and that recorded an output (a JSON object or array text is decoded first); a
    hit per broken check, naming the output path (`output`, `output.items[0].id`)."""

    __slots__ = ()

    def scan(self, ctx: RuleContext) -> None:
        contracts: dict[str, ArgCheck] = self.compiled
        facts, result = ctx.facts, self.result
        for index, step in facts.calls:
            check = contracts.get(step.tool_name or "")
            if check is None or step.output is None or facts.failed(index, step):
                continue
            result.checks += 1
            value = decoded(step.output)
            if not passes(check, value):
                result.hits += contract_hits(index, step, check, value, "output")


@rule(
    "ARH-FLW-006",
    Category.FLOW,
    Severity.ERROR,
    moment=Moment.AFTER,
    title="Identical call repeated in a loop",
    remediation="Stop the agent from calling a tool again and again with the same "
    "arguments when it keeps returning the same result (back off, change the call, "
    "or give up), or raise max_identical_repeats.",
    applies=lambda p: p.error_handling.max_identical_repeats is not None,
    since="1.2",
)
class IdenticalRepeats(RuleState):
    """Runs of calls of one tool in a row (no other tool call between them, model
    responses may be) with identical arguments and identical results (output, status
    and error, as JSON values). One check per run; a hit per run longer than
    max_identical_repeats, at the call that made it too long, with the run's length.
    Kept: the run in progress (its tool, first call, key once computed, length and
    first offending call). A key is computed only for a call that follows one of the
    same tool, so a trace whose tools alternate computes none."""

    __slots__ = ("head", "head_output", "key", "length", "limit", "over", "runs", "tool")

    def __init__(self, policy: Policy) -> None:
        super().__init__(policy)
        limit = policy.error_handling.max_identical_repeats
        assert limit is not None
        self.limit = limit
        self.tool: str | None = None  # the run's tool; None: no run
        self.head: Step | None = None  # the run's first call
        self.head_output: Any = _UNREAD  # its decoded output, once read
        self.key: Any = None  # (arguments, result) of the run, once computed
        self.length = self.runs = 0
        self.over: tuple[int, str, str] | None = None  # position, step id, tool

    def scan(self, ctx: RuleContext) -> None:
        facts = ctx.facts
        if facts.unnamed_calls:  # a call with no tool name ends a run, too
            calls = [
                (index, step)
                for index, step in enumerate(facts.steps, facts.start)
                if step.type is _TOOL_CALL
            ]
        else:
            calls = facts.calls
        add = self._add
        for index, step in calls:
            add(index, step)

    def _add(self, index: int, step: Step) -> None:
        tool = step.tool_name
        if tool and tool == self.tool and self._repeats(step):
            self.length += 1
            if self.length == self.limit + 1:
                self.over = (index, step.step_id, tool)
            return
        self._end()
        if tool:
            self.tool, self.head, self.length = tool, step, 1
            self.runs += 1

    def _repeats(self, step: Step) -> bool:
        """Whether a call of the run's tool repeats the run's first call. Values that
        differ for Python differ as JSON values too (JSON equality is the stricter), so
        most calls are told apart without computing a key."""
        head = self.head
        assert head is not None
        if self.head_output is _UNREAD:
            self.head_output = decoded(head.output)
        output = decoded(step.output)
        # Absent, null and empty arguments are the same (`{}`), as ARH-FLW-002 reads them.
        if (
            (step.arguments or None) != (head.arguments or None)
            or output != self.head_output
            or step.status is not head.status
            or (step.error or None) != (head.error or None)  # "" is no error text
        ):
            return False
        if self.key is None:
            self.key = _key(head.arguments, self.head_output)
        return bool(_key(step.arguments, output) == self.key)

    def _end(self) -> None:
        if self.over is not None:
            index, step_id, tool = self.over
            limit, length = self.limit, self.length
            self.result.hits.append(
                Hit(
                    index,
                    f"tool '{tool}' was called {length} times in a row with identical "
                    f"arguments and identical results (max_identical_repeats {limit})",
                    expected=limit,
                    observed=length,
                    step_id=step_id,
                )
            )
            self.over = None
        self.tool = self.head = self.key = None
        self.head_output = _UNREAD

    def finish(self, ctx: RuleContext) -> RuleResult:
        self._end()
        result = self.result
        result.checks, result.failed = self.runs, len(result.hits)
        return result


def _key(arguments: dict[str, Any] | None, output: Any) -> tuple[str, Any]:
    """A call's arguments (as ARH-FLW-002 compares them) and decoded output, as JSON
    values; status and error are compared as they are."""
    return argument_identity(arguments), identity(output)


def _side_effect_calls(policy: Policy) -> frozenset[str]:
    """The side-effect tools: listed with `side_effect: true`, or of a kind in
    `error_handling.side_effect_kinds` (toolkinds)."""
    kinds = policy.error_handling.side_effect_kinds
    if not kinds:
        return policy.side_effect_tools
    from ..toolkinds import ToolKinds  # noqa: PLC0415 - only policies that name kinds

    mapping = ToolKinds(policy.tool_kinds)
    return policy.side_effect_tools.union(*(mapping.names_of(kind) for kind in kinds))


@rule(
    "ARH-FLW-007",
    Category.FLOW,
    Severity.WARNING,
    moment=Moment.AFTER,
    title="Side-effect call recorded no outcome",
    remediation="Record what every side-effecting call returned (its output, or its "
    "error), so that whether it took effect can be checked.",
    applies=lambda p: (
        p.error_handling.require_recorded_outcome
        and bool(p.side_effect_tools or p.error_handling.side_effect_kinds)
    ),
    since="1.2",
    compile=_side_effect_calls,
)
class UnrecordedOutcome(RuleState):
    """One check per call of a `side_effect` tool; a hit per call with no output (absent
    or null), no error text and no error status. A trace's status left out reads as ok
    (TRACE-SPEC.md), so an explicit `"status": "ok"` with nothing else counts as no
    outcome too: it says nothing of what the call did."""

    __slots__ = ()

    def scan(self, ctx: RuleContext) -> None:
        side_effect: frozenset[str] = self.compiled
        result = self.result
        for index, step in ctx.facts.calls:
            if step.tool_name not in side_effect:
                continue
            result.checks += 1
            if step.output is None and not step.error and step.status is not _ERROR:
                result.failed += 1
                result.hits.append(
                    Hit(
                        index,
                        f"side-effect tool '{step.tool_name}' recorded no output, status or error",
                        step_id=step.step_id,
                    )
                )
