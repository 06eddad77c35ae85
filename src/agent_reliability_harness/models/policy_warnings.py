"""The `policy_warnings` run section: what the policy loader doubted about the policies of a
run (typos, no-op settings; policy v1.1 section 2), as every report format shows it.

Shape (JSON, after the run's arrays, present only when there is a warning, so a run
without any keeps its v1 bytes):

    "policy_warnings": [
      {"source": "policies/base.yaml",            # the file that holds the key (or null)
       "path": "sequence.forbiden_tools",         # the dotted place in that file ("" = top)
       "message": "unknown key (did you mean 'forbidden_tools'?)",
       "policy_ids": ["support-refunds", ...]}    # the run's policies it concerns, in order
    ]

Entries are in the order the policies were given, each policy's in its chain order; a
warning of a base that several policies extend is listed once, with each of them.
Renderers read the section with `policy_warnings(run.sections)` and word an entry with
`warning_text(entry)`: `<source>: policy <path>: <message>`, as stderr shows it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .policy import LoadedPolicy, PolicyWarning
from .report import Section

POLICY_WARNINGS = "policy_warnings"


def warnings_section(policies: Iterable[LoadedPolicy]) -> Section | None:
    """The section for the loaded policies of a run; None when none has a warning."""
    entries: dict[tuple[str | None, str, str], dict[str, Any]] = {}
    for loaded in policies:
        for warning in loaded.warnings:
            key = (warning.source, warning.path, warning.message)
            entry = entries.get(key)
            if entry is None:
                entry = entries[key] = {
                    "source": warning.source,
                    "path": warning.path,
                    "message": warning.message,
                    "policy_ids": [],
                }
            if loaded.policy.policy_id not in entry["policy_ids"]:
                entry["policy_ids"].append(loaded.policy.policy_id)
    if not entries:
        return None
    return Section(POLICY_WARNINGS, list(entries.values()))


def policy_warnings(sections: Iterable[Section]) -> list[dict[str, Any]]:
    """The entries of a run's `policy_warnings` section ([] when it has none)."""
    for section in sections:
        if section.key == POLICY_WARNINGS:
            found: list[dict[str, Any]] = section.value
            return found
    return []


def warning_text(entry: dict[str, Any]) -> str:
    """One entry as a line: `<source>: policy <path>: <message>` (no source: without it)."""
    text = str(PolicyWarning(entry["path"], entry["message"]))
    source = entry.get("source")
    return text if source is None else f"{source}: {text}"


__all__ = ["POLICY_WARNINGS", "policy_warnings", "warning_text", "warnings_section"]
