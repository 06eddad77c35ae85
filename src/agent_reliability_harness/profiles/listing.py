"""What each built-in profile checks: the rules its compiled policy runs."""

from __future__ import annotations

from ..models.policy import load_policy
from ..rules import Rule, all_rules
from . import NAMES, PREFIX, profile_document


def profile_rules(name: str) -> tuple[Rule, ...]:
    """The built-in rules a profile's policy runs, in rule order."""
    policy = load_policy(PREFIX + name).policy
    return tuple(r for r in all_rules() if r.built_in and r.applies(policy))


def profiles_table() -> str:
    """`arh profiles`: per profile, its name, what it adds to its base, and its rules."""
    lines: list[str] = []
    for name in NAMES:
        document = profile_document(name)
        base = document.get("extends")
        head = f"{name}" + (f" (extends {base})" if base else "")
        lines.append(head)
        lines.append(f"  {document.get('description', '')}")
        for found in profile_rules(name):
            lines.append(f"  {found.rule_id}  {found.severity.value:<7}  {found.title}")
        lines.append("")
    lines.append("arh profiles show NAME prints one as a policy file; "
                 '"extends": "arh:NAME" builds on one.')
    return "\n".join(lines) + "\n"
