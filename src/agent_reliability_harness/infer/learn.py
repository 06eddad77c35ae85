"""What `arh infer` learns from good runs, one run at a time: per tool its calls and
arguments, the order of first calls, call counts, totals and endings. Every piece is a
count, a bound or a bounded sample, merged in input order (so the result does not depend
on how an executor split the runs).
"""

from __future__ import annotations

import json
import math
from array import array
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..models.common import Status
from ..models.report import TraceReport
from ..models.trace import Step, Trace
from ..rules.outputs import decoded
from .agents import AgentStats
from .claims import ClaimStats, final_answer
from .entities import EntityStats
from .numbers import as_float
from .results import OutputStats, json_kind
from .shapes import ShapeSummary

ENUM_MAX = 8  # an argument with more distinct values is never an enum
MAX_ORDER_TOOLS = 200  # runs calling more distinct tools add no order evidence
MAX_TRAJECTORY_CALLS = 500  # a run with more considered calls gives its task no trajectory


def canonical(value: Any) -> str:
    """Argument identity (as ARH-FLW-003 reads it): canonical JSON, sorted keys."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def exact(value: int | float) -> Decimal:
    """A recorded number as written (the shortest repr of a float)."""
    return Decimal(value) if isinstance(value, int) else Decimal(repr(value))


@dataclass(slots=True)
class ArgStats:
    """One argument of one tool over the calls that pass it."""

    calls: int = 0
    runs: int = 0
    types: dict[str, int] = field(default_factory=dict)
    values: dict[str, int] = field(default_factory=dict)  # canonical scalar -> calls
    open: bool = False  # more than ENUM_MAX distinct values, or a list/dict value
    low: Decimal | None = None
    high: Decimal | None = None
    shapes: ShapeSummary = field(default_factory=ShapeSummary)

    def add(self, value: Any) -> None:
        self.calls += 1
        kind = json_kind(value)
        self.types[kind] = self.types.get(kind, 0) + 1
        if kind in ("array", "object"):
            self.open = True
        elif not self.open:
            key = canonical(value)
            self.values[key] = self.values.get(key, 0) + 1
            self.open = len(self.values) > ENUM_MAX
        if kind == "integer" or (kind == "number" and math.isfinite(value)):
            self._bound(exact(value), exact(value))
        elif kind == "string":
            self.shapes.add(value)

    def _bound(self, low: Decimal | None, high: Decimal | None) -> None:
        if low is not None and (self.low is None or low < self.low):
            self.low = low
        if high is not None and (self.high is None or high > self.high):
            self.high = high

    def merge(self, other: ArgStats) -> None:
        self.calls += other.calls
        self.runs += other.runs
        for kind, count in other.types.items():
            self.types[kind] = self.types.get(kind, 0) + count
        self.open = self.open or other.open
        if not self.open:
            for key, count in other.values.items():
                self.values[key] = self.values.get(key, 0) + count
            self.open = len(self.values) > ENUM_MAX
        self._bound(other.low, other.high)
        self.shapes.merge(other.shapes)


@dataclass(slots=True)
class ToolStats:
    runs: int = 0
    calls: int = 0
    fewest: int | None = None  # calls in a run that calls it, at least
    most: int = 0
    repeated: int = 0  # runs that call it twice with identical arguments
    args: dict[str, ArgStats] = field(default_factory=dict)
    output: OutputStats = field(default_factory=OutputStats)  # its successful calls' outputs

    def merge(self, other: ToolStats) -> None:
        self.runs += other.runs
        self.calls += other.calls
        if other.fewest is not None:
            self.fewest = other.fewest if self.fewest is None else min(self.fewest, other.fewest)
        self.most = max(self.most, other.most)
        self.repeated += other.repeated
        for name, stats in other.args.items():
            self.args.setdefault(name, ArgStats()).merge(stats)
        self.output.merge(other.output)


@dataclass(slots=True)
class Samples:
    """Per-run values for a quantile (floats) and their exact largest value."""

    values: array[float] = field(default_factory=lambda: array("d"))
    top: Decimal | None = None
    integral: bool = True

    def add(self, value: int | float | None) -> None:
        if value is None:
            return
        self.values.append(as_float(value))
        self.integral = self.integral and isinstance(value, int)
        number = exact(value)
        if self.top is None or number > self.top:
            self.top = number

    def merge(self, other: Samples) -> None:
        self.values.extend(other.values)
        self.integral = self.integral and other.integral
        if other.top is not None and (self.top is None or other.top > self.top):
            self.top = other.top


def _ending(trace: Trace) -> str | None:
    """How a run ends, as ARH-CMP-001 reads it: "" for an ok response with text, the
    tool's name for an ok named call, None otherwise."""
    if not trace.steps:
        return None
    last = trace.steps[-1]
    if last.status is not Status.OK:
        return None
    if last.is_model_response:
        return "" if last.text and last.text.strip() else None
    return last.tool_name


