"""Every key a policy may hold, per place, and the walk that warns about the others.

The tree below is the one list of policy keys: the parser reads these, the JSON
Schema declares the same (tests/test_policy_schema.py checks both), and any other key
is a warning with the closest known key. `$schema`, `description` and `x-*` never warn.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .notes import Notes, closest, dotted

ANNOTATIONS = frozenset({"$schema", "description"})


class Obj(msgspec.Struct):
    """An object with fixed keys."""

    fields: dict[str, Node] = msgspec.field(default_factory=dict)


class Names(msgspec.Struct):
    """An object whose keys are names (tools, arguments); each value is a `value`."""

    value: Node


class Items(msgspec.Struct):
    """A list whose elements that are objects or lists follow `of`."""

    of: Node


Node = Obj | Names | Items | None  # None: a value whose inside is not checked

ARG_SPEC = Obj(
    dict.fromkeys(
        (
            "type",
            "enum",
            "pattern",
            "min",
            "max",
            "not_pattern",
            "min_length",
            "max_length",
            "grounded",
            "required",
        )
    )
)
ARG_SPEC.fields["items"] = ARG_SPEC
ARG_SPEC.fields["properties"] = Names(ARG_SPEC)

TOOL = Obj(
    {
        "required_arguments": Names(ARG_SPEC),
        "optional_arguments": Names(ARG_SPEC),
        "output": ARG_SPEC,
        "failed_when": Items(Obj(dict.fromkeys(("path", "equals", "pattern")))),
        **dict.fromkeys(
            ("side_effect", "max_calls", "min_calls", "trust", "sink", "sink_arguments")
        ),
    }
)

EXPECTED_CALL = Obj(dict.fromkeys(("tool", "arguments", "arguments_match", "optional")))

POLICY = Obj(
    {
        **dict.fromkeys(
            ("schema_version", "policy_id", "extends", "allow_unlisted_tools", "plugins")
        ),
        "applies_to": Obj(dict.fromkeys(("trace_id", "agent_name", "workflow", "task_id"))),
        "allowed_tools": Names(TOOL),
        "budgets": Obj(
            dict.fromkeys(
                (
                    "max_step_latency_ms",
                    "max_total_latency_ms",
                    "max_total_cost_usd",
                    "max_total_tokens",
                )
            )
        ),
        "unsafe_patterns": Items(Obj(dict.fromkeys(("pattern", "in", "tools")))),
        "grounding": Obj(
            dict.fromkeys(
                ("require_citations", "min_citation_coverage", "require_valid_citation_urls")
            )
        ),
        "sequence": Obj(dict.fromkeys(("required_tools", "forbidden_tools", "call_order"))),
        "error_handling": Obj(
            dict.fromkeys(
                (
                    "require_retry_on_error",
                    "max_attempts",
                    "error_output_patterns",
                    "max_identical_repeats",
                    "require_recorded_outcome",
                    "side_effect_kinds",
                )
            )
        ),
        "completion": Obj(
            dict.fromkeys(
                (
                    "require_final_response",
                    "max_steps",
                    "final_tools",
                    "no_false_success",
                    "success_pattern",
                    "failure_pattern",
                )
            )
        ),
        "trajectory": Obj(
            {
                "expected": Items(EXPECTED_CALL),
                **dict.fromkeys(("match", "arguments_match", "ignore_tools", "ignore_arguments")),
            }
        ),
        "dataflow": Obj(
            dict.fromkeys(
                (
                    "untrusted_to_sink",
                    "grounded_arguments",
                    "min_value_length",
                    "untrusted_if",
                    "taint_window",
                    "trusted_values",
                )
            )
        ),
        "preconditions": Items(Obj({"call": None, "requires": None, "same": Names(None)})),
        # Policy v1.3 section 1.
        "claims": Items(
            Obj(
                {
                    **dict.fromkeys(("name", "when", "unless", "requires", "scope")),
                    "ignore_case": None,
                    "same": Names(None),
                    "values": Items(Obj(dict.fromkeys(("pattern", "in")))),
                }
            )
        ),
    }
)

# Policy v1.2 section 1: an agent entry holds some of the sections above (the parser
# refuses any other key in it; see agents.py).
AGENT_SECTIONS = (
    "allowed_tools",
    "sequence",
    "budgets",
    "error_handling",
    "trajectory",
    "completion",
    "preconditions",
)
AGENT_ENTRY = Obj({key: POLICY.fields[key] for key in AGENT_SECTIONS})
POLICY.fields["agents"] = Names(AGENT_ENTRY)
POLICY.fields["allow_unlisted_agents"] = None
POLICY.fields["tool_contracts"] = None
POLICY.fields["safety"] = Obj(
    dict.fromkeys(
        (
            "secrets",
            "destructive_commands",
            "download_to_shell",
            "credential_files",
            "write_outside_workdir",
            "skipped_hooks",
            "protected_branches",
        )
    )
)
POLICY.fields["tool_kinds"] = Names(
    Obj(
        {
            **dict.fromkeys(
                ("kind", "command", "commands", "path", "patch", "cwd", "url", "command_path")
            ),
            "kind_by": Obj(dict.fromkeys(("argument", "kinds"))),
            "agents": None,
        }
    )
)

# Marks a pending warning in the walk below (its "value" is the message).
_WARN = Obj()


def is_annotation(key: str) -> bool:
    """Keys that any object may hold and ARH never reads."""
    return key in ANNOTATIONS or key.startswith("x-")


def unknown_key_message(key: str, known: dict[str, Node]) -> str:
    guess = closest(key, known)
    if guess is not None:
        return f"unknown key (did you mean '{guess}'?)"
    return f"unknown key (known keys here: {', '.join(sorted(known))})"


def warn_unknown_keys(document: Any, notes: Notes) -> None:
    """Add a warning for every key of `document` (one policy file, before `extends` is
    applied) that the policy format does not define at its place, in document order."""
    pending: list[tuple[Any, Node | Obj, str]] = [(document, POLICY, "")]
    while pending:
        value, node, path = pending.pop()
        if node is _WARN:
            notes.warn(path, value)
            continue
        children: list[tuple[Any, Node | Obj, str]] = []
        if isinstance(node, Obj) and isinstance(value, dict):
            for key, child in value.items():
                if key in node.fields:
                    children.append((child, node.fields[key], dotted(path, key)))
                elif not is_annotation(key):  # warned when popped: document order
                    children.append(
                        (unknown_key_message(key, node.fields), _WARN, dotted(path, key))
                    )
        elif isinstance(node, Names) and isinstance(value, dict):
            children = [(child, node.value, dotted(path, k)) for k, child in value.items()]
        elif isinstance(node, Items) and isinstance(value, list):
            children = [(child, node.of, f"{path}[{i}]") for i, child in enumerate(value)]
        pending.extend(reversed(children))
