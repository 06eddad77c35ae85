"""ARH-SAF-001: unsafe patterns in any text the agent produced or handled.

All patterns are scanned together, once per text blob, by one linear-time RE2
set, so neither pattern count nor hostile text can blow up the scan.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import msgspec

from ..models.common import Category, Severity
from ..models.policy import BLOB_KINDS, Policy, ScopedPatterns
from ..models.trace import Step
from ..patterns import PatternSet
from .base import Hit, Moment, RuleContext, RuleResult, RuleState, rule
from .screen import PROBES, blob_count, quick_blob_count, screen_text
from .status import string_values  # the same strings, in the same order, as _strings

__all__ = ["blob_texts", "screen_text", "text_blobs"]

# The names the screen's tests know them by.
_blob_count, _quick_blob_count = blob_count, quick_blob_count


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
        elif isinstance(item, list | tuple):  # a tuple (API-built steps) is a JSON array
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


def blob_texts(step: Step) -> list[str]:
    """The texts of `text_blobs(step)`, in order."""
    out: list[str] = []
    if step.text:
        out.append(step.text)
    if step.arguments:
        string_values(step.arguments, out)
    if step.output is not None:
        string_values(step.output, out)
    if step.error:
        out.append(step.error)
    return out


def _screen_patterns(policy: Policy) -> tuple[PatternSet, ScopedPatterns | None]:
    """The policy's unsafe patterns with the probes, the screen of every blob (once per
    Evaluator), and the per-blob sets of scoped patterns (None: every pattern searches
    every blob, as in v1)."""
    return PatternSet(policy.unsafe_patterns.patterns, probes=PROBES), policy.unsafe_scoped


# A blob's kind (model.BLOB_KINDS) by the first letter of where `text_blobs` found it.
_BLOB_KIND = {kind[0]: kind for kind in BLOB_KINDS}
assert len(_BLOB_KIND) == len(BLOB_KINDS)

# Steps screened per scan, then per re-screen of a window that may match (every blob
# lies within one step, so screening windows hides no match; and a window's text stays
# small however long the trace).
_WINDOWS = (256, 16)


def decided_before(observed: Any) -> bool:
    """Whether a finding (its `observed`: where the pattern matched) is about the call's
    arguments, not its text or what it returned: the part of ARH-SAF-001 the guard
    decides before the call."""
    return isinstance(observed, str) and observed.startswith("arguments")


@rule(
    "ARH-SAF-001",
    Category.SAFETY,
    Severity.ERROR,
    moment=Moment.PREVENTIVE,
    title="Unsafe content matched",
    remediation="Stop the agent from emitting or passing this content (redaction, output "
    "filters, tool guards), or narrow the pattern if it is a false positive.",
    applies=lambda p: bool(p.unsafe_patterns),
    compile=_screen_patterns,
    decided_before=decided_before,
)
class UnsafeContent(RuleState):
    """One check per text blob, a hit (and a failed check) per pattern that matches one.
    Steps are screened in windows; a window that may match is screened again in smaller
    ones, and only the smallest that may match are checked blob by blob. Scoped patterns
    (`in`, `tools`) are screened with the rest, as the union of every pattern; a blob is
    then checked against the patterns that apply to its kind and its step's tool. Every
    blob is a check, whichever patterns apply to it."""

    __slots__ = ("dense", "patterns", "scoped")

    def __init__(self, compiled: tuple[PatternSet, ScopedPatterns | None]) -> None:
        super().__init__(compiled)
        self.patterns, self.scoped = compiled
        self.dense = False  # whether most of the last window's smaller ones may match

    def scan(self, ctx: RuleContext) -> None:
        if self.patterns.screens:
            self._screen(ctx.facts.steps, ctx.facts.start, 0)
        else:
            self._check(ctx.facts.steps, ctx.facts.start)

    def _screen(self, steps: Sequence[Step], start: int, level: int) -> int:
        """Screen `steps` in windows of _WINDOWS[level] steps; returns how many of them may
        match. Where most smaller windows did, the next windows that may match are checked
        at once (re-screening text that mostly matches only costs)."""
        size, failed = _WINDOWS[level], 0
        for at in range(0, len(steps), size):
            window = steps[at : at + size]
            if self.dense and level == 0 and (at // size) % 16:  # screened again every 16th
                self._check(window, start + at)
                continue
            if self._clean(window):
                self.dense = self.dense and level > 0  # a clean window: look closer again
                continue
            failed += 1
            if level + 1 < len(_WINDOWS) and len(window) > _WINDOWS[level + 1] and not self.dense:
                parts = -(-len(window) // _WINDOWS[level + 1])
                self.dense = 2 * self._screen(window, start + at, level + 1) > parts
            else:
                self._check(window, start + at)
        return failed

    def _clean(self, steps: Sequence[Step]) -> bool:
        """Whether the screen shows no pattern can match these steps (their blobs are then
        counted); False when they must be looked at more closely."""
        patterns = self.patterns
        screen = screen_text(steps)
        if screen is None:
            return False
        text, delimiter, blobs = screen
        may, probes = patterns.screen(text, delimiter)
        if may:
            return False
        if blobs < 0:
            quick = probes is not None and not probes  # scanned, no empty string
            blobs = quick_blob_count(text) if quick else blob_count(text)
        self.result.checks += blobs
        return True

    def _check(self, steps: Sequence[Step], start: int) -> None:
        for index, step in enumerate(steps, start):
            self._step(index, step, self.result)

    def _step(self, index: int, step: Step, result: RuleResult) -> None:
        """Every blob of one step against the patterns that apply to it."""
        patterns, scoped = self.patterns, self.scoped
        for where, blob in text_blobs(step):
            result.checks += 1
            if scoped is not None:
                patterns = scoped.for_blob(_BLOB_KIND[where[0]], step.tool_name)
            for match in patterns.matches(blob):
                pattern = patterns.patterns[match]
                result.failed += 1
                result.hits.append(
                    Hit(
                        index,
                        f"unsafe pattern '{pattern}' matched in {where}",
                        expected=f"no match for '{pattern}'",
                        observed=where,
                        step_id=step.step_id,
                    )
                )

    def probe(self, ctx: RuleContext, index: int, step: Step) -> list[Hit]:
        """The call's arguments (its output and error come after it)."""
        found = RuleResult()
        asked = msgspec.structs.replace(step, text=None, output=None, error=None)
        self._step(index, asked, found)
        return found.hits
