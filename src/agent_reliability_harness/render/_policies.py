"""The policies behind a run, as every renderer names them: the run's policy ids (one,
or several joined by POLICY_SEPARATOR) and its policy warnings (the `policy_warnings`
run section of models/policy_warnings.py, read here defensively: a report read back
from JSON may hold anything)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from ..models.policy import PolicyWarning
from ..models.policy_warnings import policy_warnings as section_entries
from ..models.report import POLICY_SEPARATOR, Section
from ._escape import md_text

# A Markdown report lists this many policy warnings and counts the rest.
MAX_WARNINGS_LISTED = 20


class PolicyWarningView(msgspec.Struct, frozen=True):
    """One policy warning as the reports show it (strings, whatever the section held)."""

    source: str | None
    path: str
    message: str


def policy_ids(policy_id: str) -> tuple[str, ...]:
    """The policies a run's `policy_id` names, in order (one for a one-policy run)."""
    return tuple(policy_id.split(POLICY_SEPARATOR)) if policy_id else ("",)


def several(policy_id: str) -> bool:
    """Whether the run was judged by more than one policy."""
    return len(policy_ids(policy_id)) > 1


def policies_label(policy_id: str) -> str:
    """`policy p` or `policies a, b` (plain text; escape it for the medium)."""
    ids = policy_ids(policy_id)
    return f"policy {ids[0]}" if len(ids) == 1 else "policies " + POLICY_SEPARATOR.join(ids)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def policy_warnings(sections: Iterable[Section]) -> tuple[PolicyWarningView, ...]:
    """The run's policy warnings, in the section's order (none without the section)."""
    entries = section_entries(sections)
    if not isinstance(entries, list):
        return ()
    return tuple(
        PolicyWarningView(
            None if item.get("source") is None else _text(item.get("source")),
            _text(item.get("path")),
            _text(item.get("message")),
        )
        for item in entries
        if isinstance(item, Mapping)
    )


def warning_text(warning: PolicyWarningView) -> str:
    """`file: policy key.path: message`, as stderr and `arh check-policy` word it."""
    text = str(PolicyWarning(warning.path, warning.message))
    return f"{warning.source}: {text}" if warning.source else text


def markdown_warnings(sections: Iterable[Section]) -> list[str]:
    """`**Policy warnings (N):**` and a list item per warning (at most
    MAX_WARNINGS_LISTED, then one counting the rest), then a blank line; [] without any."""
    warnings = policy_warnings(sections)
    if not warnings:
        return []
    lines = [f"**Policy warnings ({len(warnings)}):**", ""]
    lines += [f"- {md_text(warning_text(w))}" for w in warnings[:MAX_WARNINGS_LISTED]]
    if len(warnings) > MAX_WARNINGS_LISTED:
        more = len(warnings) - MAX_WARNINGS_LISTED
        lines.append(f"- ...and {more} more policy warnings (see the JSON report).")
    return [*lines, ""]
