"""The `coverage` run section (`--coverage`, policy v1.2 section 6) as a Markdown table and
HTML table data, from the section's JSON value; nothing when the run has no such section."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..compare.coverage import coverage_of
from ..models.report import Section
from ._escape import md_code

MAX_MARKDOWN_TOOLS = 50  # rows listed (never-called tools first); the rest are counted
MAX_RULES_SHOWN = 3
MAX_NEVER_SHOWN = 5


def _share(value: Any) -> str:
    return "n/a" if not isinstance(value, int | float) else f"{value:g}%"


def headline(value: Mapping[str, Any]) -> str:
    return (
        f"{value['called_tools']} of {value['allowed_tools']} allowed tools called "
        f"({_share(value['tool_coverage'])}), {value['arguments_passed']} of "
        f"{value['arguments_declared']} declared arguments passed "
        f"({_share(value['argument_coverage'])})"
    )


def rules_text(rules: Mapping[str, int], limit: int | None = None) -> str:
    """`ARH-SCH-004 x2, ...`, most frequent first."""
    ranked = sorted(rules.items(), key=lambda item: (-item[1], item[0]))
    shown = ranked if limit is None else ranked[:limit]
    text = ", ".join(f"{rule} x{count}" for rule, count in shown)
    if limit is not None and len(ranked) > limit:
        text += f" and {len(ranked) - limit} more"
    return text or "-"


def never_text(names: list[str], limit: int | None = None) -> str:
    shown = names if limit is None else names[:limit]
    text = ", ".join(shown)
    if limit is not None and len(names) > limit:
        text += f" and {len(names) - limit} more"
    return text or "-"


def markdown_text(sections: Iterable[Section]) -> str:
    """The coverage table (never-called tools first, then by name), or ""."""
    value = coverage_of(sections)
    if value is None:
        return ""
    lines = [f"### Tool coverage: {headline(value)}", ""]
    rows = sorted(value["tools"], key=lambda row: (row["calls"] > 0, row["tool"]))
    if rows:
        lines += [
            "| tool | calls | traces | arguments passed | never passed | rules fired |",
            "|---|---:|---:|---:|---|---|",
        ]
        for row in rows[:MAX_MARKDOWN_TOOLS]:
            never = [md_code(n, 40, in_table=True) for n in row["arguments_never_passed"]]
            lines.append(
                f"| {md_code(row['tool'], 80, in_table=True)} | {row['calls']} | {row['traces']} "
                f"| {row['arguments_passed']}/{row['arguments_declared']} "
                f"| {never_text(never, MAX_NEVER_SHOWN)} "
                f"| {rules_text(row['rules'], MAX_RULES_SHOWN)} |"
            )
        if len(rows) > MAX_MARKDOWN_TOOLS:
            more = len(rows) - MAX_MARKDOWN_TOOLS
            lines += ["", f"_...and {more} more tools (see the JSON report)._"]
    unlisted = value.get("unlisted_tools") or []
    if unlisted:
        lines += ["", f"Called but not allowed: {len(unlisted)} tools (see the JSON report)."]
    if value.get("traces_not_counted"):
        lines += ["", f"{value['traces_not_counted']} traces too big to hold were not counted."]
    return "\n".join(lines) + "\n\n"
