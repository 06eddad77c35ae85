"""ARH-FLW-*: retries after errors, retry storms and duplicated side effects."""

from __future__ import annotations

import re
from typing import Any

from ..models.common import Category, Severity, Status
from ..models.policy import Policy
from ..models.trace import Step
from .base import Hit, Moment, RuleContext, RuleResult, RuleState, brief, rule
from .facts import (  # the identity `keyed_calls` gives, for call_key
    _FAST_IDENTITY,
    _IDENTITY,
    _LONG_IDENTITY,
    _digest,
    _no_floats,
)

FLOW = Category.FLOW
ERROR = Severity.ERROR
_ERROR = Status.ERROR


@rule(
    "ARH-FLW-001",
    FLOW,
    ERROR,
    moment=Moment.CLOSING,
    title="Failed tool call was not retried",
    remediation="Retry a failed tool call (or handle the failure explicitly) before moving on.",
    applies=lambda p: p.error_handling.require_retry_on_error,
)
class NoRetryAfterError(RuleState):
    """One check per failed call (effective status: `TraceFacts.failed`); a hit when it
    was the tool's last call. Kept per tool: the hit its latest call would make, while
    that call failed."""

    __slots__ = ("pending",)

    def __init__(self, policy: Policy) -> None:
        super().__init__(policy)
        # Per tool: its latest call, while it failed, and what its finding adds when only
        # its output said so ("" when its status did).
        self.pending: dict[str, tuple[int, Step, str]] = {}

    def scan(self, ctx: RuleContext) -> None:
        pending, by_output = self.pending, ctx.facts.output_failures
        for index, step in ctx.facts.calls:
            # TraceFacts.failed(index, step), inlined: this loop sees every call.
            if step.status is not _ERROR and index not in by_output:
                if pending:
                    pending.pop(step.tool_name or "", None)
                continue
            self.result.checks += 1
            note = ctx.facts.failure_note(index) if index in by_output else ""
            pending[step.tool_name or ""] = (index, step, note)

    def finish(self, ctx: RuleContext) -> RuleResult:
        result = self.result
        result.failed = len(self.pending)
        for index, step, note in sorted(self.pending.values(), key=_position):
            result.hits.append(
                Hit(
                    index,
                    f"tool '{step.tool_name}' failed and was never called again{note}",
                    observed=brief(step.output) if note else step.error,
                    step_id=step.step_id,
                )
            )
        return result


def _position(call: tuple[int, Step, str]) -> int:
    return call[0]


@rule(
    "ARH-FLW-002",
    FLOW,
    ERROR,
    moment=Moment.PREVENTIVE,
    title="Too many identical attempts",
    remediation="Stop retrying the same call after max_attempts (back off, change the "
    "arguments, or give up and report).",
    applies=lambda p: p.error_handling.max_attempts is not None,
)
class RetryStorm(RuleState):
    """One check per group of identical calls (same tool, same arguments); a hit at the
    first call beyond max_attempts. Kept: each group's call count, in first-call order,
    and the position and id of that call once a group reaches it."""

    __slots__ = ("counts", "limit", "over")

    def __init__(self, policy: Policy) -> None:
        super().__init__(policy)
        limit = policy.error_handling.max_attempts
        assert limit is not None
        self.limit = limit
        self.counts: dict[str, int] = {}
        self.over: dict[str, tuple[int, str, str | None]] = {}  # position, step id, tool

    def scan(self, ctx: RuleContext) -> None:
        counts, limit = self.counts, self.limit
        for index, step, key in ctx.facts.keyed_calls():
            count = counts.get(key, 0) + 1
            counts[key] = count
            if count == limit + 1:
                self.over[key] = (index, step.step_id, step.tool_name)

    def probe(self, ctx: RuleContext, index: int, step: Step) -> list[Hit]:
        if not step.tool_name:  # only named calls are grouped (TraceFacts.keyed_calls)
            return []
        count = self.counts.get(call_key(step), 0) + 1
        if count != self.limit + 1:
            return []
        return [_storm(self.limit, count, index, step.step_id, step.tool_name)]

    def finish(self, ctx: RuleContext) -> RuleResult:
        result = RuleResult(checks=len(self.counts), failed=len(self.over))
        limit = self.limit
        for key, (index, step_id, tool) in self.over.items():
            result.hits.append(_storm(limit, self.counts[key], index, step_id, tool))
        return result


