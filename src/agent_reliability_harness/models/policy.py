"""Policy model (policy format v1) and its parser.

`Policy.from_dict` validates the whole policy up front (every regex compiled,
every bound and count checked), so evaluation never meets a bad policy. The
parsed policy is the compiled policy: build it once per run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..errors import PolicyError
from ..patterns import FullMatcher, PatternSet
from .common import (
    check_schema_version,
    finite_non_negative,
    is_number,
    located,
    non_negative_int,
    show,
    type_name,
)
from .types import KNOWN_TYPES

_ARG_SPEC_KEYS = ("type", "enum", "pattern", "min", "max")


@dataclass(frozen=True, slots=True)
class ArgSpec:
    """Contract for one tool argument."""

    type: str = "any"
    enum: tuple[Any, ...] | None = None
    pattern: FullMatcher | None = None
    min: float | None = None
    max: float | None = None

    @property
    def known_type(self) -> bool:
        return self.type in KNOWN_TYPES


@dataclass(frozen=True, slots=True)
class ToolSchema:
    name: str
    required_arguments: dict[str, ArgSpec] = field(default_factory=dict)
    optional_arguments: dict[str, ArgSpec] = field(default_factory=dict)
    side_effect: bool = False
    max_calls: int | None = None
    min_calls: int | None = None

    def spec_for(self, argument: str) -> ArgSpec | None:
        """The declared spec of an argument (required wins over optional), or None."""
        spec = self.required_arguments.get(argument)
        return spec if spec is not None else self.optional_arguments.get(argument)


@dataclass(frozen=True, slots=True)
class Budgets:
    max_step_latency_ms: float | None = None
    max_total_latency_ms: float | None = None
    max_total_cost_usd: float | None = None
    max_total_tokens: int | None = None

    @property
    def any_set(self) -> bool:
        return any(
            v is not None
            for v in (
                self.max_step_latency_ms,
                self.max_total_latency_ms,
                self.max_total_cost_usd,
                self.max_total_tokens,
            )
        )

    @property
    def latency_set(self) -> bool:
        return self.max_step_latency_ms is not None or self.max_total_latency_ms is not None


@dataclass(frozen=True, slots=True)
class Grounding:
    require_citations: bool = False
    min_citation_coverage: float | None = None
    require_valid_citation_urls: bool = False


@dataclass(frozen=True, slots=True)
class SequenceRules:
    required_tools: tuple[str, ...] = ()
    forbidden_tools: tuple[str, ...] = ()
    call_order: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ErrorHandling:
    require_retry_on_error: bool = False
    max_attempts: int | None = None


@dataclass(frozen=True, slots=True)
class Completion:
    require_final_response: bool = False
    max_steps: int | None = None


@dataclass(frozen=True, slots=True)
class AppliesTo:
    """`applies_to` (policy v1.1 section 3): per trace field, the globs one of which must
    match (fnmatch, case-sensitive); every listed field must match."""

    trace_id: tuple[str, ...] | None = None
    agent_name: tuple[str, ...] | None = None
    workflow: tuple[str, ...] | None = None
    task_id: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Policy:
    """A parsed, fully validated and compiled v1 policy."""

    policy_id: str
    schema_version: str = "1"
    allow_unlisted_tools: bool = False
    allowed_tools: dict[str, ToolSchema] = field(default_factory=dict)
    budgets: Budgets = field(default_factory=Budgets)
    unsafe_patterns: PatternSet = field(default_factory=lambda: PatternSet(()))
    grounding: Grounding = field(default_factory=Grounding)
    sequence: SequenceRules = field(default_factory=SequenceRules)
    error_handling: ErrorHandling = field(default_factory=ErrorHandling)
    completion: Completion = field(default_factory=Completion)
    # None: the policy applies to every trace.
    applies_to: AppliesTo | None = None

    @property
    def side_effect_tools(self) -> frozenset[str]:
        return frozenset(name for name, tool in self.allowed_tools.items() if tool.side_effect)

    @classmethod
    def from_dict(cls, data: Any) -> Policy:
        """Parse and compile a policy; raises PolicyError naming the offending field."""
        return parse_policy(data)


def _err(where: str, what: str) -> PolicyError:
    return PolicyError(located(f"policy {where}" if where else "policy", what))


def _section(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _err(key, f"must be an object (got {type_name(value)})")
    return value


def _bool(d: dict[str, Any], key: str, where: str) -> bool:
    value = d.get(key)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise _err(where, f"must be a boolean (got {type_name(value)})")
    return value


def _number(d: dict[str, Any], key: str, where: str) -> float | None:
    value = d.get(key)
    if value is None:
        return None
    try:
        return finite_non_negative(value)
    except ValueError as exc:
        raise _err(where, f"{exc} (got {_show(value)})") from None


def _int(d: dict[str, Any], key: str, where: str, minimum: int) -> int | None:
    value = d.get(key)
    if value is None:
        return None
    try:
        return non_negative_int(value, minimum)
    except ValueError as exc:
        raise _err(where, f"{exc} (got {_show(value)})") from None


def _show(value: object) -> str:
    return show(value, 60)


def _names(d: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = d.get(key)
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _err(where, f"must be an array of tool names (got {type_name(value)})")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise _err(f"{where}[{i}]", f"must be a string (got {type_name(item)})")
    return tuple(value)


def _dedupe(names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))


def _parse_arg_spec(raw: Any, where: str) -> ArgSpec:
    if isinstance(raw, str):
        return ArgSpec(type=raw)
    if not isinstance(raw, dict):
        raise _err(where, f"must be a type name or an object (got {type_name(raw)})")
    arg_type = raw.get("type", "any")
    if arg_type is None:
        arg_type = "any"
    if not isinstance(arg_type, str):
        raise _err(f"{where}.type", f"must be a type name string (got {type_name(arg_type)})")
    enum = raw.get("enum")
    if enum is not None and not isinstance(enum, list):
        raise _err(f"{where}.enum", f"must be a list (got {type_name(enum)})")
    pattern = raw.get("pattern")
    matcher = None
    if pattern is not None:
        if not isinstance(pattern, str):
            raise _err(f"{where}.pattern", f"must be a string (got {type_name(pattern)})")
        try:
            matcher = FullMatcher(pattern)
        except ValueError as exc:
            raise _err(f"{where}.pattern", f"{pattern!r} {exc}") from None
    bounds: dict[str, float | None] = {}
    for key in ("min", "max"):
        value = raw.get(key)
        if value is not None and (not is_number(value) or not math.isfinite(value)):
            raise _err(f"{where}.{key}", f"must be a finite number (got {_show(value)})")
        bounds[key] = value
    low, high = bounds["min"], bounds["max"]
    if low is not None and high is not None and low > high:
        raise _err(where, f"min ({_show(low)}) exceeds max ({_show(high)})")
    return ArgSpec(
        type=arg_type,
        enum=None if enum is None else tuple(enum),
        pattern=matcher,
        min=low,
        max=high,
    )


def _parse_args(raw: dict[str, Any], key: str, where: str) -> dict[str, ArgSpec]:
    value = raw.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _err(
            f"{where} {key}", f"must be an object of argument specs (got {type_name(value)})"
        )
    return {
        name: _parse_arg_spec(spec, f"{where} argument '{name}'") for name, spec in value.items()
    }


def _parse_tool(name: str, raw: Any) -> ToolSchema:
    where = f"tool '{name}'"
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise _err(where, f"must be an object (got {type_name(raw)})")
    side_effect = raw.get("side_effect")
    if side_effect is not None and not isinstance(side_effect, bool):
        raise _err(f"{where} side_effect", f"must be a boolean (got {type_name(side_effect)})")
    max_calls = _int(raw, "max_calls", f"{where} max_calls", 0)
    min_calls = _int(raw, "min_calls", f"{where} min_calls", 0)
    if max_calls is not None and min_calls is not None and min_calls > max_calls:
        raise _err(where, f"min_calls ({min_calls}) exceeds max_calls ({max_calls})")
    return ToolSchema(
        name=name,
        required_arguments=_parse_args(raw, "required_arguments", where),
        optional_arguments=_parse_args(raw, "optional_arguments", where),
        side_effect=bool(side_effect),
        max_calls=max_calls,
        min_calls=min_calls,
    )


def _parse_patterns(data: dict[str, Any]) -> PatternSet:
    raw = data.get("unsafe_patterns")
    if raw is None:
        return PatternSet(())
    if not isinstance(raw, list):
        raise _err("unsafe_patterns", f"must be a list of regex strings (got {type_name(raw)})")
    for i, pattern in enumerate(raw):
        if not isinstance(pattern, str):
            raise _err(f"unsafe_patterns[{i}]", f"must be a string (got {type_name(pattern)})")
        try:
            PatternSet((pattern,))
        except ValueError as exc:
            raise _err(f"unsafe_patterns[{i}]", f"{pattern!r} {exc}") from None
    return PatternSet(_dedupe(tuple(raw)))


def _parse_sequence(data: dict[str, Any]) -> SequenceRules:
    raw = _section(data, "sequence")
    required = _dedupe(_names(raw, "required_tools", "sequence.required_tools"))
    forbidden = _dedupe(_names(raw, "forbidden_tools", "sequence.forbidden_tools"))
    order = _names(raw, "call_order", "sequence.call_order")
    both = sorted(set(required) & set(forbidden))
    if both:
        raise _err("sequence", f"tool '{both[0]}' is both required and forbidden")
    seen: set[str] = set()
    for name in order:
        if name in seen:
            raise _err("sequence.call_order", f"tool '{name}' is listed more than once")
        seen.add(name)
    return SequenceRules(required_tools=required, forbidden_tools=forbidden, call_order=order)


def _parse_budgets(data: dict[str, Any]) -> Budgets:
    raw = _section(data, "budgets")
    return Budgets(
        max_step_latency_ms=_number(raw, "max_step_latency_ms", "budgets.max_step_latency_ms"),
        max_total_latency_ms=_number(raw, "max_total_latency_ms", "budgets.max_total_latency_ms"),
        max_total_cost_usd=_number(raw, "max_total_cost_usd", "budgets.max_total_cost_usd"),
        max_total_tokens=_int(raw, "max_total_tokens", "budgets.max_total_tokens", 0),
    )


def _parse_grounding(data: dict[str, Any]) -> Grounding:
    raw = _section(data, "grounding")
    coverage = _number(raw, "min_citation_coverage", "grounding.min_citation_coverage")
    if coverage is not None and coverage > 1:
        raise _err("grounding.min_citation_coverage", f"must be between 0 and 1 (got {coverage})")
    return Grounding(
        require_citations=_bool(raw, "require_citations", "grounding.require_citations"),
        min_citation_coverage=coverage,
        require_valid_citation_urls=_bool(
            raw, "require_valid_citation_urls", "grounding.require_valid_citation_urls"
        ),
    )


def parse_policy(data: Any) -> Policy:
    """Parse a policy object (a dict decoded from JSON) into a compiled Policy."""
    if not isinstance(data, dict):
        raise PolicyError(f"policy must be a JSON object (got {type_name(data)})")
    try:
        schema_version = check_schema_version(data.get("schema_version"), "policy")
    except ValueError as exc:
        raise PolicyError(str(exc)) from None
    policy_id = data.get("policy_id")
    if policy_id is None:
        raise _err("policy_id", "is required")
    if not isinstance(policy_id, str) or not policy_id:
        raise _err("policy_id", f"must be a non-empty string (got {_show(policy_id)})")
    tools = _section(data, "allowed_tools")
    flow = _section(data, "error_handling")
    completion = _section(data, "completion")
    return Policy(
        policy_id=policy_id,
        schema_version=schema_version,
        allow_unlisted_tools=_bool(data, "allow_unlisted_tools", "allow_unlisted_tools"),
        allowed_tools={name: _parse_tool(name, raw) for name, raw in tools.items()},
        budgets=_parse_budgets(data),
        unsafe_patterns=_parse_patterns(data),
        grounding=_parse_grounding(data),
        sequence=_parse_sequence(data),
        error_handling=ErrorHandling(
            require_retry_on_error=_bool(
                flow, "require_retry_on_error", "error_handling.require_retry_on_error"
            ),
            max_attempts=_int(flow, "max_attempts", "error_handling.max_attempts", 1),
        ),
        completion=Completion(
            require_final_response=_bool(
                completion, "require_final_response", "completion.require_final_response"
            ),
            max_steps=_int(completion, "max_steps", "completion.max_steps", 1),
        ),
    )
