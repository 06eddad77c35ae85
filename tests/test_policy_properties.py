"""Invariances of policy loading: v1 policies parse as before, an empty child changes
nothing, YAML and JSON spellings agree, and one typo gives exactly one warning."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import policy_v1_reference as v1
from agent_reliability_harness.errors import PolicyError
from agent_reliability_harness.models.policy import (
    Policy,
    check_policy,
    load_policy,
    parse_policy,
)
from agent_reliability_harness.models.policy.keys import POLICY, Items, Names, Obj
from policy_strategies import JSON_VALUES, to_yaml, valid_policies

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ------------------------------------------------------------------ v1 as before

V1_TYPES = st.sampled_from(["str", "int", "float", "bool", "list", "dict", "any", "uuid", 3, None])
BOUNDS = st.sampled_from([0, 1.5, -2, 7, None, "1", True, 10**309])
V1_ARG = st.one_of(
    V1_TYPES,
    st.fixed_dictionaries(
        {},
        optional={
            "type": V1_TYPES,
            "enum": st.sampled_from([["a", 1], [], "a", None, [True, 1.0]]),
            "pattern": st.sampled_from(["a+", "[0-9]{3}", "(", None, 5, r"x\Z"]),
            "min": BOUNDS,
            "max": BOUNDS,
            "future": st.just(1),
        },
    ),
)
V1_TOOL = st.one_of(
    st.none(),
    st.sampled_from([[], "x"]),
    st.fixed_dictionaries(
        {},
        optional={
            "required_arguments": st.one_of(
                st.dictionaries(st.sampled_from(["a", "b"]), V1_ARG, max_size=2),
                st.sampled_from([None, [], "a"]),
            ),
            "optional_arguments": st.dictionaries(st.sampled_from(["b", "c"]), V1_ARG, max_size=2),
            "side_effect": st.sampled_from([True, False, None, "yes"]),
            "max_calls": st.sampled_from([0, 2, None, -1, 1.5, True, 3.0]),
            "min_calls": st.sampled_from([0, 1, 3, None]),
        },
    ),
)
NAME_LISTS = st.sampled_from([["a"], [], None, "a", [1], ["a", "a"], ["b", "c"]])
V1_POLICIES = st.fixed_dictionaries(
    {"policy_id": st.sampled_from(["p", "p", "p", "", 7, None])},
    optional={
        "schema_version": st.sampled_from(["1", "1.1", "2", 1, None]),
        "allow_unlisted_tools": st.sampled_from([True, False, None, "no"]),
        "allowed_tools": st.one_of(
            st.dictionaries(st.sampled_from(["x", "y"]), V1_TOOL, max_size=2),
            st.sampled_from([None, [], "x"]),
        ),
        "budgets": st.one_of(
            st.sampled_from([None, 3]),
            st.fixed_dictionaries(
                {},
                optional={
                    "max_step_latency_ms": st.sampled_from([0, 10.5, -1, None]),
                    "max_total_cost_usd": st.sampled_from([0, 0.5, -1, None, "1", 10**309]),
                    "max_total_tokens": st.sampled_from([0, 100, 1.5, -1, None, 2**63]),
                },
            ),
        ),
        "unsafe_patterns": st.sampled_from([[], ["a+"], ["("], [1], "a", None, ["a", "a", "b"]]),
        "grounding": st.fixed_dictionaries(
            {},
            optional={
                "min_citation_coverage": st.sampled_from([0, 0.5, 1, 1.5, -0.1, None]),
                "require_citations": st.sampled_from([True, None, 1]),
                "require_valid_citation_urls": st.sampled_from([True, False]),
            },
        ),
        "sequence": st.fixed_dictionaries(
            {},
            optional={
                "required_tools": NAME_LISTS,
                "forbidden_tools": NAME_LISTS,
                "call_order": st.sampled_from([["a", "b"], ["a", "a"], None, [2], [], "a"]),
            },
        ),
        "error_handling": st.fixed_dictionaries(
            {},
            optional={
                "max_attempts": st.sampled_from([1, 3, 0, None, 2.5]),
                "require_retry_on_error": st.sampled_from([True, "x"]),
            },
        ),
        "completion": st.fixed_dictionaries(
            {},
            optional={
                "max_steps": st.sampled_from([1, 0, None, "5"]),
                "require_final_response": st.sampled_from([True, False, "yes"]),
            },
        ),
        "future_section": st.just({"x": 1}),
    },
)


_LONG_NUMBER = re.compile(r"[0-9]{41,}")


def _spec_view(spec: Any) -> tuple[Any, ...]:
    pattern = None if spec.pattern is None else spec.pattern.pattern
    return (spec.type, spec.enum, pattern, spec.min, spec.max)


def _v1_view(policy: Any) -> tuple[Any, ...]:
    """Every v1 field of a policy (new or reference), as plain values."""
    tools = {
        name: (
            tool.name,
            {a: _spec_view(s) for a, s in tool.required_arguments.items()},
            {a: _spec_view(s) for a, s in tool.optional_arguments.items()},
            tool.side_effect,
            tool.max_calls,
            tool.min_calls,
        )
        for name, tool in policy.allowed_tools.items()
    }
    return (
        policy.policy_id,
        policy.schema_version,
        policy.allow_unlisted_tools,
        tools,
        _budgets(policy),
        policy.unsafe_patterns.patterns,
        (
            policy.grounding.require_citations,
            policy.grounding.min_citation_coverage,
            policy.grounding.require_valid_citation_urls,
        ),
        policy.sequence.required_tools,
        policy.sequence.forbidden_tools,
        policy.sequence.call_order,
        policy.error_handling.require_retry_on_error,
        policy.error_handling.max_attempts,
        policy.completion.require_final_response,
        policy.completion.max_steps,
        policy.side_effect_tools,
    )


def _budgets(policy: Any) -> tuple[Any, ...]:
    b = policy.budgets
    return (b.max_step_latency_ms, b.max_total_latency_ms, b.max_total_cost_usd, b.max_total_tokens)


@SETTINGS
@given(V1_POLICIES)
def test_v1_policies_parse_as_before(value: dict[str, Any]) -> None:
    """Same fields, or the same error. Documented differences: a non-string pattern entry's
    message now says objects are allowed, an integer of over 40 digits is shown by its
    length, and a bound no float holds (10**309), which crashed v1, is an error naming
    the field (issue 18)."""
    try:
        old: Any = v1.parse_policy(value)
    except PolicyError as exc:
        old = ("error", _LONG_NUMBER.sub(lambda m: f"an integer of {len(m[0])} digits", str(exc)))
    except OverflowError:
        old = ("crash",)
    try:
        new: Any = parse_policy(value)
    except PolicyError as exc:
        new = ("error", str(exc).replace("must be a string or an object", "must be a string"))
    if old == ("crash",):
        assert new[0] == "error" and "must be a finite number" in new[1], new
    elif isinstance(old, tuple):
        assert new == old
    else:
        assert isinstance(new, Policy), new
        assert _v1_view(old) == _v1_view(new)


# ------------------------------------------------------------------ extends, YAML


@SETTINGS
@given(valid_policies())
def test_extending_by_an_empty_child_changes_nothing(value: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder) / "base.json"
        base.write_text(json.dumps(value), encoding="utf-8")
        child = Path(folder) / "child.yaml"
        child.write_text(f"policy_id: {json.dumps(value['policy_id'])}\nextends: base.json\n")
        loaded, extended = load_policy(base), load_policy(child)
    assert extended.policy == loaded.policy
    assert [(w.path, w.message) for w in extended.warnings] == [
        (w.path, w.message) for w in loaded.warnings
    ]


@SETTINGS
@given(valid_policies(), st.booleans())
def test_yaml_and_json_spellings_give_identical_policies(
    value: dict[str, Any], plain: bool
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        as_json = Path(folder) / "p.json"
        as_json.write_text(json.dumps(value, indent=2), encoding="utf-8")
        block = Path(folder) / "block.yaml"
        block.write_text(to_yaml(value, plain) + "\n", encoding="utf-8")
        flow = Path(folder) / "flow.yml"
        flow.write_text(json.dumps(value), encoding="utf-8")  # JSON is YAML 1.2
        policies = [load_policy(path).policy for path in (as_json, block, flow)]
    assert policies[0] == policies[1] == policies[2]


@SETTINGS
@given(JSON_VALUES, st.booleans())
def test_yaml_reads_any_json_value_back(value: Any, plain: bool) -> None:
    from agent_reliability_harness.models.policy.yaml_ import decode_yaml  # noqa: PLC0415

    assert decode_yaml(to_yaml(value, plain) + "\n") == value
    assert decode_yaml(json.dumps(value)) == value


# ------------------------------------------------------------------ one typo, one warning

_REQUIRED = {"policy_id", "expected", "tool", "pattern", "name", "when", "requires", "in"}


def _key_places(value: Any, node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths (as key/index tuples) of every known, optional key in `value`."""
    found: list[tuple[Any, ...]] = []
    if isinstance(node, Obj) and isinstance(value, dict):
        for key, child in value.items():
            if key in node.fields:
                if key not in _REQUIRED:
                    found.append((*path, key))
                found += _key_places(child, node.fields[key], (*path, key))
    elif isinstance(node, Names) and isinstance(value, dict):
        for key, child in value.items():
            found += _key_places(child, node.value, (*path, key))
    elif isinstance(node, Items) and isinstance(value, list):
        for i, child in enumerate(value):
            found += _key_places(child, node.of, (*path, i))
    return found


