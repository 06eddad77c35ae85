"""From a decoded policy object to a compiled Policy, every field validated at load.

The order of the checks is the v1 order, so a policy with several problems reports
the same first one as before; v1.1 sections are checked after the v1 ones.
"""

from __future__ import annotations

from typing import Any

from ...errors import PolicyError
from ..common import check_schema_version, type_name
from .agents import parse_agents
from .args import parse_arg_specs
from .kinds import (
    expand_kind_names,
    named_kinds,
    parse_safety,
    parse_side_effect_kinds,
    parse_tool_kinds,
)
from .model import Budgets, Completion, ErrorHandling, Grounding, Policy, ToolSchema
from .notes import Notes, dotted
from .sections import (
    parse_applies_to,
    parse_dataflow,
    parse_sequence,
    parse_unsafe_patterns,
)
from .trajectory import parse_trajectory
from .v12 import parse_failed_when, parse_output, parse_preconditions, parse_repeats
from .v13 import parse_claims, parse_false_success
from .values import count, dedupe, err, flag, number, one_of, pattern_set, section, show, strings


def parse_policy(data: Any) -> Policy:
    """Parse a policy object (a dict decoded from JSON) into a compiled Policy."""
    return compile_policy(data, Notes())


def compile_policy(data: Any, notes: Notes) -> Policy:
    """`parse_policy`, adding the warnings about what the policy means to `notes`
    (unknown keys are found by `keys.warn_unknown_keys`, per file)."""
    if not isinstance(data, dict):
        raise PolicyError(f"policy must be a JSON object (got {type_name(data)})")
    try:
        schema_version = check_schema_version(data.get("schema_version"), "policy")
    except ValueError as exc:
        raise PolicyError(str(exc)) from None
    policy_id = data.get("policy_id")
    if policy_id is None:
        raise err("policy_id", "is required")
    if not isinstance(policy_id, str) or not policy_id:
        raise err("policy_id", f"must be a non-empty string (got {show(policy_id)})")
    if data.get("extends") is not None:
        raise err("extends", "only a policy file can extend others (load it with load_policy)")
    tool_kinds = parse_tool_kinds(data)
    final_kinds = named_kinds(data, "completion", "final_tools")
    final_written = tuple(str(n) for n in data["completion"]["final_tools"]) if final_kinds else ()
    data = expand_kind_names(data, tool_kinds)
    tools = section(data, "allowed_tools")
    section(data, "error_handling")
    section(data, "completion")
    allow_unlisted = flag(data, "allow_unlisted_tools", "allow_unlisted_tools")
    allowed = {name: _parse_tool(name, raw, notes) for name, raw in tools.items()}
    budgets = _parse_budgets(data)
    unsafe, scoped = parse_unsafe_patterns(data)
    grounding = _parse_grounding(data)
    sequence = parse_sequence(data)
    error_handling = _parse_error_handling(
        data, notes, any(t.side_effect for t in allowed.values())
    )
    completion = _parse_completion(data, notes, final_kinds, final_written)
    agents, allow_unlisted_agents = parse_agents(data, notes, compile_policy)
    return Policy(
        policy_id=policy_id,
        schema_version=schema_version,
        allow_unlisted_tools=allow_unlisted,
        allowed_tools=allowed,
        budgets=budgets,
        unsafe_patterns=unsafe,
        grounding=grounding,
        sequence=sequence,
        error_handling=error_handling,
        completion=completion,
        applies_to=parse_applies_to(data, notes),
        unsafe_scoped=scoped,
        trajectory=parse_trajectory(data, notes),
        dataflow=parse_dataflow(data),
        plugins=_parse_plugins(data),
        preconditions=parse_preconditions(data, notes),
        agents=agents,
        allow_unlisted_agents=allow_unlisted_agents,
        tool_contracts=_parse_tool_contracts(data),
        claims=parse_claims(data, notes),
        safety=parse_safety(data),
        tool_kinds=tool_kinds,
    )


TOOL_CONTRACTS = ("policy", "recorded")


def _parse_tool_contracts(data: dict[str, Any]) -> str:
    value = data.get("tool_contracts")
    if value is None:
        return "policy"
    if value not in TOOL_CONTRACTS:
        raise err("tool_contracts", f"must be 'policy' or 'recorded' (got {show(value)})")
    return str(value)


def _parse_plugins(data: dict[str, Any]) -> tuple[str, ...]:
    names = strings(data, "plugins", "plugins", "plugin names")
    for index, name in enumerate(names):
        if not name.strip():
            raise err(
                f"plugins[{index}]", f"must be a plugin's entry point name (got {show(name)})"
            )
    return dedupe(names)


