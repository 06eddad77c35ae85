"""The `coverage` run section (policy v1.2 section 6, `--coverage`): per allowed tool, the
calls made, the traces calling it, the declared arguments ever passed and the rules that
fired on its calls; and the share of allowed tools called at least once.

Counted trace by trace in the workers and merged in input order (sums and set unions, so
every executor gives the same section). The allowed tools are those of all the run's
policies and of their `agents` entries (a tool allowed by several counts once, its
declared arguments united). A trace too big to hold (evaluated a chunk of steps at a
time) is not counted, and the section says how many were not.

What one trace adds is its TraceTools (the tools it called, with their calls, arguments
passed and rules fired); `--cache` keeps it, msgpack-encoded, in the trace's entry and
replays it on a hit (`add_summary`), so a cached run gives the same section.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

import msgspec

from ..models.common import StepType
from ..models.policy import Policy
from ..models.report import Section
from .plan import Accumulator, SectionSpec, TraceView

KEY = "coverage"
# Allowed tool -> its declared argument names (sorted), tools sorted.
Targets = tuple[tuple[str, tuple[str, ...]], ...]


def coverage_targets(policies: Sequence[Policy]) -> Targets:
    declared: dict[str, set[str]] = {}
    # A tool allowed only inside an `agents` entry is allowed too (for that agent).
    every = [
        one
        for policy in policies
        for one in (policy, *(e for _, e in (policy.agents.entries if policy.agents else ())))
    ]
    for policy in every:
        for name, tool in policy.allowed_tools.items():
            names = declared.setdefault(name, set())
            names.update(tool.required_arguments, tool.optional_arguments)
    return tuple((name, tuple(sorted(args))) for name, args in sorted(declared.items()))


@dataclass(slots=True)
class ToolTally:
    calls: int = 0
    traces: int = 0
    arguments: set[str] = field(default_factory=set)  # every name passed
    rules: dict[str, int] = field(default_factory=dict)  # rule id -> findings on its calls

    def merge(self, later: ToolTally) -> None:
        self.calls += later.calls
        self.traces += later.traces
        self.arguments |= later.arguments
        for rule, count in later.rules.items():
            self.rules[rule] = self.rules.get(rule, 0) + count


class ToolCalls(msgspec.Struct, array_like=True, gc=False):
    """One tool's calls in one trace: how many, the argument names passed (sorted) and
    the rules that fired on them (rule id, findings; sorted)."""

    name: str
    calls: int
    arguments: list[str]
    rules: list[tuple[str, int]]


class TraceTools(msgspec.Struct, array_like=True, gc=False):
    """What one trace adds to the section: the tools it called (by name), or nothing
    when it was not counted (too big to hold)."""

    counted: bool
    tools: list[ToolCalls]


_DECODER = msgspec.msgpack.Decoder(TraceTools)


def trace_tools(view: TraceView) -> TraceTools:
    """The tools a trace called, in name order."""
    trace = view.trace
    if trace is None:
        return TraceTools(False, [])
    calls: dict[str, int] = {}
    arguments: dict[str, set[str]] = {}
    rules: dict[str, dict[str, int]] = {}
    steps = trace.steps
    for step in steps:
        if step.type == StepType.TOOL_CALL and step.tool_name:
            name = step.tool_name
            calls[name] = calls.get(name, 0) + 1
            arguments.setdefault(name, set()).update(step.arguments or ())
    for finding in view.report.findings:
        index = finding.step_index
        if finding.rule_id is None or index is None or not 0 <= index < len(steps):
            continue
        tool = steps[index].tool_name
        if steps[index].type == StepType.TOOL_CALL and tool:
            fired = rules.setdefault(tool, {})
            fired[finding.rule_id] = fired.get(finding.rule_id, 0) + 1
    return TraceTools(
        True,
        [
            ToolCalls(
                name,
                calls[name],
                sorted(arguments[name]),
                sorted(rules.get(name, {}).items()),
            )
            for name in sorted(calls)
        ],
    )


def summarise(view: TraceView) -> bytes:
    """SectionSpec.summarise: a trace's TraceTools, msgpack-encoded (kept by --cache)."""
    return msgspec.msgpack.encode(trace_tools(view))


class CoverageAccumulator:
    """Per tool name called: a ToolTally; how many traces were counted and not."""

    def __init__(self, targets: Targets = ()) -> None:
        self.targets = targets
        self.tools: dict[str, ToolTally] = {}
        self.traces = 0
        self.not_counted = 0

    def _tally(self, name: str) -> ToolTally:
        tally = self.tools.get(name)
        if tally is None:
            tally = self.tools[name] = ToolTally()
        return tally

    def add(self, view: TraceView) -> None:
        self._add(trace_tools(view))

    def add_summary(self, data: bytes) -> None:
        """A trace as its `summarise` bytes (from a cache entry)."""
        self._add(_DECODER.decode(data))

    def _add(self, one: TraceTools) -> None:
        if not one.counted:
            self.not_counted += 1
            return
        self.traces += 1
        for called in one.tools:
            tally = self._tally(called.name)
            tally.calls += called.calls
            tally.traces += 1
            tally.arguments.update(called.arguments)
            rules = tally.rules
            for rule, count in called.rules:
                rules[rule] = rules.get(rule, 0) + count

    def merge(self, later: Accumulator) -> None:
        assert isinstance(later, CoverageAccumulator)
        self.traces += later.traces
        self.not_counted += later.not_counted
        for name, tally in later.tools.items():
            self._tally(name).merge(tally)

    def finish(self) -> Section | None:
        return Section(KEY, coverage_value(self))


def _share(part: int, whole: int) -> float | None:
    return None if whole == 0 else round(100 * part / whole, 2)


def coverage_value(state: CoverageAccumulator) -> dict[str, object]:
    """The section's JSON value: tools in name order, rules in id order."""
    rows: list[dict[str, object]] = []
    passed_total = called = 0
    allowed = dict(state.targets)
    for name, declared in state.targets:
        tally = state.tools.get(name, ToolTally())
        passed = [a for a in declared if a in tally.arguments]
        passed_total += len(passed)
        called += tally.calls > 0
        rows.append(
            {
                "tool": name,
                "calls": tally.calls,
                "traces": tally.traces,
                "arguments_declared": len(declared),
                "arguments_passed": len(passed),
                "arguments_never_passed": [a for a in declared if a not in tally.arguments],
                "rules": dict(sorted(tally.rules.items())),
            }
        )
    declared_total = sum(len(args) for _, args in state.targets)
    unlisted = [
        {"tool": name, "calls": tally.calls, "traces": tally.traces}
        for name, tally in sorted(state.tools.items())
        if name not in allowed
    ]
    value: dict[str, object] = {
        "traces": state.traces,
        "allowed_tools": len(rows),
        "called_tools": called,
        "tool_coverage": _share(called, len(rows)),
        "arguments_declared": declared_total,
        "arguments_passed": passed_total,
        "argument_coverage": _share(passed_total, declared_total),
        "tools": rows,
        "unlisted_tools": unlisted,
    }
    if state.not_counted:
        value["traces_not_counted"] = state.not_counted
    return value


def coverage_spec(policies: Sequence[Policy]) -> SectionSpec:
    factory = functools.partial(CoverageAccumulator, coverage_targets(policies))
    return SectionSpec(KEY, factory, summarise=summarise)
