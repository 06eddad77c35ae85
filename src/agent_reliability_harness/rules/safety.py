"""ARH-SAF-001: unsafe patterns in any text the agent produced or handled.

All patterns are scanned together, once per text blob, by one linear-time RE2
set, so neither pattern count nor hostile text can blow up the scan.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..models.common import Category, Severity
from ..models.trace import Step
from .base import Hit, RuleContext, RuleResult, rule


def _strings(value: Any, root: str) -> Iterator[tuple[str, str]]:
    """Every non-empty string inside a JSON value, any depth, with its path; iterative."""
    stack: list[tuple[str, Any]] = [(root, value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            if item:
                yield path, item
        elif isinstance(item, dict):
            stack.extend((f"{path}.{k}", v) for k, v in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(item))))


def text_blobs(step: Step) -> Iterator[tuple[str, str]]:
    """The text blobs of a step: text, strings in arguments and output, and the error."""
    if step.text:
        yield "text", step.text
    if step.arguments:
        yield from _strings(step.arguments, "arguments")
    if step.output is not None:
        yield from _strings(step.output, "output")
    if step.error:
        yield "error", step.error


@rule(
    "ARH-SAF-001",
    Category.SAFETY,
    Severity.ERROR,
    title="Unsafe content matched",
    remediation="Stop the agent from emitting or passing this content (redaction, output "
    "filters, tool guards), or narrow the pattern if it is a false positive.",
    applies=lambda p: bool(p.unsafe_patterns),
)
def unsafe_content(ctx: RuleContext) -> RuleResult:
    patterns = ctx.policy.unsafe_patterns
    result = RuleResult()
    for index, step in enumerate(ctx.facts.steps):
        for where, blob in text_blobs(step):
            result.checks += 1
            for match in patterns.matches(blob):
                pattern = patterns.patterns[match]
                result.failed += 1
                result.hits.append(
                    Hit(
                        index,
                        f"unsafe pattern '{pattern}' matched in {where}",
                        expected=f"no match for '{pattern}'",
                        observed=where,
                    )
                )
    return result
