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


def _string_values(value: Any, out: list[str]) -> None:
    """The non-empty strings `_strings` yields, in the same order, without their paths."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or (kind is not dict and kind is not list and isinstance(item, str)):
            if item:
                out.append(item)
        elif kind is dict or isinstance(item, dict):
            stack.extend(reversed(item.values()))
        elif kind is list or isinstance(item, list):
            stack.extend(reversed(item))


def blob_texts(step: Step) -> list[str]:
    """The texts of `text_blobs(step)`, in order."""
    out: list[str] = []
    if step.text:
        out.append(step.text)
    if step.arguments:
        _string_values(step.arguments, out)
    if step.output is not None:
        _string_values(step.output, out)
    if step.error:
        out.append(step.error)
    return out


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
    texts: list[str] = []
    for step in ctx.facts.steps:
        texts.extend(blob_texts(step))
    result.checks = len(texts)
    if not patterns.may_match_any(texts):  # the usual case: one scan for the whole trace
        return result
    for index, step in enumerate(ctx.facts.steps):
        for where, blob in text_blobs(step):
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