def _parse_tool(name: str, raw: Any, notes: Notes) -> ToolSchema:
    where = f"tool '{name}'"
    path = dotted("allowed_tools", name)
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise err(where, f"must be an object (got {type_name(raw)})")
    side_effect = raw.get("side_effect")
    if side_effect is not None and not isinstance(side_effect, bool):
        raise err(f"{where} side_effect", f"must be a boolean (got {type_name(side_effect)})")
    max_calls = count(raw, "max_calls", f"{where} max_calls", 0)
    min_calls = count(raw, "min_calls", f"{where} min_calls", 0)
    if max_calls is not None and min_calls is not None and min_calls > max_calls:
        raise err(where, f"min_calls ({min_calls}) exceeds max_calls ({max_calls})")
    required = parse_arg_specs(raw, "required_arguments", where, path, notes)
    optional = parse_arg_specs(raw, "optional_arguments", where, path, notes)
    trust = one_of(raw, "trust", f"{where} trust", ("trusted", "untrusted"))
    sink = flag(raw, "sink", f"{where} sink")
    sink_arguments = None
    if raw.get("sink_arguments") is not None:
        sink_arguments = dedupe(
            strings(raw, "sink_arguments", f"{where} sink_arguments", "argument names")
        )
        if not sink:
            notes.warn(dotted(path, "sink_arguments"), "has no effect without 'sink: true'")
        elif not sink_arguments:
            notes.warn(dotted(path, "sink_arguments"), "is empty, so no argument is checked")
    output = parse_output(raw, where, path, notes)
    failed_when = parse_failed_when(raw, where)
    return ToolSchema(
        name=name,
        required_arguments=required,
        optional_arguments=optional,
        side_effect=bool(side_effect),
        max_calls=max_calls,
        min_calls=min_calls,
        untrusted=trust == "untrusted",
        sink=sink,
        sink_arguments=sink_arguments if sink else None,
        output=output,
        failed_when=failed_when,
    )


def _parse_budgets(data: dict[str, Any]) -> Budgets:
    raw = section(data, "budgets")
    return Budgets(
        max_step_latency_ms=number(raw, "max_step_latency_ms", "budgets.max_step_latency_ms"),
        max_total_latency_ms=number(raw, "max_total_latency_ms", "budgets.max_total_latency_ms"),
        max_total_cost_usd=number(raw, "max_total_cost_usd", "budgets.max_total_cost_usd"),
        max_total_tokens=count(raw, "max_total_tokens", "budgets.max_total_tokens", 0),
    )


def _parse_grounding(data: dict[str, Any]) -> Grounding:
    raw = section(data, "grounding")
    coverage = number(raw, "min_citation_coverage", "grounding.min_citation_coverage")
    if coverage is not None and coverage > 1:
        raise err("grounding.min_citation_coverage", f"must be between 0 and 1 (got {coverage})")
    return Grounding(
        require_citations=flag(raw, "require_citations", "grounding.require_citations"),
        min_citation_coverage=coverage,
        require_valid_citation_urls=flag(
            raw, "require_valid_citation_urls", "grounding.require_valid_citation_urls"
        ),
    )


def _parse_error_handling(data: dict[str, Any], notes: Notes, side_effects: bool) -> ErrorHandling:
    raw = section(data, "error_handling")
    patterns = pattern_set(raw, "error_output_patterns", "error_handling.error_output_patterns")
    kinds = parse_side_effect_kinds(raw)
    repeats, recorded = parse_repeats(raw, notes, side_effects or bool(kinds))
    return ErrorHandling(
        require_retry_on_error=flag(
            raw, "require_retry_on_error", "error_handling.require_retry_on_error"
        ),
        max_attempts=count(raw, "max_attempts", "error_handling.max_attempts", 1),
        error_output_patterns=patterns,
        max_identical_repeats=repeats,
        require_recorded_outcome=recorded,
        side_effect_kinds=kinds,
    )


def _parse_completion(
    data: dict[str, Any],
    notes: Notes,
    final_kinds: tuple[str, ...] = (),
    final_written: tuple[str, ...] = (),
) -> Completion:
    raw = section(data, "completion")
    required = flag(raw, "require_final_response", "completion.require_final_response")
    max_steps = count(raw, "max_steps", "completion.max_steps", 1)
    final_tools = dedupe(strings(raw, "final_tools", "completion.final_tools"))
    if final_tools and not required:
        notes.warn("completion.final_tools", "has no effect without 'require_final_response: true'")
    return Completion(
        require_final_response=required,
        max_steps=max_steps,
        final_tools=final_tools,
        false_success=parse_false_success(raw, notes),
        final_kinds=final_kinds,
        final_written=dedupe(final_written),
    )
