"""The list-shaped sections: scoped `unsafe_patterns`, `call_order` chains, `applies_to`
and `dataflow` (policy v1.1 sections 3, 4 and 6)."""

from __future__ import annotations

import itertools
from typing import Any

from ...patterns import GlobSet, PatternSet
from ..common import type_name
from .model import (
    BLOB_KINDS,
    DEFAULT_MIN_VALUE_LENGTH,
    DEFAULT_TAINT_WINDOW,
    AppliesTo,
    Dataflow,
    ScopedPatterns,
    SequenceRules,
    UnsafePattern,
)
from .notes import Notes
from .values import count, dedupe, err, flag, pattern_list, section, show, strings


def parse_unsafe_patterns(data: dict[str, Any]) -> tuple[PatternSet, ScopedPatterns | None]:
    """Every pattern as one set, and the per-blob sets when any entry is scoped."""
    raw = data.get("unsafe_patterns")
    if raw is None:
        return PatternSet(()), None
    if not isinstance(raw, list):
        raise err("unsafe_patterns", f"must be a list of regex strings (got {type_name(raw)})")
    entries = [_unsafe_entry(item, f"unsafe_patterns[{i}]") for i, item in enumerate(raw)]
    union = PatternSet(dedupe(tuple(e.pattern for e in entries)))
    if all(e.unscoped for e in entries):
        return union, None
    return union, ScopedPatterns(tuple(dict.fromkeys(entries)))


def _unsafe_entry(item: Any, where: str) -> UnsafePattern:
    if isinstance(item, dict):
        pattern = item.get("pattern")
        if pattern is None:
            raise err(f"{where}.pattern", "is required")
        if not isinstance(pattern, str):
            raise err(f"{where}.pattern", f"must be a string (got {type_name(pattern)})")
        where_pattern = f"{where}.pattern"
    elif isinstance(item, str):
        pattern, where_pattern = item, where
    else:
        raise err(where, f"must be a string or an object (got {type_name(item)})")
    try:
        PatternSet((pattern,))
    except ValueError as exc:
        raise err(where_pattern, f"{pattern!r} {exc}") from None
    if not isinstance(item, dict):
        return UnsafePattern(pattern)
    scopes: tuple[str, ...] = BLOB_KINDS
    if item.get("in") is not None:
        named = set(strings(item, "in", f"{where}.in", "blob kinds"))
        unknown = sorted(named - set(BLOB_KINDS))
        if unknown or not named:
            got = show(unknown[0]) if unknown else "an empty list"
            raise err(f"{where}.in", f"must list some of {', '.join(BLOB_KINDS)} (got {got})")
        scopes = tuple(kind for kind in BLOB_KINDS if kind in named)
    tools = None
    if item.get("tools") is not None:
        tools = tuple(sorted(set(strings(item, "tools", f"{where}.tools"))))
        if not tools:
            raise err(f"{where}.tools", "must name at least one tool (omit it for every tool)")
    return UnsafePattern(pattern, scopes, tools)


def parse_sequence(data: dict[str, Any]) -> SequenceRules:
    raw = section(data, "sequence")
    required = dedupe(strings(raw, "required_tools", "sequence.required_tools"))
    forbidden = dedupe(strings(raw, "forbidden_tools", "sequence.forbidden_tools"))
    chains, single = _chains(raw.get("call_order"))
    both = sorted(set(required) & set(forbidden))
    if both:
        raise err("sequence", f"tool '{both[0]}' is both required and forbidden")
    for i, chain in enumerate(chains):
        _check_repeats(chain, "sequence.call_order" if single else f"sequence.call_order[{i}]")
    pairs = _pairs(chains)
    return SequenceRules(
        required_tools=required,
        forbidden_tools=forbidden,
        call_order=chains[0] if single else (),
        call_order_chains=chains,
        call_order_pairs=pairs,
    )


def _chains(raw: Any) -> tuple[tuple[tuple[str, ...], ...], bool]:
    """The chains of `call_order`, and whether it was written as one (v1) chain."""
    where = "sequence.call_order"
    if raw is None:
        return (), False
    if not isinstance(raw, list):
        raise err(where, f"must be an array of tool names (got {type_name(raw)})")
    single = not raw or not isinstance(raw[0], list)
    lists = [raw] if single else raw
    chains = []
    for i, chain in enumerate(lists):
        at = where if single else f"{where}[{i}]"
        if not isinstance(chain, list):
            raise err(
                at, f"must be a list of tool names, like the other chains (got {type_name(chain)})"
            )
        chains.append(strings({"c": chain}, "c", at))
    return tuple(chains), single


def _check_repeats(chain: tuple[str, ...], where: str) -> None:
    seen: set[str] = set()
    for name in chain:
        if name in seen:
            raise err(where, f"tool '{name}' is listed more than once")
        seen.add(name)


def _pairs(chains: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, str], ...]:
    pairs: dict[tuple[str, str], None] = {}
    for chain in chains:
        for i, before in enumerate(chain):
            for after in chain[i + 1 :]:
                pairs[(before, after)] = None
    cycle = _cycle(chains)
    if cycle:
        raise err("sequence.call_order", f"the chains form a cycle: {' -> '.join(cycle)}")
    return tuple(pairs)


def _cycle(chains: tuple[tuple[str, ...], ...]) -> list[str]:
    """A cycle of the graph whose edges join neighbours in a chain (the pairs' graph has
    one exactly when this one does), found deterministically; [] when there is none."""
    edges: dict[str, list[str]] = {}
    for chain in chains:
        for before, after in itertools.pairwise(chain):
            edges.setdefault(before, [])
            if after not in edges[before]:
                edges[before].append(after)
            edges.setdefault(after, [])
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start, following in edges.items():
        if start in state:
            continue
        path, stack = [start], [iter(following)]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(edges[nxt]))
    return []


def parse_applies_to(data: dict[str, Any], notes: Notes) -> AppliesTo | None:
    raw = section(data, "applies_to")
    if not raw:
        return None
    fields: dict[str, tuple[str, ...] | None] = {}
    for key in ("trace_id", "agent_name", "workflow", "task_id"):
        where = f"applies_to.{key}"
        fields[key] = None if raw.get(key) is None else strings(raw, key, where, "globs")
        if fields[key] == ():
            notes.warn(where, "an empty list matches no trace, so the policy judges none")
    if all(value is None for value in fields.values()):
        return None
    return AppliesTo(**fields)


def parse_dataflow(data: dict[str, Any]) -> Dataflow:
    raw = section(data, "dataflow")
    if not raw:
        return Dataflow()
    patterns, searchers = pattern_list(raw, "untrusted_if", "dataflow.untrusted_if")
    min_length = count(raw, "min_value_length", "dataflow.min_value_length", 1)
    window = count(raw, "taint_window", "dataflow.taint_window", 1)
    grounded = dedupe(strings(raw, "grounded_arguments", "dataflow.grounded_arguments"))
    return Dataflow(
        untrusted_to_sink=flag(raw, "untrusted_to_sink", "dataflow.untrusted_to_sink"),
        grounded_arguments=grounded,
        min_value_length=DEFAULT_MIN_VALUE_LENGTH if min_length is None else min_length,
        untrusted_if=searchers,
        untrusted_screen=PatternSet(patterns),
        taint_window=DEFAULT_TAINT_WINDOW if window is None else window,
        trusted_values=GlobSet(
            dedupe(strings(raw, "trusted_values", "dataflow.trusted_values", "globs")),
            case_sensitive=False,
        ),
    )
