"""`allowed_tools` from tool definitions (`arh infer --from-tools FILE`), alone or merged
with what good runs showed.

Every defined tool is allowed with the argument contracts of its JSON Schema (required
arguments are the schema's `required`, the other properties optional); what the policy
cannot check is listed under the tool's `x-arh-untranslated` key and returned as warnings.
Merged with learning, the definitions give the arguments and the runs add the call limits
(`max_calls`, `min_calls`, `side_effect`) and a learned `output` contract; a tool called in
good runs but not defined keeps its learned schema, with a warning.
"""

from __future__ import annotations

from typing import Any

from ..models.policy.jsonschema import arguments
from ..models.policy.tooldefs import ToolDefs
from .build import Evidence

UNTRANSLATED_KEY = "x-arh-untranslated"
_LEARNED_KEYS = ("side_effect", "min_calls", "max_calls", "output")
_KINDS = {
    "mcp": "MCP tools/list",
    "openai": "OpenAI tools",
    "openai-responses": "OpenAI Responses tools",
    "anthropic": "Anthropic tools",
    "anthropic-server": "Anthropic server tool",
}


def declared_tools(
    defs: ToolDefs, evidence: Evidence, warnings: list[str]
) -> dict[str, dict[str, Any]]:
    """Tool name -> tool schema, names sorted; warnings `file: tool 't': what`."""
    out: dict[str, dict[str, Any]] = {}
    for tool in sorted(defs.tools, key=lambda t: t.name):
        path = f"allowed_tools.{tool.name}"
        schema: dict[str, Any] = {}
        evidence.say(path, f"defined in {defs.source} ({_KINDS[tool.kind]}, {tool.where})", schema)
        args = arguments(tool.parameters)
        untranslated = list(args.untranslated)
        if tool.kind == "anthropic-server":
            untranslated.append(
                "arguments: a server tool declares no schema; each argument a call passes "
                "is undeclared (ARH-SCH-005, a warning) until the policy declares it"
            )
        for key, group in (
            ("required_arguments", args.required),
            ("optional_arguments", args.optional),
        ):
            if group:
                schema[key] = group
        if untranslated:
            schema[UNTRANSLATED_KEY] = untranslated
            warnings.extend(
                f"{defs.source}: tool {tool.name!r}: {line} (the policy cannot check it)"
                for line in untranslated
            )
        out[tool.name] = schema
    return out


def merge_learned(
    declared: dict[str, dict[str, Any]],
    learned: dict[str, dict[str, Any]],
    source: str,
    warnings: list[str],
) -> dict[str, dict[str, Any]]:
    """The declared tools with the call limits the good runs showed; a learned tool that
    is not declared stays as learned (a warning says so)."""
    merged: dict[str, dict[str, Any]] = {}
    for name in sorted(set(declared) | set(learned)):
        if name not in declared:
            warnings.append(
                f"tool {name!r} is called in the good runs but not defined in {source}; "
                "allowed with the arguments learned from the runs"
            )
            merged[name] = learned[name]
            continue
        schema = dict(declared[name])
        runs = learned.get(name)
        if runs is not None:
            schema["description"] = f"{schema['description']}; {runs['description']}"
            schema.update({key: runs[key] for key in _LEARNED_KEYS if key in runs})
        merged[name] = schema
    return merged


def tools_policy(
    defs: ToolDefs, policy_id: str, evidence: Evidence, warnings: list[str]
) -> dict[str, Any]:
    """The policy of the tool definitions alone."""
    return {
        "schema_version": "1.1",
        "policy_id": policy_id,
        "description": f"Written by arh infer from the {len(defs.tools)} tool definitions in "
        f"{defs.source} ({defs.kinds()}); review before use.",
        "allow_unlisted_tools": False,
        "allowed_tools": declared_tools(defs, evidence, warnings),
    }


def with_tools(
    policy: dict[str, Any], defs: ToolDefs, evidence: Evidence, warnings: list[str]
) -> None:
    """Merge the definitions into a learned base policy, in place."""
    declared = declared_tools(defs, evidence, warnings)
    replaced = tuple(
        f"allowed_tools.{name}.{key}"
        for name in declared
        for key in ("required_arguments", "optional_arguments")
    )
    evidence.lines[:] = [line for line in evidence.lines if not line[0].startswith(replaced)]
    policy["allowed_tools"] = merge_learned(
        declared, policy.get("allowed_tools", {}), defs.source, warnings
    )
    policy["description"] = (
        f"{policy['description'].removesuffix('; review before use.')}; argument contracts "
        f"from the {len(defs.tools)} tool definitions in {defs.source} ({defs.kinds()}); "
        "review before use."
    )
