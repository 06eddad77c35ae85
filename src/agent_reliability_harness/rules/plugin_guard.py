"""A plugin's rule, guarded (docs/plugins.md, "Faults"): whatever its code does, it is
either used as documented or stopped with one PluginError naming the plugin.

- Its `applies`, `compile`, `check`, `scan` and `finish` raising is the plugin's fault.
- What it returns is checked: a RuleResult with counts that are integers >= 0 and hits
  whose wording is text and whose quoted values are JSON values (no NaN, no set).
- It sees a copy of the trace and facts built from that copy, never the objects the
  built-in rules and the other plugins' rules read: no rule can change another's verdict
  by mutating what it is given. Only a run whose policy names a plugin pays for the copy;
  the built-in rules' path is unchanged.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import Any

import msgspec

from ..errors import PluginError
from ..models.policy import Policy
from ..models.trace import Step, Trace
from .base import Hit, Rule, RuleContext, RuleResult, RuleState
from .facts import TraceFacts

_SCALARS = (str, bool, type(None))
_MAX_DEPTH = 64


def _fault(name: str, rule: Rule, what: str, ctx: RuleContext | None) -> PluginError:
    trace = ""
    if ctx is not None and ctx.trace is not None:
        trace = f" on trace '{ctx.trace.trace_id}'"
    return PluginError(
        f"plugin '{name}': rule {rule.rule_id} {what}{trace} "
        "(a fault of the plugin; the run is stopped)"
    )


def _raised(exc: Exception, where: str = "") -> str:
    return f"raised {type(exc).__name__}: {exc}{where}"


# -- copies ---------------------------------------------------------------------------


def _copy(value: Any) -> Any:
    """A JSON-like value copied: containers new, scalars shared (they cannot change)."""
    kind = type(value)
    if kind is dict:
        return {key: _copy(item) for key, item in value.items()}
    if kind is list:
        return [_copy(item) for item in value]
    if kind is tuple:
        return tuple(_copy(item) for item in value)
    if kind in _SCALARS or kind is int or kind is float:
        return value
    return copy.deepcopy(value)


def _copy_step(step: Step) -> Step:
    if (
        step.arguments is None
        and not step.metadata
        and not step.citations
        and type(step.output) in (str, type(None))
    ):
        return step  # nothing in it can change
    return msgspec.structs.replace(
        step,
        arguments=_copy(step.arguments),
        output=_copy(step.output),
        citations=_copy(step.citations),
        metadata=_copy(step.metadata),
    )


def _copy_trace(trace: Trace, steps: tuple[Step, ...] | None = None) -> Trace:
    return msgspec.structs.replace(
        trace,
        steps=tuple(_copy_step(s) for s in trace.steps) if steps is None else steps,
        metadata=_copy(trace.metadata),
        outcome=_copy(trace.outcome),
    )


def _fresh_facts(facts: TraceFacts) -> TraceFacts:
    own = TraceFacts(
        watched=facts.watched, error_outputs=facts.error_outputs, failed_when=facts.failed_when
    )
    own.agent_name = facts.agent_name
    return own


def _copied_context(ctx: RuleContext) -> RuleContext:
    """For a check function: the whole trace copied and indexed again; a trace read a
    chunk at a time (whose steps are gone) has its facts deep-copied."""
    trace, facts = ctx.trace, ctx.facts
    if trace is not None and facts.complete and facts.step_count == len(trace.steps):
        copied = _copy_trace(trace)
        own = _fresh_facts(facts)
        own.add(copied.steps, complete=True)
        own.close()
        return RuleContext(copied, ctx.policy, own)
    memo: dict[int, Any] = {id(ctx.policy): ctx.policy}
    return RuleContext(
        None if trace is None else _copy_trace(trace), ctx.policy, copy.deepcopy(facts, memo)
    )


# -- results --------------------------------------------------------------------------


def _json_problem(value: Any, depth: int = 0) -> str | None:
    """Why a quoted value is no JSON value (None: it is one)."""
    kind = type(value)
    if kind in _SCALARS or kind is int:
        return None
    if kind is float:
        return None if math.isfinite(value) else f"is {value}, not a finite number"
    if depth > _MAX_DEPTH:
        return f"nests deeper than {_MAX_DEPTH} levels"
    if kind is list or kind is tuple:
        for item in value:
            problem = _json_problem(item, depth + 1)
            if problem is not None:
                return problem
        return None
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                return f"has a {type(key).__name__} key"
            problem = _json_problem(item, depth + 1)
            if problem is not None:
                return problem
        return None
    return f"is a {kind.__name__}, not a JSON value"


def _count_problem(name: str, value: Any) -> str | None:
    if type(value) is not int or value < 0:
        return f"{name} is {value!r}, not an integer >= 0"
    return None


def _hit_problem(index: int, hit: Any) -> str | None:
    if type(hit) is not Hit:
        return f"hits[{index}] is a {type(hit).__name__}, not a Hit"
    if type(hit.message) is not str:
        return f"hits[{index}].message is a {type(hit.message).__name__}, not a string"
    for field in ("step_index", "source_step_index"):
        position = getattr(hit, field)
        if position is not None and (type(position) is not int or position < 0):
            return f"hits[{index}].{field} is {position!r}, not a step position"
    for field in ("step_id", "source_step_id"):
        step_id = getattr(hit, field)
        if step_id is not None and type(step_id) is not str:
            return f"hits[{index}].{field} is a {type(step_id).__name__}, not a string"
    for field in ("expected", "observed"):
        problem = _json_problem(getattr(hit, field))
        if problem is not None:
            return f"hits[{index}].{field} {problem}"
    return None


def result_problem(result: Any) -> str | None:
    """Why what a plugin's rule returned is not a usable RuleResult (None: it is)."""
    if type(result) is not RuleResult:
        return f"returned a {type(result).__name__}, not a RuleResult"
    for name in ("checks", "failed", "more"):
        problem = _count_problem(name, getattr(result, name))
        if problem is not None:
            return f"returned a result whose {problem}"
    target = result.target
    if target is not None and (
        type(target) not in (int, float) or not math.isfinite(target) or target < 0
    ):
        return f"returned a result whose target is {target!r}, not a finite number >= 0"
    if type(result.hits) is not list:
        return f"returned a result whose hits are a {type(result.hits).__name__}, not a list"
    for index, hit in enumerate(result.hits):
        problem = _hit_problem(index, hit)
        if problem is not None:
            return f"returned a result whose {problem}"
    return None


