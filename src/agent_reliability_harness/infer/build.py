"""From what good runs showed (learn.RunStats) to a policy v1.1 document: every constraint
holds in every good run by construction, and carries its evidence (how many runs and
calls support it) in the `description` of the object that holds it.

The choices (documented in docs/infer.md): tools seen are allowed and no other; an
argument present in every call is required; a type when every value has one JSON type;
an enum when at most 8 distinct scalars were each seen twice or more; else a pattern for
id-like strings; a range with a margin for numbers; side-effect candidates are tools never
called twice with identical arguments in a run (not named like a read); call counts,
call-order pairs, required tools, budgets and completion as `numbers.py` and `order.py` say.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .learn import ArgStats, RunStats, ToolStats
from .numbers import call_limit, json_number, text, widened
from .shapes import ShapeSummary

MIN_SUPPORT = 2  # runs (or calls) a constraint needs beyond the mere type of a value
# A tool named like a read is never a side-effect candidate, however it was called.
READ_VERBS = (
    "get", "list", "search", "find", "lookup", "look", "fetch", "read", "query", "check",
    "calculate", "compute", "view", "show", "describe", "think", "retrieve", "load",
)  # fmt: skip
_HEAD = re.compile(r"[A-Za-z][a-z]*")
_KINDS = ("string", "integer", "number", "boolean", "array", "object")


@dataclass(slots=True)
class Evidence:
    """The statements behind the constraints, by the path of the object holding them."""

    lines: list[tuple[str, str]] = field(default_factory=list)

    def say(self, path: str, statement: str, target: dict[str, Any] | None = None) -> None:
        """Record a statement; with `target`, append it to that object's description."""
        self.lines.append((path, statement))
        if target is not None:
            joined = target.get("description")
            target["description"] = statement if joined is None else f"{joined}; {statement}"


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _kind(arg: ArgStats) -> str | None:
    kinds = set(arg.types)
    if kinds == {"integer", "number"}:
        return "number"
    if len(kinds) == 1 and (kind := next(iter(kinds))) in _KINDS:
        return kind
    return None  # null, or several types: any


def _enum(arg: ArgStats, kind: str | None) -> list[Any] | None:
    if arg.open or not arg.values or arg.calls < 3 or min(arg.values.values()) < 2:
        return None
    if kind == "boolean" and len(arg.values) == 2:
        return None  # both booleans: the type says it all
    return [json.loads(key) for key in sorted(arg.values)]


def _pattern(arg: ArgStats, kind: str | None) -> str | None:
    if kind != "string" or arg.calls < MIN_SUPPORT or not (arg.open or len(arg.values) >= 2):
        return None
    shapes: ShapeSummary = arg.shapes
    return shapes.pattern()


def arg_spec(path: str, arg: ArgStats, tool: ToolStats, evidence: Evidence) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    where = (
        f"in all {arg.calls} calls"
        if arg.calls == tool.calls
        else (f"in {arg.calls} of {tool.calls} calls")
    )
    evidence.say(path, f"{where} ({arg.runs} runs)", spec)
    kind = _kind(arg)
    if kind is not None:
        spec["type"] = kind
        evidence.say(path, f"type {kind}: every value", spec)
    enum = _enum(arg, kind)
    if enum is not None:
        spec["enum"] = enum
        least = min(arg.values.values())
        evidence.say(path, f"enum of {_n(len(enum), 'value')}, each in {least} or more calls", spec)
        return spec
    pattern = _pattern(arg, kind)
    if pattern is not None:
        spec["pattern"] = pattern
        evidence.say(path, f"pattern {pattern}: every value is an id of this shape", spec)
    if kind in ("integer", "number") and arg.low is not None and arg.high is not None:
        bounds = widened(arg.low, arg.high, kind == "integer")
        if arg.calls >= MIN_SUPPORT and bounds is not None:
            spec["min"], spec["max"] = json_number(bounds[0]), json_number(bounds[1])
            evidence.say(
                path,
                f"range {text(bounds[0])}..{text(bounds[1])}: values {text(arg.low)}.."
                f"{text(arg.high)} widened by 25% of their spread",
                spec,
            )
    return spec


def _reads(name: str) -> bool:
    """Whether a tool's name starts with a read verb (`get_user`, `searchFlights`)."""
    head = _HEAD.match(name)
    return head is not None and head.group().lower() in READ_VERBS


def tool_schema(name: str, tool: ToolStats, runs: int, evidence: Evidence) -> dict[str, Any]:
    path = f"allowed_tools.{name}"
    schema: dict[str, Any] = {}
    evidence.say(path, f"called in {tool.runs} of {runs} good runs ({tool.calls} calls)", schema)
    required = {a: s for a, s in sorted(tool.args.items()) if s.calls == tool.calls}
    optional = {a: s for a, s in sorted(tool.args.items()) if s.calls != tool.calls}
    for key, group in (("required_arguments", required), ("optional_arguments", optional)):
        if group:
            schema[key] = {
                a: arg_spec(f"{path}.{key}.{a}", s, tool, evidence) for a, s in group.items()
            }
    if tool.runs >= MIN_SUPPORT and tool.repeated == 0 and not _reads(name):
        schema["side_effect"] = True
        evidence.say(
            f"{path}.side_effect",
            f"side-effect candidate: never called twice with identical arguments in a run "
            f"({tool.runs} runs); review",
            schema,
        )
    if tool.runs == runs and (tool.fewest or 0) >= 2:
        schema["min_calls"] = tool.fewest
        evidence.say(f"{path}.min_calls", f"min_calls {tool.fewest}: in every good run", schema)
    limit = call_limit(tool.most)
    schema["max_calls"] = limit
    margin = "" if limit == tool.most else " plus 25%"
    evidence.say(
        f"{path}.max_calls",
        f"max_calls {limit}: at most {_n(tool.most, 'call')} in a run{margin}",
        schema,
    )
    output = tool.output.spec() if tool.runs >= MIN_SUPPORT else None
    if output is not None:
        schema["output"], said = output
        evidence.say(f"{path}.output", said, schema)
    return schema


def allowed_tools(stats: RunStats, evidence: Evidence) -> dict[str, Any]:
    return {
        name: tool_schema(name, tool, stats.runs, evidence)
        for name, tool in sorted(stats.tools.items())
    }
