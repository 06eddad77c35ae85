"""schemas/policy.schema.json accepts exactly what the strict parser accepts: the same
keys at every place, and (hypothesis, both directions) the same verdict on mutated
policies, except for the checks JSON Schema cannot express, which the schema lists."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from agent_reliability_harness.errors import PolicyError
from agent_reliability_harness.models.policy import check_policy
from agent_reliability_harness.models.policy.keys import ANNOTATIONS, POLICY, Items, Names, Obj
from helpers import ROOT, SAMPLES
from policy_strategies import valid_policies

SCHEMA = json.loads((ROOT / "schemas" / "policy.schema.json").read_text(encoding="utf-8"))
VALIDATOR = Draft202012Validator(SCHEMA)
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# What only the parser checks (the schema's description names each): a schema-valid
# policy may still be refused, or warned about, for these.
PARSER_ONLY = (
    "exceeds",  # min > max, min_length > max_length, min_calls > max_calls
    "is both required and forbidden",
    "the chains form a cycle",
    "so no call could ever match it",
    "is not a valid regular expression",
    "nests",
    "has no group named",  # policy v1.3: a `same` key of a claim names a group of `when`
    "is already claims[",  # claim names are unique
    # Warnings about what a valid key means (strict refuses them; JSON Schema cannot see them).
    "unknown type",
    "has no effect without",
    "applies only to",
    "an empty list matches no trace",
    "is empty, so no argument is checked",
    "is empty, so no call is checked",
    "is never compared",
)


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if ref is not None:
        found: Any = SCHEMA
        for part in ref.removeprefix("#/").split("/"):  # "#/$defs/x", "#/properties/x"
            found = found[part]
        return _resolve(found)
    return node


def _object_branch(node: dict[str, Any]) -> dict[str, Any] | None:
    node = _resolve(node)
    if "properties" in node:
        return node
    for key in ("oneOf", "anyOf"):
        for branch in node.get(key, ()):
            found = _object_branch(branch)
            if found is not None and ("properties" in found or "additionalProperties" in found):
                return found
    if "additionalProperties" in node and isinstance(node["additionalProperties"], dict):
        return node
    return None


def _array_items(node: dict[str, Any]) -> dict[str, Any] | None:
    node = _resolve(node)
    if "items" in node:
        return node["items"]  # type: ignore[no-any-return]
    for key in ("oneOf", "anyOf"):
        for branch in node.get(key, ()):
            found = _array_items(branch)
            if found is not None:
                return found
    return None


def _compare(
    node: Any, schema: dict[str, Any], path: str, problems: list[str], seen: set[Any]
) -> None:
    if (id(node), id(_resolve(schema))) in seen:  # the argument spec nests itself
        return
    seen.add((id(node), id(_resolve(schema))))
    if isinstance(node, Obj):
        branch = _object_branch(schema)
        assert branch is not None, path
        declared = set(branch["properties"]) - ANNOTATIONS
        if declared != set(node.fields):
            problems.append(
                f"{path or '<root>'}: schema {sorted(declared)} != parser {sorted(node.fields)}"
            )
        assert branch.get("additionalProperties") is False, path
        assert branch.get("patternProperties") == {"^x-": True}, path
        for key, child in node.fields.items():
            if child is not None and key in branch["properties"]:
                _compare(child, branch["properties"][key], f"{path}.{key}", problems, seen)
    elif isinstance(node, Names):
        branch = _object_branch(schema)
        assert branch is not None and isinstance(branch.get("additionalProperties"), dict), path
        _compare(node.value, branch["additionalProperties"], f"{path}.*", problems, seen)
    elif isinstance(node, Items):
        items = _array_items(schema)
        assert items is not None, path
        _compare(node.of, items, f"{path}[]", problems, seen)


def test_schema_declares_the_parsers_keys_everywhere() -> None:
    problems: list[str] = []
    _compare(POLICY, SCHEMA, "", problems, set())
    assert not problems, problems


def test_samples_follow_the_schema() -> None:
    from agent_reliability_harness.models.policy.yaml_ import decode_yaml  # noqa: PLC0415

    for path in sorted((SAMPLES / "policies").rglob("*")):
        if path.suffix == ".json":
            VALIDATOR.validate(json.loads(path.read_text()))
        elif path.suffix in (".yaml", ".yml"):
            VALIDATOR.validate(decode_yaml(path.read_text()))


FIELD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([0, 1, -1, 2.5, 10**309, 2**63, 1e308, "", "x", "str", "string", "(", "a+"]),
    st.sampled_from(
        ["strict", "subset", "exact", "untrusted", "text", "outputs", "*", "get_*", "1.1", "2"]
    ),
    st.lists(st.sampled_from(["a", "b", "text", 1, "("]), max_size=3),
    st.lists(st.lists(st.sampled_from(["a", "b", "c"]), max_size=3), max_size=2),
    st.dictionaries(
        st.sampled_from(["a", "tool", "pattern", "type", "x-a"]), st.integers(0, 3), max_size=2
    ),
    st.fixed_dictionaries({"tool": st.sampled_from(["a", "get_x"])}),
)
KEYS = st.sampled_from(
    [
        "tool",
        "type",
        "items",
        "sink",
        "trust",
        "in",
        "min",
        "max_length",
        "expected",
        "zzz",
        "x-ok",
        "description",
    ]
)


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _places(child, (*path, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            found += _places(child, (*path, i))
    return found


@st.composite
def mutated_policies(draw: st.DrawFn) -> Any:
    value: Any = copy.deepcopy(draw(valid_policies()))
    for _ in range(draw(st.integers(0, 3))):
        place = draw(st.sampled_from(_places(value)))
        holder: Any = value
        for part in place:
            holder = holder[part]
        action = draw(st.sampled_from(["set", "add", "drop"]))
        if isinstance(holder, dict) and action == "add":
            holder[draw(KEYS)] = draw(FIELD_VALUES)
        elif place and action == "drop":
            parent: Any = value
            for part in place[:-1]:
                parent = parent[part]
            parent.pop(place[-1])
        elif place:
            parent = value
            for part in place[:-1]:
                parent = parent[part]
            parent[place[-1]] = draw(FIELD_VALUES)
    if isinstance(value, dict):
        value.pop("extends", None)  # only files extend (test_policy_load.py)
    return value


def _strict_verdict(value: Any) -> tuple[bool, str]:
    try:
        check_policy(value, strict=True)
    except PolicyError as exc:
        return False, str(exc)
    return True, ""


@SETTINGS
@given(mutated_policies())
def test_schema_and_strict_parser_agree(value: Any) -> None:
    parsed, message = _strict_verdict(value)
    if VALIDATOR.is_valid(value):
        assert parsed or any(reason in message for reason in PARSER_ONLY), message
    else:
        errors = sorted(e.message for e in VALIDATOR.iter_errors(value))
        assert not parsed, errors


@SETTINGS
@given(valid_policies())
def test_valid_policies_follow_the_schema(value: dict[str, Any]) -> None:
    VALIDATOR.validate(value)