@dataclass(slots=True)
class RunStats:
    """Everything learned from a set of runs."""

    runs: int = 0
    unnamed_calls: int = 0  # tool calls without a name (ARH-SCH-002: no policy allows them)
    tools: dict[str, ToolStats] = field(default_factory=dict)
    before: dict[tuple[str, str], int] = field(default_factory=dict)
    steps: Samples = field(default_factory=Samples)
    latency: Samples = field(default_factory=Samples)
    step_latency: Samples = field(default_factory=Samples)
    cost: Samples = field(default_factory=Samples)
    tokens: Samples = field(default_factory=Samples)
    endings: dict[str, int] = field(default_factory=dict)  # "" (a response) or a tool
    bad_endings: int = 0
    # task -> the considered calls (tool, canonical arguments) of each run, in input
    # order; None once a run has too many. Only when trajectories are learned.
    tasks: dict[str, list[list[tuple[str, str]]] | None] | None = None
    entities: EntityStats = field(default_factory=EntityStats)  # v1.2 preconditions
    agents: AgentStats = field(default_factory=AgentStats)  # v1.2 per-agent tool sets
    claims: ClaimStats = field(default_factory=ClaimStats)  # v1.3 proposed claims

    def add(self, trace: Trace, report: TraceReport) -> None:
        self.runs += 1
        counts: dict[str, int] = {}
        first: dict[str, int] = {}
        seen: set[tuple[str, str]] = set()
        repeated: set[str] = set()
        present: set[tuple[str, str]] = set()
        considered: list[tuple[str, str]] = []
        calls: list[tuple[Step, Any]] = []  # named calls, decoded outputs (entities.py)
        slowest: int | float | None = None
        for index, step in enumerate(trace.steps):
            if step.latency_ms is not None and (slowest is None or step.latency_ms > slowest):
                slowest = step.latency_ms
            if not step.is_tool_call:
                continue
            name = step.tool_name
            if name is None:
                self.unnamed_calls += 1
                continue
            counts[name] = counts.get(name, 0) + 1
            first.setdefault(name, index)
            arguments = step.arguments or {}
            identity = (name, canonical(arguments))
            if identity in seen:
                repeated.add(name)
            seen.add(identity)
            tool = self.tools.setdefault(name, ToolStats())
            output = None
            if step.status is Status.OK:
                considered.append(identity)
                if step.output is not None:
                    output = decoded(step.output)
                    tool.output.add(output)
            calls.append((step, output))
            for arg, value in arguments.items():
                tool.args.setdefault(arg, ArgStats()).add(value)
                present.add((name, arg))
        self._tally(counts, repeated, present)
        self.entities.add_run(calls)
        self.claims.add_run(calls, final_answer(trace))
        self.agents.add(trace)
        self._order(first)
        self._totals(trace, report, slowest)
        if self.tasks is not None and report.task_id is not None:
            self._task(report.task_id, considered)

    def _tally(
        self, counts: dict[str, int], repeated: set[str], present: set[tuple[str, str]]
    ) -> None:
        for name, count in counts.items():
            tool = self.tools[name]
            tool.runs += 1
            tool.calls += count
            tool.fewest = count if tool.fewest is None else min(tool.fewest, count)
            tool.most = max(tool.most, count)
            tool.repeated += name in repeated
        for name, arg in present:
            self.tools[name].args[arg].runs += 1

    def _order(self, first: dict[str, int]) -> None:
        if len(first) > MAX_ORDER_TOOLS:
            return
        ordered = sorted(first, key=first.__getitem__)
        for i, earlier in enumerate(ordered):
            for later in ordered[i + 1 :]:
                self.before[(earlier, later)] = self.before.get((earlier, later), 0) + 1

    def _totals(self, trace: Trace, report: TraceReport, slowest: int | float | None) -> None:
        self.steps.add(len(trace.steps))
        self.latency.add(report.total_latency_ms)
        self.step_latency.add(slowest)
        self.cost.add(report.total_cost_usd)
        self.tokens.add(report.total_tokens)
        ending = _ending(trace)
        if ending is None:
            self.bad_endings += 1
        else:
            self.endings[ending] = self.endings.get(ending, 0) + 1

    def _task(self, task_id: str, considered: list[tuple[str, str]]) -> None:
        assert self.tasks is not None
        runs = self.tasks.setdefault(task_id, [])
        if runs is None:
            return
        if len(considered) > MAX_TRAJECTORY_CALLS:
            self.tasks[task_id] = None
        else:
            runs.append(considered)

    def merge(self, other: RunStats) -> None:
        """Fold in the runs that came after these (input order is kept)."""
        self.runs += other.runs
        self.unnamed_calls += other.unnamed_calls
        for name, tool in other.tools.items():
            self.tools.setdefault(name, ToolStats()).merge(tool)
        for pair, count in other.before.items():
            self.before[pair] = self.before.get(pair, 0) + count
        for mine, theirs in (
            (self.steps, other.steps),
            (self.latency, other.latency),
            (self.step_latency, other.step_latency),
            (self.cost, other.cost),
            (self.tokens, other.tokens),
        ):
            mine.merge(theirs)
        for ending, count in other.endings.items():
            self.endings[ending] = self.endings.get(ending, 0) + count
        self.bad_endings += other.bad_endings
        self.entities.merge(other.entities)
        self.claims.merge(other.claims)
        self.agents.merge(other.agents)
        if self.tasks is not None and other.tasks is not None:
            for task_id, runs in other.tasks.items():
                mine_runs = self.tasks.setdefault(task_id, [])
                if mine_runs is None or runs is None:
                    self.tasks[task_id] = None
                else:
                    mine_runs.extend(runs)
