"""ARH-FLW-004/005: value-level data flow (policy v1.1 section 6). One SourceIndex per
trace, fed in trace order (the outputs of ok calls, the sink and grounded arguments
asked of them, the trace's inputs) and resolved once at the end, decides both rules;
this module only words its answers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from ..models.common import Category, Severity, Status, StepType
from ..models.policy import ArgSpec, Policy
from ..models.trace import Step
from ..patterns import PatternSet
from ._effective_status import call_failed, failed_by_output
from .base import Hit, Moment, RuleContext, RuleResult, RuleState, brief, rule
from .facts import TraceFacts

if TYPE_CHECKING:  # the value index is imported when a policy asks for data flow
    from ..dataflow import (
        DataflowOptions,
        GroundedResult,
        Screen,
        SinkResult,
        TaintedArgument,
        TaintedUnit,
    )

FLOW = Category.FLOW
ERROR = Severity.ERROR
_FAILED = Status.ERROR
_TOOL_CALL = StepType.TOOL_CALL
_UNITS_SHOWN = 20


class FlowPlan(msgspec.Struct, frozen=True):
    """What both rules need of the policy, made once per Evaluator."""

    options: DataflowOptions
    screen: Screen  # the markers, for the source store's windows
    # Sink tool -> the arguments ARH-FLW-004 checks (None: all); empty without
    # `untrusted_to_sink`, and then no output is untrusted (only ARH-FLW-005 asks).
    sinks: dict[str, tuple[str, ...] | None]
    untrusted: frozenset[str]
    # Tool -> its argument specs that are grounded or hold a grounded nested spec.
    grounded: dict[str, tuple[tuple[str, ArgSpec], ...]]
    grounded_everywhere: bool  # grounded_arguments holds "*"
    grounded_tools: frozenset[str]  # the other grounded_arguments names
    asks_grounded: frozenset[str]  # the tools with some grounded argument (but for "*")
    failures: PatternSet  # error_handling.error_output_patterns


def _holds_grounded(spec: ArgSpec) -> bool:
    if spec.grounded:
        return True
    if spec.items is not None and _holds_grounded(spec.items):
        return True
    return any(_holds_grounded(s) for s in (spec.properties or {}).values())


def _grounded_specs(policy: Policy) -> dict[str, tuple[tuple[str, ArgSpec], ...]]:
    out = {}
    for name, tool in policy.allowed_tools.items():
        specs = {**tool.optional_arguments, **tool.required_arguments}  # required wins
        found = tuple((arg, spec) for arg, spec in sorted(specs.items()) if _holds_grounded(spec))
        if found:
            out[name] = found
    return out


def compile_flow(policy: Policy) -> FlowPlan:
    from ..dataflow import DataflowOptions, Marker, Screen  # noqa: PLC0415

    flow = policy.dataflow
    to_sink = flow.untrusted_to_sink
    markers = tuple(Marker(s.pattern, s) for s in flow.untrusted_if) if to_sink else ()
    options = DataflowOptions(
        min_value_length=flow.min_value_length,
        untrusted_if=markers or None,
        taint_window=flow.taint_window,
        trusted_values=flow.trusted_values.globs,
    )
    tools = policy.allowed_tools.items()
    grounded = _grounded_specs(policy)
    named = frozenset(flow.grounded_arguments) - {"*"}
    return FlowPlan(
        options,
        Screen([m.pattern for m in markers]),
        {name: t.sink_arguments for name, t in tools if t.sink} if to_sink else {},
        frozenset(name for name, t in tools if t.untrusted) if to_sink else frozenset(),
        grounded,
        "*" in flow.grounded_arguments,
        named,
        named | frozenset(grounded),
        policy.error_handling.error_output_patterns,
    )


def _applies_to_sinks(policy: Policy) -> bool:
    return policy.dataflow.untrusted_to_sink


def _applies_grounded(policy: Policy) -> bool:
    return bool(policy.dataflow.grounded_arguments) or bool(_grounded_specs(policy))


def _position(call: tuple[int, Any, bool, str, str]) -> int:
    return call[0]


def _grounded_values(spec: ArgSpec, value: Any, path: str, out: list[tuple[str, Any]]) -> None:
    """(path, value) of every value a grounded spec covers, inside `value` too."""
    if spec.grounded:
        out.append((path, value))
        return
    if spec.items is not None and isinstance(value, list):
        for i, item in enumerate(value):
            _grounded_values(spec.items, item, f"{path}[{i}]", out)
    if spec.properties and isinstance(value, dict):
        for key, sub in spec.properties.items():
            if key in value:
                _grounded_values(sub, value[key], f"{path}.{key}", out)


class _Flow:
    """One trace's source store (which also keeps the step id and tool of each output
    for the findings), and the step id, tool and value of each question."""

    __slots__ = ("fed", "grounded", "index", "labels", "live", "plan", "result")

    def __init__(self, plan: FlowPlan, ctx: RuleContext) -> None:
        from ..dataflow import SourceIndex, SourceStore  # noqa: PLC0415

        self.plan = plan
        self.index = SourceStore(plan.options, plan.screen)
        self.fed = 0
        self.grounded: list[tuple[str, str, Any]] = []  # (step id, tool, value)
        self.result: tuple[list[tuple[int, SinkResult]], tuple[GroundedResult, ...]] | None = None
        # A session that probes calls before they run (engine.TraceRun.probe) keeps an
        # exact index of the sources so far too, and their labels (step id, tool).
        self.live: SourceIndex | None = None
        self.labels: dict[int, tuple[str, str]] = {}
        if ctx.facts.trace_memo.get(PROBING):
            self.live = SourceIndex(plan.options)
            for item in () if ctx.trace is None else ctx.trace.inputs:
                self.live.add_input(item.text)

    def feed(self, ctx: RuleContext) -> None:
        """The chunk's calls, once, whichever rule sees the chunk first."""
        facts = ctx.facts
        end = facts.start + len(facts.steps)
        if end <= self.fed:
            return
        self.fed = end
        plan, calls = self.plan, facts.calls
        sinks, asks = plan.sinks, plan.asks_grounded
        if sinks:
            self.index.ask_sinks(
                [
                    (i, s.arguments or {}, sinks[s.tool_name], s.step_id, s.tool_name)
                    for i, s in calls
                    if s.tool_name in sinks
                ]
            )
        if asks or plan.grounded_everywhere:
            for position, step in calls:
                if step.arguments and (plan.grounded_everywhere or step.tool_name in asks):
                    self._ask_grounded(position, step, step.tool_name or "", step.arguments)
        failed = failed_by_output(facts, plan.failures)
        untrusted = plan.untrusted
        # A failed call's output reports the failure, not data: it is no source.
        ok = [
            (i, s.output, s.tool_name in untrusted, s.step_id, s.tool_name or "")
            for i, s in calls
            if s.output is not None and s.status is not _FAILED and i not in failed
        ]
        if facts.unnamed_calls:  # their outputs are sources too (of no labelled tool)
            ok = sorted(ok + self._unnamed(facts), key=_position)
        self.index.add_outputs(ok)
        if self.live is not None:
            for position, output, is_untrusted, step_id, tool in ok:
                self.live.add_output(position, output, is_untrusted)
                self.labels[position] = (step_id, tool)

    def _unnamed(self, facts: TraceFacts) -> list[tuple[int, Any, bool, str, str]]:
        return [
            (position, step.output, False, step.step_id, "")
            for position, step in enumerate(facts.steps, facts.start)
            if step.type is _TOOL_CALL
            and not step.tool_name
            and step.output is not None
            and not call_failed(step, self.plan.failures)
        ]

    def _ask_grounded(self, position: int, step: Step, tool: str, args: Mapping[str, Any]) -> None:
        for name, value in self.grounded_asked(tool, args):
            self.index.ask_grounded(position, name, value)
            self.grounded.append((step.step_id, tool, value))

    def grounded_asked(self, tool: str, args: Mapping[str, Any]) -> list[tuple[str, Any]]:
        """The grounded values of a call's arguments, (path, value) each."""
        plan = self.plan
        if not (plan.grounded_everywhere or tool in plan.asks_grounded) or not args:
            return []
        asked: list[tuple[str, Any]] = []
        if plan.grounded_everywhere or tool in plan.grounded_tools:
            asked = [(name, args[name]) for name in sorted(args)]
        else:
            for name, spec in plan.grounded.get(tool, ()):
                if name in args:
                    _grounded_values(spec, args[name], name, asked)
        return asked

    def source_label(self, position: int) -> tuple[str, str]:
        """(step id, tool) of the output at `position`, a taint source."""
        if self.live is not None:
            return self.labels[position]
        return self.index.source(position)

    def resolution(
        self, ctx: RuleContext
    ) -> tuple[list[tuple[int, SinkResult]], tuple[GroundedResult, ...]]:
        """The tainted sinks (by asking order) and every grounded answer, once."""
        if self.result is None:
            # Inputs come before every step, so adding them last changes nothing.
            if ctx.trace is not None:
                for item in ctx.trace.inputs:
                    self.index.add_input(item.text)
            self.result = self.index.answers()
        return self.result


