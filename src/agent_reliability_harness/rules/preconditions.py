"""ARH-SEQ-008 (policy v1.2 section 2): a call needs an earlier successful call of another
tool about the same entity (`preconditions`).

Near-linear: each precondition keeps the identities (outputs.identity) of the values
its earlier effective-ok `requires` calls had at the right-hand paths, as one set of
tuples; a call of `call` is then one lookup. Kept across chunks, so a trace read a
chunk at a time gives the same result. A precondition with a `*` path (v1.3) keeps,
per earlier call, the set of identities each right-hand path reaches, and a call meets
it when every value each left-hand path reaches is in the set of the same earlier call.
"""

from __future__ import annotations

import json
from typing import Any

from ..models.common import Category, Severity
from ..models.paths import has_star, values_at
from ..models.policy import Policy, Precondition
from ..models.trace import Step
from .base import MAX_FINDINGS, Hit, Moment, RuleContext, RuleState, brief, rule
from .outputs import MISSING, decoded, identity, value_at

_OUTPUT = "output."


class _Entry:
    """One precondition and what the earlier calls of its `requires` tool gave."""

    __slots__ = ("ok_calls", "reached", "rights", "rule", "seen", "star")

    def __init__(self, rule: Precondition) -> None:
        self.rule = rule
        # Each right-hand path: whether it reads the output, and the path inside.
        self.rights = tuple(
            (True, right[len(_OUTPUT) :]) if right.startswith(_OUTPUT) else (False, right)
            for _, right in rule.same
        )
        self.seen: set[tuple[Any, ...]] = set()  # identities of the right-hand values
        self.ok_calls = 0  # earlier effective-ok calls of `requires`
        # v1.3: with a `*` path, per earlier call the identities each right path reaches.
        self.star = any(has_star(left) or has_star(right) for left, right in rule.same)
        self.reached: list[tuple[frozenset[Any], ...]] = []

    def record(self, step: Step) -> None:
        """An effective-ok call of `requires`: its values at the right-hand paths."""
        self.ok_calls += 1
        if self.star:
            self._record_reached(step)
            return
        if not self.rights:
            if not self.seen:
                self.seen.add(())
            return
        output: Any = MISSING
        values = []
        for in_output, path in self.rights:
            if in_output:
                if output is MISSING:
                    output = decoded(step.output)
                value = value_at(output, path)
            else:
                value = value_at(step.arguments or {}, path)
            if value is MISSING:
                return  # it cannot meet the precondition
            values.append(identity(value))
        self.seen.add(tuple(values))

    def _record_reached(self, step: Step) -> None:
        output = decoded(step.output) if any(o for o, _ in self.rights) else None
        sets = []
        for in_output, path in self.rights:
            found = values_at(output if in_output else step.arguments or {}, path)
            if not found:
                return  # it cannot meet the precondition
            sets.append(frozenset(identity(value) for value in found))
        self.reached.append(tuple(sets))

    def met(self, lefts: list[frozenset[Any]]) -> bool:
        """With a `*` path: whether one earlier call reached every left-hand value."""
        return any(
            all(left <= right for left, right in zip(lefts, sets, strict=True))
            for sets in self.reached
        )


def _compile(policy: Policy) -> tuple[dict[str, list[_Entry]], dict[str, list[_Entry]]]:
    """Per tool, the preconditions its calls must meet, and those its calls may meet."""
    calls: dict[str, list[_Entry]] = {}
    requires: dict[str, list[_Entry]] = {}
    # An entry listed twice is one precondition (as other lists count duplicates once).
    for precondition in dict.fromkeys(policy.preconditions):
        entry = _Entry(precondition)
        calls.setdefault(precondition.call, []).append(entry)
        requires.setdefault(precondition.requires, []).append(entry)
    return calls, requires


