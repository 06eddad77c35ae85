"""Hypothesis strategies for policies: valid v1.1 policies, v1-only policies (valid and
not), and a YAML writer that spells a JSON value in YAML 1.2 in several styles."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import strategies as st

NAMES = st.sampled_from(["lookup", "refund", "send_email", "get_user", "a.b", "x y"])
ARG_NAMES = st.sampled_from(["order_id", "amount", "to", "items", "dob"])
TYPES = st.sampled_from(["str", "int", "float", "bool", "list", "dict", "any", "string", "number"])
PATTERNS = st.sampled_from(["ORD-[0-9]{4}", "secret", r"\bssn\b", "^x$", "[a-z]+"])
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**6),
    st.floats(-1e6, 1e6, allow_nan=False),
    st.text(st.sampled_from("abz09 -_.:#'\"\\é\n"), max_size=8),
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["k", "v", "yes", "1", "a b"]), inner, max_size=3)
    ),
    max_leaves=8,
)


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


@st.composite
def arg_specs(draw: st.DrawFn, depth: int = 0) -> Any:
    """A valid argument spec (bare or object, nested up to two levels)."""
    if draw(st.booleans()):
        return draw(TYPES)
    low = draw(st.none() | st.integers(0, 5))
    high = None if low is None else draw(st.none() | st.integers(low, low + 10))
    min_length = draw(st.none() | st.integers(0, 3))
    spec: dict[str, Any] = {
        # Every v1.1 key applies to `any`, so the spec has no warning.
        "type": draw(st.none() | st.just("any")),
        "enum": draw(st.none() | st.lists(SCALARS, max_size=3)),
        "pattern": draw(st.none() | PATTERNS),
        "min": low,
        "max": high,
        "not_pattern": draw(st.none() | PATTERNS),
        "min_length": min_length,
        "max_length": None if min_length is None else draw(st.none() | st.just(min_length + 2)),
        "grounded": draw(st.none() | st.booleans()),
    }
    if depth < 2 and draw(st.booleans()):
        spec["items"] = draw(arg_specs(depth + 1))
    if depth < 2 and draw(st.booleans()):
        spec["properties"] = draw(st.dictionaries(ARG_NAMES, arg_specs(depth + 1), max_size=2))
        spec["required"] = draw(st.lists(ARG_NAMES, max_size=2))
    return _drop_none(spec)


@st.composite
def tools(draw: st.DrawFn) -> dict[str, Any]:
    low = draw(st.none() | st.integers(0, 3))
    sink = draw(st.booleans())
    return _drop_none(
        {
            "required_arguments": draw(
                st.none() | st.dictionaries(ARG_NAMES, arg_specs(), max_size=2)
            ),
            "optional_arguments": draw(
                st.none() | st.dictionaries(ARG_NAMES, arg_specs(), max_size=2)
            ),
            "side_effect": draw(st.none() | st.booleans()),
            "min_calls": low,
            "max_calls": None if low is None else draw(st.none() | st.integers(low, 5)),
            "trust": draw(st.none() | st.sampled_from(["trusted", "untrusted"])),
            "sink": sink or None,
            "sink_arguments": draw(st.lists(ARG_NAMES, min_size=1, max_size=2))
            if sink and draw(st.booleans())
            else None,
        }
    )


UNSAFE = st.one_of(
    PATTERNS,
    st.builds(
        lambda p, scopes, tool_list: _drop_none({"pattern": p, "in": scopes, "tools": tool_list}),
        PATTERNS,
        st.none() | st.lists(st.sampled_from(["text", "arguments", "output", "error"]), min_size=1),
        st.none() | st.lists(NAMES, min_size=1, max_size=2),
    ),
)


@st.composite
def trajectories(draw: st.DrawFn) -> dict[str, Any]:
    modes = st.none() | st.sampled_from(["exact", "subset", "ignore"])
    expected = draw(
        st.lists(
            st.builds(
                lambda tool, args, match, optional: _drop_none(
                    {
                        "tool": tool,
                        "arguments": args,
                        "arguments_match": match,
                        "optional": optional,
                    }
                ),
                st.sampled_from(["book", "cancel", "refund"]),
                st.none() | st.dictionaries(ARG_NAMES, JSON_VALUES, max_size=2),
                st.none() | st.sampled_from(["exact", "subset"]),
                st.none() | st.booleans(),
            ),
            max_size=3,
        )
    )
    return _drop_none(
        {
            "expected": expected,
            "match": draw(
                st.none()
                | st.sampled_from(["strict", "in_order", "unordered", "superset", "subset"])
            ),
            "arguments_match": draw(modes.filter(lambda m: m != "ignore")),
            "ignore_tools": draw(st.none() | st.lists(st.sampled_from(["get_*", "list_?"]))),
            "ignore_arguments": draw(st.none() | st.lists(ARG_NAMES, max_size=2)),
        }
    )


# Policy v1.3 claims (section 1), each valid on its own.
CLAIMS = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["refund issued", "booked"]),
        "when": st.sampled_from([r"(?i)refund.*\$(?P<amount>[0-9.,]+)", "booked"]),
        "requires": st.one_of(NAMES, st.lists(NAMES, min_size=1, max_size=2)),
    },
    optional={
        "unless": st.sampled_from([r"(?i)\bnot\b", "failed"]),
        "values": st.lists(
            st.fixed_dictionaries(
                {"pattern": st.just("([A-Z]{3}[0-9]{3})"), "in": st.just("flights.*.number")}
            ),
            max_size=1,
        ),
        "scope": st.sampled_from(["final", "all"]),
    },
)


@st.composite
def valid_policies(draw: st.DrawFn) -> dict[str, Any]:
    """A valid policy using every section, each optional; it loads without warnings."""
    required_tools = draw(st.lists(st.sampled_from(["a", "b"]), max_size=2))
    final = draw(st.booleans())
    sections: dict[str, Any] = {
        "schema_version": st.sampled_from(["1", "1.1"]),
        "applies_to": st.fixed_dictionaries(
            {}, optional={"workflow": st.lists(st.sampled_from(["wf-*", "refund"]), min_size=1)}
        ),
        "allow_unlisted_tools": st.booleans(),
        "allowed_tools": st.dictionaries(NAMES, tools(), max_size=3),
        "budgets": st.fixed_dictionaries(
            {},
            optional={
                "max_step_latency_ms": st.integers(0, 10**4),
                "max_total_cost_usd": st.floats(0, 5),
                "max_total_tokens": st.integers(0, 10**6),
            },
        ),
        "unsafe_patterns": st.lists(UNSAFE, max_size=3),
        "grounding": st.fixed_dictionaries(
            {},
            optional={
                "require_citations": st.booleans(),
                "min_citation_coverage": st.floats(0, 1),
            },
        ),
        "sequence": st.fixed_dictionaries(
            {},
            optional={
                "required_tools": st.just(required_tools),
                "forbidden_tools": st.just(["zz"]),
                "call_order": st.sampled_from(
                    [["a", "b"], [["a", "b"], ["a", "c"]], [["x", "y"], ["y", "z"]]]
                ),
            },
        ),
        "error_handling": st.fixed_dictionaries(
            {},
            optional={
                "require_retry_on_error": st.booleans(),
                "max_attempts": st.integers(1, 5),
                "error_output_patterns": st.lists(PATTERNS, max_size=2),
            },
        ),
        "completion": st.fixed_dictionaries(
            {"require_final_response": st.just(True)} if final else {},
            optional={
                "max_steps": st.integers(1, 50),
                "no_false_success": st.one_of(st.just(True), st.lists(NAMES, min_size=1)),
            }
            | ({"final_tools": st.lists(NAMES, max_size=2)} if final else {}),
        ),
        "trajectory": trajectories(),
        "dataflow": st.fixed_dictionaries(
            {},
            optional={
                "untrusted_to_sink": st.booleans(),
                "grounded_arguments": st.lists(st.sampled_from(["*", "refund"]), max_size=2),
                "min_value_length": st.integers(1, 12),
                "untrusted_if": st.lists(PATTERNS, max_size=2),
                "taint_window": st.integers(1, 1000),
                "trusted_values": st.lists(st.sampled_from(["*@example.com", "ACME-*"])),
            },
        ),
    }
    sections["claims"] = st.lists(CLAIMS, max_size=2, unique_by=lambda c: c["name"])
    # Policy v1.2 section 1: agent entries hold some of the sections above.
    entry = st.fixed_dictionaries(
        {},
        optional={
            key: sections[key]
            for key in ("allowed_tools", "budgets", "sequence", "error_handling", "completion")
        },
    )
    sections["agents"] = st.dictionaries(
        st.sampled_from(["researcher", "worker-*", "*"]), entry, max_size=2
    )
    sections["allow_unlisted_agents"] = st.just(True)
    policy: dict[str, Any] = {"policy_id": draw(st.sampled_from(["p", "refund-v2"]))}
    for key in draw(st.lists(st.sampled_from(sorted(sections)), unique=True)):
        policy[key] = draw(sections[key])
    return policy


# ------------------------------------------------------------------ YAML spelling

_PLAIN_SAFE = re.compile(r"[A-Za-z_][A-Za-z0-9_ .-]*[A-Za-z0-9_.]|[A-Za-z_]")
_CORE_WORDS = re.compile(r"(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)")


def _scalar(value: Any, plain: bool) -> str:
    if isinstance(value, str):
        if plain and _PLAIN_SAFE.fullmatch(value) and not _CORE_WORDS.fullmatch(value):
            return value
        return json.dumps(value)
    return json.dumps(value)


def to_yaml(value: Any, plain: bool, indent: int = 0) -> str:
    """A block-style YAML 1.2 document for a JSON value: strings double-quoted (JSON
    escapes are YAML escapes) or, with `plain`, unquoted where the core schema reads
    them back as strings."""
    pad = " " * indent
    if isinstance(value, dict) and value:
        lines = []
        for key, item in value.items():
            head = f"{pad}{_scalar(key, plain)}:"
            if isinstance(item, dict | list) and item:
                lines.append(head + "\n" + to_yaml(item, plain, indent + 2))
            else:
                lines.append(f"{head} {to_yaml(item, plain, 0).strip()}")
        return "\n".join(lines)
    if isinstance(value, list) and value:
        lines = []
        for item in value:
            if isinstance(item, dict | list) and item:
                body = to_yaml(item, plain, indent + 2)
                lines.append(f"{pad}-\n{body}")
            else:
                lines.append(f"{pad}- {to_yaml(item, plain, 0).strip()}")
        return "\n".join(lines)
    if isinstance(value, dict):
        return pad + "{}"
    if isinstance(value, list):
        return pad + "[]"
    return pad + _scalar(value, plain)
