"""ARH-SCH-015 (policy v1.2 section 6, `"tool_contracts": "recorded"`): each call of a tool
whose definition the trace recorded (trace metadata `declared_tools`: an MCP `tools/list`
result's tools, an OpenAI request's `tools`; docs/adapters.md says which formats fill it) is
checked against that definition's JSON Schema, as `arh infer --from-tools` translates it:
types, enums, patterns, bounds, lengths and nested items/properties/required. What the
translation cannot say is not checked. The drift between what the agent was told and what
it called becomes a finding per broken part, naming the argument path."""

from __future__ import annotations

import json
from typing import Any

from ..errors import PolicyError
from ..models.common import Category, Severity
from ..models.policy import Policy
from ..models.policy.args import parse_arg_spec
from ..models.policy.jsonschema import arguments
from ..models.policy.notes import Notes
from ..models.policy.tooldefs import parse_tool_defs
from ..models.trace import Step, Trace
from .arguments import ArgCheck, contract_hits
from .base import Counts, Hit, Moment, RuleContext, RuleResult, RuleState, rule
from .contracts import passes

DECLARED_TOOLS = "declared_tools"
# Per Evaluator: the compiled definitions of the `declared_tools` lists seen (the traces
# of one agent record the same tools), at most MAX_CACHED, by their JSON text as written:
# key order kept (it orders the hits), NaN not written as null, so equal texts are equal
# documents as a trace decodes them (string keys, lists).
Cache = dict[str, dict[str, ArgCheck]]
MAX_CACHED = 64
_text = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def recorded_checks(trace: Trace | None, cache: Cache | None = None) -> dict[str, ArgCheck]:
    """Tool name -> the compiled contract of its recorded definition ({} when the trace
    recorded none). A definition the policy vocabulary cannot hold is left out. With a
    `cache`, a list of definitions compiled before is not compiled again."""
    declared = None if trace is None else trace.metadata.get(DECLARED_TOOLS)
    if not isinstance(declared, list) or not declared:
        return {}
    if cache is None:
        return _compiled(declared)
    try:
        key = _text(declared)
    except (TypeError, ValueError, RecursionError):  # not a JSON document
        return _compiled(declared)
    checks = cache.get(key)
    if checks is None:
        if len(cache) >= MAX_CACHED:
            cache.clear()
        checks = cache[key] = _compiled(declared)
    return checks


def _latest(declared: list[Any]) -> list[Any]:
    """Each tool's last definition (an MCP server re-lists its tools after
    `notifications/tools/list_changed`: the latest listing is the contract)."""
    last: dict[Any, int] = {}
    for position, entry in enumerate(declared):
        name = entry.get("name") if isinstance(entry, dict) else None
        last[name if isinstance(name, str) else ("#", position)] = position
    return [declared[n] for n in sorted(last.values())]


def _compiled(declared: list[Any]) -> dict[str, ArgCheck]:
    checks: dict[str, ArgCheck] = {}
    for tool in parse_tool_defs(_latest(declared), "").tools:
        args = arguments(tool.parameters)
        raw = {
            "type": "object",
            "properties": {**args.optional, **args.required},
            "required": sorted(args.required),
        }
        try:
            spec = parse_arg_spec(raw, f"tool '{tool.name}'", tool.name, Notes())
        except PolicyError:
            continue
        checks[tool.name] = ArgCheck(spec)
    return checks


def _new_cache(_: Policy) -> Cache:
    return {}


@rule(
    "ARH-SCH-015",
    Category.SCHEMA,
    Severity.ERROR,
    moment=Moment.PREVENTIVE,
    title="Call breaks the tool definition the agent was given",
    remediation="Make the agent call the tool as its recorded definition (the JSON Schema "
    "it was given) says, or fix the definition the agent is given.",
    applies=lambda p: p.tool_contracts == "recorded",
    since="1.2",
    counts=Counts.PER_CALL,
    compile=_new_cache,
)
class RecordedContract(RuleState):
    """One check per call of a tool with a recorded definition; a hit per broken part.
    A trace read a chunk of steps at a time has its metadata only at the end: its calls
    are kept until then (only with `tool_contracts: recorded`)."""

    __slots__ = ("pending",)

    def __init__(self, compiled: Cache) -> None:
        super().__init__(compiled)
        self.pending: list[tuple[int, Step]] = []

    def scan(self, ctx: RuleContext) -> None:
        calls = ctx.facts.calls
        if ctx.trace is None:
            self.pending += calls
            return
        self._check(recorded_checks(ctx.trace, self.compiled), calls)

    def finish(self, ctx: RuleContext) -> RuleResult:
        if self.pending:
            self._check(recorded_checks(ctx.trace, self.compiled), self.pending)
            self.pending = []
        return self.result

    def probe(self, ctx: RuleContext, index: int, step: Step) -> list[Hit]:
        check = recorded_checks(ctx.trace, self.compiled).get(step.tool_name or "")
        value = step.arguments or {}
        if check is None or passes(check, value):
            return []
        return _recorded(contract_hits(index, step, check, value, "arguments"))

    def _check(self, checks: dict[str, ArgCheck], calls: Any) -> None:
        if not checks:
            return
        result = self.result
        for index, step in calls:
            check = checks.get(step.tool_name or "")
            if check is None:
                continue
            result.checks += 1
            value = step.arguments or {}
            if not passes(check, value):
                result.hits += _recorded(contract_hits(index, step, check, value, "arguments"))


def _recorded(hits: list[Hit]) -> list[Hit]:
    return [
        Hit(
            h.step_index,
            f"recorded definition: {h.message}",
            h.expected,
            h.observed,
            h.step_id,
        )
        for h in hits
    ]