def _storm(limit: int, count: int, index: int, step_id: str, tool: str | None) -> Hit:
    return Hit(
        index,
        f"tool '{tool}' was called {count} times with identical arguments (max_attempts {limit})",
        expected=limit,
        observed=count,
        step_id=step_id,
    )


# An output that begins with one of these words reports a failure, whatever its status.
_ERROR_WORD = re.compile(
    r"\s*(?:error|errors|failed|failure|fail|exception|traceback|fatal)\b", re.IGNORECASE
)


def reads_as_error(output: Any) -> bool:
    """Whether a call's output (a string, or a string `error` / `message` field of an
    object) begins with an error word such as `Error`, `error:`, `failed`, `exception`."""
    if isinstance(output, dict):
        return any(
            isinstance(text, str) and _ERROR_WORD.match(text) is not None
            for text in (output.get("error"), output.get("message"))
        )
    return isinstance(output, str) and _ERROR_WORD.match(output) is not None


def _side_effect_tools(policy: Policy) -> frozenset[str]:
    return policy.side_effect_tools


@rule(
    "ARH-FLW-003",
    FLOW,
    ERROR,
    moment=Moment.PREVENTIVE,
    title="Side effect repeated",
    remediation="Make side-effecting calls idempotent or check for an earlier success before "
    "calling again with the same arguments.",
    applies=lambda p: any(t.side_effect for t in p.allowed_tools.values()),
    compile=_side_effect_tools,
)
class DuplicateSideEffect(RuleState):
    """One check per group of identical calls of a side-effect tool; a hit at each call
    after the group's first success. Kept per group: that success's step id and how to
    word it (None before it), and whether the group repeated it."""

    __slots__ = ("groups", "repeated", "side_effect")

    def __init__(self, side_effect: frozenset[str]) -> None:
        super().__init__(side_effect)
        self.side_effect = side_effect
        self.groups: dict[str, tuple[str, str] | None] = {}
        self.repeated: set[str] = set()

    def scan(self, ctx: RuleContext) -> None:
        side_effect, groups, hits = self.side_effect, self.groups, self.result.hits
        for index, step, key in ctx.facts.keyed_calls():
            tool = step.tool_name
            if tool not in side_effect:
                continue
            succeeded = groups.get(key)
            if succeeded is not None:
                self.repeated.add(key)
                hits.append(_repeated(index, step, succeeded))
            elif not ctx.facts.failed(index, step):
                how = "returned status ok" if reads_as_error(step.output) else "succeeded"
                groups[key] = (step.step_id, how)
            elif key not in groups:
                groups[key] = None

    def probe(self, ctx: RuleContext, index: int, step: Step) -> list[Hit]:
        if step.tool_name not in self.side_effect:
            return []
        succeeded = self.groups.get(call_key(step))
        return [] if succeeded is None else [_repeated(index, step, succeeded)]

    def finish(self, ctx: RuleContext) -> RuleResult:
        result = self.result
        result.checks, result.failed = len(self.groups), len(self.repeated)
        return result


def _repeated(index: int, step: Step, succeeded: tuple[str, str]) -> Hit:
    step_id, how = succeeded
    return Hit(
        index,
        f"side-effect tool '{step.tool_name}' was called again with identical "
        f"arguments after it {how} at step '{step_id}'",
        step_id=step.step_id,
    )


def call_key(step: Step) -> str:
    """The group key `keyed_calls` gives a call in a trace read a chunk at a time (a long
    identity as its digest): what a probe of the next call looks up."""
    tool = step.tool_name or ""
    arguments = step.arguments
    raw = None
    if arguments and _FAST_IDENTITY is not None and type(arguments) is dict:
        try:
            if _no_floats(arguments):
                raw = _FAST_IDENTITY(arguments)
        except Exception:  # the general encoder gives the result or its error
            pass
    if raw is None:
        identity = _IDENTITY.encode(arguments) if arguments else "{}"
        raw = identity.encode("utf-8", "surrogatepass")
    identity = _digest(raw) if len(raw) > _LONG_IDENTITY else raw.decode("utf-8", "surrogatepass")
    return f"{tool}\0{identity}"