def _checked(name: str, rule: Rule, result: Any, ctx: RuleContext) -> RuleResult:
    problem = result_problem(result)
    if problem is not None:
        raise _fault(name, rule, problem, ctx)
    checked: RuleResult = result
    return checked


# -- the wrappers -----------------------------------------------------------------------


def _guarded_policy_fn(
    name: str, rule: Rule, fn: Callable[[Policy], Any], what: str
) -> Callable[[Policy], Any]:
    def guarded(policy: Policy) -> Any:
        try:
            return fn(policy)
        except Exception as exc:
            raise _fault(name, rule, _raised(exc, f" in {what}"), None) from None

    return guarded


def _guarded_check(name: str, rule: Rule, check: Callable[[RuleContext], RuleResult]) -> Any:
    def guarded_check(ctx: RuleContext) -> RuleResult:
        own = _copied_context(ctx)
        try:
            result = check(own)
        except Exception as exc:
            raise _fault(name, rule, _raised(exc), ctx) from None
        return _checked(name, rule, result, ctx)

    return guarded_check


def _guarded_state(name: str, rule: Rule, state: type[RuleState]) -> type[RuleState]:
    class Guarded(state):  # type: ignore[valid-type,misc]
        """The plugin's state, fed copies of the steps and its own facts over them."""

        __slots__ = ("_own_facts", "_own_trace", "_seen")

        def __init__(self, compiled: Any) -> None:
            self._own_facts: TraceFacts | None = None
            self._own_trace: Trace | None = None
            self._seen: Trace | None = None
            try:
                super().__init__(compiled)
            except Exception as exc:
                raise _fault(name, rule, _raised(exc, " in __init__"), None) from None

        def _context(self, ctx: RuleContext) -> RuleContext:
            facts = ctx.facts
            own = self._own_facts
            if own is None:
                own = self._own_facts = _fresh_facts(facts)
            own.agent_name = facts.agent_name
            trace = ctx.trace
            if trace is not None:
                self._seen, self._own_trace = trace, _copy_trace(trace)
                own.add(self._own_trace.steps, facts.complete)
            else:
                own.add(tuple(_copy_step(s) for s in facts.steps), facts.complete)
            return RuleContext(self._own_trace if trace is not None else None, ctx.policy, own)

        def scan(self, ctx: RuleContext) -> None:
            own = self._context(ctx)
            try:
                super().scan(own)
            except Exception as exc:
                raise _fault(name, rule, _raised(exc), ctx) from None

        def finish(self, ctx: RuleContext) -> RuleResult:
            own = self._own_facts or _fresh_facts(ctx.facts)
            own.close()
            trace = ctx.trace
            if trace is not None and trace is not self._seen:
                self._seen, self._own_trace = trace, _copy_trace(trace)
            copied = RuleContext(self._own_trace if trace is not None else None, ctx.policy, own)
            try:
                result = super().finish(copied)
            except Exception as exc:
                raise _fault(name, rule, _raised(exc), ctx) from None
            return _checked(name, rule, result, ctx)

    Guarded.__name__ = Guarded.__qualname__ = state.__name__
    return Guarded


def guarded(name: str, rule: Rule) -> Rule:
    """The plugin `name`'s rule with its code wrapped (see the module docstring)."""
    changes: dict[str, Any] = {
        "applies": _guarded_policy_fn(name, rule, rule.applies, "applies"),
    }
    if rule.compile is not None:
        changes["compile"] = _guarded_policy_fn(name, rule, rule.compile, "compile")
    if rule.severity_for is not None:
        changes["severity_for"] = _guarded_policy_fn(name, rule, rule.severity_for, "severity_for")
    if rule.check is not None:
        changes["check"] = _guarded_check(name, rule, rule.check)
    else:
        assert rule.state is not None
        changes["state"] = _guarded_state(name, rule, rule.state)
    return msgspec.structs.replace(rule, **changes)
