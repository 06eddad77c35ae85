"""`arh formats`: every format ARH reads, built-in and plugin, with its family and the
evidence that claims a document for it (text rows; the CLI only prints them)."""

from __future__ import annotations

from .base import Adapter
from .plugins import plugins
from .registry import ADAPTERS


def format_row(adapter: Adapter, plugin: bool = False) -> str:
    """One format: name, family, what claims a document (and what contradicts it),
    description; a plugin's family is marked as one."""
    evidence = adapter.evidence
    claims = ", ".join(evidence.marks) or "-"
    if evidence.against:
        claims += "; never: " + ", ".join(evidence.against)
    family = f"{adapter.family} (plugin)" if plugin else adapter.family
    return f"{adapter.name:<20} {family:<20} {adapter.description}\n{'':<21}claims on: {claims}\n"


def formats_listing() -> tuple[str, list[str]]:
    """Every format's row (built-in, then plugin formats by name), and why each plugin
    that cannot be used cannot."""
    found = plugins()
    rows = [format_row(a) for a in ADAPTERS]
    rows += [format_row(a, plugin=True) for a in found.formats]
    return "".join(rows), list(found.problems)