_KEY = "dataflow.index"
# Set in TraceFacts.trace_memo by a session that probes calls before they run.
PROBING = "engine.probing"


def _flow(ctx: RuleContext, plan: FlowPlan) -> _Flow:
    return ctx.facts.shared(_KEY, lambda: _Flow(plan, ctx))


class _FlowRule(RuleState):
    __slots__ = ()

    def scan(self, ctx: RuleContext) -> None:
        _flow(ctx, self.compiled).feed(ctx)


@rule(
    "ARH-FLW-004",
    FLOW,
    ERROR,
    moment=Moment.PREVENTIVE,
    title="Untrusted value reached sink",
    remediation="Do not let content from untrusted outputs (web pages, e-mails, files, "
    "tickets) choose where a sink sends, pays or writes; confirm such values with the "
    "user, or list the user's own values in dataflow.trusted_values.",
    applies=_applies_to_sinks,
    compile=compile_flow,
)
class UntrustedToSink(_FlowRule):
    """One check per sink call; a hit per (call, argument) with a tainted unit."""

    __slots__ = ()

    def finish(self, ctx: RuleContext) -> RuleResult:
        flow = _flow(ctx, self.compiled)
        tainted, _ = flow.resolution(ctx)
        result = RuleResult(checks=flow.index.sink_count(), failed=len(tainted))
        for k, asked in tainted:
            step_id, tool, arguments = flow.index.sink_label(k)
            result.hits += [
                _taint_hit(flow, asked.position, (step_id, tool), arguments[a.name], a)
                for a in asked.tainted
            ]
        return result

    def probe(self, ctx: RuleContext, index: int, step: Step) -> list[Hit]:
        plan: FlowPlan = self.compiled
        tool = step.tool_name or ""
        if tool not in plan.sinks:
            return []
        flow = _flow(ctx, plan)
        assert flow.live is not None
        arguments = step.arguments or {}
        asked = flow.live.sink_answer(index, arguments, plan.sinks[tool])
        return [
            _taint_hit(flow, index, (step.step_id, tool), arguments[a.name], a)
            for a in asked.tainted
        ]