@rule(
    "ARH-SEQ-008",
    Category.SEQUENCE,
    Severity.ERROR,
    moment=Moment.PREVENTIVE,
    title="Precondition not met",
    remediation="Make the agent call the required tool first, successfully and about the "
    "same entity (the `same` values), before this call; or correct the precondition.",
    applies=lambda p: bool(p.preconditions),
    since="1.2",
)
class PreconditionNotMet(RuleState):
    """One check per call of a `call` tool and precondition it has; a hit per unmet one,
    naming the values no earlier effective-ok call of `requires` had (or the argument
    the call lacks). A call of a tool that is both `call` and `requires` of one entry
    is checked before it counts as an earlier call."""

    __slots__ = ("calls", "last", "requires")

    def __init__(self, policy: Policy) -> None:
        super().__init__(policy)
        # Made per trace: the entries hold the trace's values.
        self.calls, self.requires = _compile(policy)
        self.last = -1  # the position of the last hit kept

    def scan(self, ctx: RuleContext) -> None:
        calls, requires, facts = self.calls, self.requires, ctx.facts
        for index, step in facts.calls:
            tool = step.tool_name or ""
            needs = calls.get(tool)
            if needs is not None:
                for entry in needs:
                    self._check(index, step, entry)
            meets = requires.get(tool)
            if meets and not facts.failed(index, step):
                for entry in meets:
                    entry.record(step)

    def _check(self, index: int, step: Step, entry: _Entry) -> None:
        result = self.result
        result.checks += 1
        unmet = _unmet(step, entry)
        if unmet is None:
            return
        result.failed += 1
        if len(result.hits) >= MAX_FINDINGS and index != self.last:
            result.more += 1
            return
        self.last = index
        result.hits.append(_hit(index, step, entry, *unmet))

    def probe(self, ctx: RuleContext, index: int, step: Step) -> list[Hit]:
        hits = []
        for entry in self.calls.get(step.tool_name or "", ()):
            unmet = _unmet(step, entry)
            if unmet is not None:
                hits.append(_hit(index, step, entry, *unmet))
        return hits


def _unmet(step: Step, entry: _Entry) -> tuple[str | None, Any] | None:
    """None when the call meets the precondition; else what it lacks (an argument) or the
    values no earlier effective-ok call of `requires` had."""
    arguments = step.arguments or {}
    if entry.star:
        return _unmet_star(arguments, entry)
    wanted: dict[str, Any] = {}
    for left, _ in entry.rule.same:
        value = value_at(arguments, left)
        if value is MISSING:
            return f"has no argument '{left}'", None
        wanted[left] = value
    if tuple(identity(value) for value in wanted.values()) in entry.seen:
        return None
    return None, wanted


def _unmet_star(arguments: Any, entry: _Entry) -> tuple[str | None, Any] | None:
    """`_unmet` with a `*` path: every value a left path reaches must have been reached by
    the same earlier call's right path."""
    wanted: dict[str, Any] = {}
    lefts = []
    for left, _ in entry.rule.same:
        found = values_at(arguments, left)
        if not found:
            return f"has no argument '{left}'", None
        wanted[left] = found if has_star(left) else found[0]
        lefts.append(frozenset(identity(value) for value in found))
    return None if entry.met(lefts) else (None, wanted)


def _hit(index: int, step: Step, entry: _Entry, lacks: str | None, wanted: Any) -> Hit:
    rule = entry.rule
    head = f"call of '{rule.call}' needs an earlier successful call of '{rule.requires}'"
    pairs = dict(rule.same)
    if lacks is not None:
        message = f"{head} about the same entity, but {lacks}"
        expected: Any = {"requires": rule.requires, "same": pairs}
        observed: Any = None
    elif not rule.same:
        message = f"{head}; there was none"
        expected, observed = {"requires": rule.requires}, None
    else:
        shown = ", ".join(f"{pairs[left]} = {_text(value)}" for left, value in wanted.items())
        earlier = entry.ok_calls
        message = f"{head} with {shown}; " + (
            "there was none"
            if not earlier
            else f"{earlier} earlier successful "
            + ("call had" if earlier == 1 else "calls had")
            + " other values"
        )
        expected = {
            "requires": rule.requires,
            "same": {pairs[left]: brief(value) for left, value in wanted.items()},
        }
        observed = {left: brief(value) for left, value in wanted.items()}
    return Hit(index, message, expected, observed, step.step_id)


def _text(value: Any) -> str:
    """A value as JSON text for a message, cut past 80 characters."""
    text = json.dumps(value, ensure_ascii=False, default=str, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."
