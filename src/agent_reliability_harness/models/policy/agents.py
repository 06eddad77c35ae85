"""`agents` and `allow_unlisted_agents` (policy v1.2 section 1).

An agent entry is a partial policy: any of the sections in ENTRY_KEYS, parsed by the
same parser as a whole policy (so each section means exactly what it means at the top
level), with errors and warnings placed under `agents.<glob>`. A section the entry
does not give is empty; its `allowed_tools`, when given, are the only tools the agent
may call (`allow_unlisted_tools` is false for it), and otherwise any tool is allowed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...errors import PolicyError
from ..common import type_name
from .keys import AGENT_SECTIONS, POLICY
from .model import AgentEntries, Policy
from .notes import Notes, dotted
from .values import err, flag

ENTRY_KEYS = AGENT_SECTIONS  # the sections an agent entry may hold (keys.py)

Compile = Callable[[Any, Notes], Policy]


def parse_agents(
    data: dict[str, Any], notes: Notes, compile_policy: Compile
) -> tuple[AgentEntries | None, bool]:
    """The compiled `agents` entries (None when the key is absent) and
    `allow_unlisted_agents` (default true)."""
    raw = data.get("agents")
    allow = data.get("allow_unlisted_agents")
    allow_unlisted = (
        True if allow is None else flag(data, "allow_unlisted_agents", "allow_unlisted_agents")
    )
    if raw is None:
        if not allow_unlisted:
            notes.warn("allow_unlisted_agents", "has no effect without 'agents'")
        return None, allow_unlisted
    if not isinstance(raw, dict):
        raise err(
            "agents", f"must be an object from agent-name globs to policies (got {type_name(raw)})"
        )
    entries = tuple(
        (glob, _entry(data, glob, value, notes, compile_policy)) for glob, value in raw.items()
    )
    return AgentEntries(entries), allow_unlisted


def _entry(
    data: dict[str, Any], glob: str, value: Any, notes: Notes, compile_policy: Compile
) -> Policy:
    where = dotted("agents", glob)
    if value is None:
        value = {}
    if not isinstance(value, dict):
        raise err(where, f"must be an object (got {type_name(value)})")
    for key in value:  # a key known nowhere is a typo: keys.py warns about it
        if key in POLICY.fields and key not in ENTRY_KEYS:
            hint = f"an agent entry holds {', '.join(ENTRY_KEYS)}"
            raise err(dotted(where, key), f"applies to the whole trace only ({hint})")
    document = {key: value[key] for key in ENTRY_KEYS if key in value}
    document["policy_id"] = data.get("policy_id")
    document["schema_version"] = data.get("schema_version")
    document["allow_unlisted_tools"] = document.get("allowed_tools") is None
    inner = Notes(notes.source)
    try:
        policy = compile_policy(document, inner)
    except PolicyError as exc:
        raise PolicyError(_placed(str(exc), where)) from None
    for warning in inner.found:
        notes.warn(_join(where, warning.path), warning.message)
    return policy


def _join(where: str, path: str) -> str:
    if not path:
        return where
    return f"{where}{path}" if path.startswith("[") else f"{where}.{path}"


def _placed(message: str, where: str) -> str:
    """A parser error about the entry's own document, placed under `agents.<glob>`."""
    rest = message.removeprefix("policy").lstrip(": ") if message.startswith("policy") else message
    if rest.split(".", 1)[0].split(":", 1)[0] in ENTRY_KEYS:  # a dotted path in the entry
        return f"policy {_join(where, rest)}"
    return f"policy {where}: {rest}"