def _typo(draw: st.DrawFn, key: str) -> str:
    kind = draw(st.sampled_from(["drop", "double", "swap", "change"]))
    i = draw(st.integers(0, len(key) - 1))
    if kind == "drop" and len(key) > 1:
        return key[:i] + key[i + 1 :]
    if kind == "double":
        return key[:i] + key[i] + key[i:]
    if kind == "swap" and i + 1 < len(key) and key[i] != key[i + 1]:
        return key[:i] + key[i + 1] + key[i] + key[i + 2 :]
    return key[:i] + draw(st.sampled_from("qz")) + key[i + 1 :]


@st.composite
def one_typo(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    value = draw(valid_policies())
    places = _key_places(value, POLICY)
    if not places:
        value["budgets"] = {"max_total_tokens": 5}
        places = [("budgets",), ("budgets", "max_total_tokens")]
    place = draw(st.sampled_from(places))
    holder: Any = value
    for part in place[:-1]:
        holder = holder[part]
    key = place[-1]
    new = _typo(draw, key)
    if new == key or new in holder or new.startswith("x-"):
        new = key + "q"
    holder[new] = holder.pop(key)
    rendered = ""
    for part in (*place[:-1], new):
        if isinstance(part, int):
            rendered += f"[{part}]"
        else:
            from agent_reliability_harness.models.policy.notes import dotted  # noqa: PLC0415

            rendered = dotted(rendered, part)
    return value, rendered


@SETTINGS
@given(one_typo())
def test_a_typo_in_any_key_gives_exactly_one_warning_naming_it(
    case: tuple[dict[str, Any], str],
) -> None:
    value, path = case
    loaded = check_policy(value)
    unknown = [w for w in loaded.warnings if w.message.startswith("unknown key")]
    assert [w.path for w in unknown] == [path]
    assert sum(1 for w in loaded.warnings if w.path == path) == 1


@SETTINGS
@given(valid_policies())
def test_valid_policies_load_without_warnings(value: dict[str, Any]) -> None:
    assert check_policy(value, strict=True).warnings == ()