def _shown_units(arg: TaintedArgument) -> list[TaintedUnit]:
    """The tainted units worth naming: one inside another (the digits of an IBAN, a URL
    without its scheme) adds nothing to it."""
    texts = [u.unit.text for u in arg.units]
    return [u for u in arg.units if not any(u.unit.text in t and u.unit.text != t for t in texts)]


def _as_written(value: Any, folded: str) -> str:
    """A unit as the argument spells it, when a string argument holds it with only its
    case changed; else the folded unit."""
    if isinstance(value, str):
        lowered = value.casefold()
        at = lowered.find(folded) if len(lowered) == len(value) else -1
        if at >= 0:
            return value[at : at + len(folded)]
    return folded


def _taint_hit(
    flow: _Flow, position: int, call: tuple[str, str], value: Any, arg: TaintedArgument
) -> Hit:
    step_id, tool = call
    units = _shown_units(arg)
    first = units[0]
    source_id, source_tool = flow.source_label(first.source)
    message = (
        f"argument '{arg.name}' of sink '{tool}' carries "
        f"'{brief(_as_written(value, first.unit.text))}' from "
        f"the untrusted output of '{source_tool or '(no tool name)'}' at step '{source_id}'"
    )
    if first.pattern is not None:
        message += f" (after marker '{first.pattern}')"
    if len(units) > 1:
        message += f", and {len(units) - 1} more untrusted value(s)"
    return Hit(
        position,
        message,
        observed=[brief(u.unit.text) for u in units[:_UNITS_SHOWN]],
        step_id=step_id,
        source_step_index=first.source,
        source_step_id=source_id,
    )


@rule(
    "ARH-FLW-005",
    FLOW,
    ERROR,
    moment=Moment.PREVENTIVE,
    title="Ungrounded argument",
    remediation="Make the agent take this value from the user or from a tool output (look "
    "it up first) instead of making it up.",
    applies=_applies_grounded,
    compile=compile_flow,
)
class UngroundedArgument(_FlowRule):
    """One check per grounded argument present; a hit per argument with a value found in
    no input and no earlier output."""

    __slots__ = ()

    def finish(self, ctx: RuleContext) -> RuleResult:
        flow = _flow(ctx, self.compiled)
        result = RuleResult(checks=len(flow.grounded))
        for answer, (step_id, tool, value) in zip(
            flow.resolution(ctx)[1], flow.grounded, strict=True
        ):
            if answer.missing is not None:
                result.failed += 1
                result.hits.append(_ungrounded(answer, step_id, tool, value))
        return result

    def probe(self, ctx: RuleContext, index: int, step: Step) -> list[Hit]:
        tool = step.tool_name
        if not tool:  # only named calls are asked about (TraceFacts.calls)
            return []
        flow = _flow(ctx, self.compiled)
        assert flow.live is not None
        hits = []
        for name, value in flow.grounded_asked(tool, step.arguments or {}):
            answer = flow.live.grounded_answer(index, name, value)
            if answer.missing is not None:
                hits.append(_ungrounded(answer, step.step_id, tool, value))
        return hits


def _ungrounded(answer: GroundedResult, step_id: str, tool: str, value: Any) -> Hit:
    missing = answer.missing
    assert missing is not None
    if isinstance(value, str) or value == missing.number:
        shown, what = brief(value), "has the value"  # the whole value
    else:
        shown = missing.text if missing.number is None else missing.number
        shown, what = brief(shown), "holds"
    message = (
        f"argument '{answer.name}' of '{tool}' {what} {_quoted(shown)}, which occurs "
        "in no input and no earlier tool output"
    )
    return Hit(answer.position, message, observed=shown, step_id=step_id)


def _quoted(value: Any) -> str:
    return f"'{value}'" if isinstance(value, str) else str(value)
