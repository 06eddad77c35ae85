"""The rule declaration: one `@rule(...)` per rule ID, in REGISTRY.

What is decorated tells the kind of rule:

- a function `check(ctx) -> RuleResult` decides from the trace-wide facts once every
  step has been read (counts, first calls, totals, the last step);
- a class (a `RuleState`) is made once per trace and sees the steps as they are read:
  `scan(ctx)` for each run of steps, then `finish(ctx) -> RuleResult`; both optional.

A class rule that declares `compile=` is made with `compile(policy)`, built once per
Evaluator (otherwise with the policy). A Hit carries only location and wording; the
engine stamps rule ID, category and severity from the declaration, and scoring reads
only the results and each rule's `counts`, so no rule can drift from the registry.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from enum import Enum
from typing import Any, TypeVar

import msgspec

from ..models.common import Category, Severity
from ..models.policy import Policy
from ..models.trace import Step, Trace
from .facts import TraceFacts

_ID_PATTERN = re.compile(r"ARH-(SCH|BUD|SAF|GRD|SEQ|FLW|CMP)-\d{3}")
# A plugin's rule ID (docs/plugins.md): its own prefix, never ARH-.
_PLUGIN_ID_PATTERN = re.compile(r"[A-Z][A-Z0-9]*-([A-Z]{3})-[0-9]{3}")
_BUILT_IN = "ARH-"
_HELP_URI = re.compile(r"https://[!-~]+")
# The package that declares the built-in rules; every other module declares plugin rules.
_OWN_MODULES = __name__.rsplit(".", 1)[0] + "."
_PREFIX = {
    "SCH": Category.SCHEMA,
    "BUD": Category.BUDGET,
    "SAF": Category.SAFETY,
    "GRD": Category.GROUNDING,
    "SEQ": Category.SEQUENCE,
    "FLW": Category.FLOW,
    "CMP": Category.COMPLETION,
}
# IDs that were once used and must never be reused.
RETIRED_IDS: frozenset[str] = frozenset()
# Findings reported per (rule, trace): the first ones in report order, then one finding
# "... and K more <rule> findings" (POLICY-SPEC.md). Scores still count every check.
MAX_FINDINGS = 1000


class Moment(Enum):
    """When a rule's findings can be known (docs/guard.md): `arh guard` denies a call
    on an error-severity PREVENTIVE finding, before it runs."""

    # From the call's name and arguments and the steps before it: asked before the call
    # runs (the rule's `probe`), and a denial when an error-severity finding lands on it.
    PREVENTIVE = "preventive"
    # From a recorded step's own result (output, status, latency): checked once it is
    # recorded; reported, never a denial.
    AFTER = "after"
    # From the whole run (totals, what never happened, expected trajectories): checked
    # when the session ends.
    CLOSING = "closing"


class Counts(Enum):
    """How a rule's results count towards its category's score (see scoring.py)."""

    # 100 x (checks - failed) / checks over the category's rules; the category applies
    # once one of its rules ran a check.
    RATIO = "ratio"
    # The same, and the category applies whenever this rule applies, checks or not.
    RATIO_WHEN_SET = "ratio when set"
    # One check per tool call (`checks`: the calls the rule looked at); a call fails when
    # an error-severity hit of any per-call rule lands on it.
    PER_CALL = "per tool call"
    # Coverage c = (checks - failed) / checks against the result's `target`.
    COVERAGE = "coverage"
    # Never scored: lint (a step id repeated, an adapter note) and findings that add no
    # check (a budget that cannot be verified, coverage below its minimum); an
    # error-severity hit still fails the trace.
    NONE = "not scored"


# gc=False: a hit holds a location, wording and the values a rule quoted, never an
# object that refers back to it, so it cannot be part of a reference cycle.
class Hit(msgspec.Struct, frozen=True, gc=False):
    """What a check found: where (step position and id, or None for the trace) and what."""

    step_index: int | None
    message: str
    expected: Any = None
    observed: Any = None
    # The id of the step at step_index (the step itself may be gone by the time the
    # trace is reported, when it is read a chunk at a time).
    step_id: str | None = None
    # Data flow (ARH-FLW-004): the earlier step whose output the finding's value came
    # from, by position and id; renderers link to it.
    source_step_index: int | None = None
    source_step_id: str | None = None


class RuleResult(msgspec.Struct):
    """Checks counted for the category score, how many failed, and the hits."""

    checks: int = 0
    failed: int = 0
    hits: list[Hit] = msgspec.field(default_factory=list)
    # Counts.COVERAGE: the coverage that scores 100 (None or 0: the coverage itself).
    target: float | None = None
    # Hits the rule left out: a rule with more than MAX_FINDINGS hits may return just
    # the first MAX_FINDINGS of them in report order and count the rest here.
    more: int = 0


class RuleContext(msgspec.Struct, frozen=True):
    """What a rule sees: the trace (None while it is read a chunk at a time), the policy,
    and the facts: the steps being scanned and the trace-wide indexes (see TraceFacts)."""

    trace: Trace | None
    policy: Policy
    facts: TraceFacts


class RuleState:
    """Per-trace state of a class rule. `scan` sees each run of steps in order (the
    whole trace, or a chunk of a long one: the same result either way); `finish` gives
    the result. The defaults do nothing and give `self.result`."""

    __slots__ = ("compiled", "result")

    def __init__(self, compiled: Any) -> None:
        self.compiled = compiled  # what the rule's `compile` made (else the policy)
        self.result = RuleResult()

    def scan(self, ctx: RuleContext) -> None:
        return None

    def finish(self, ctx: RuleContext) -> RuleResult:
        return self.result

    def probe(self, ctx: RuleContext, index: int, step: Step) -> list[Hit]:
        """A preventive rule's hits on the tool call `step` if it came next, at position
        `index`, from the state of the steps scanned so far (`ctx.facts` describes
        them); its outcome is not known yet, and the state is not changed."""
        raise NotImplementedError


CheckFn = Callable[[RuleContext], RuleResult]
# A preventive check rule's `probe` (the RuleState method, for a check function).
ProbeFn = Callable[[RuleContext, int, Step], list[Hit]]


class Rule(msgspec.Struct, frozen=True):
    """Everything about one rule, declared in one place."""

    rule_id: str
    category: Category
    severity: Severity
    title: str
    remediation: str
    applies: Callable[[Policy], bool]
    counts: Counts
    # For the one rule whose severity depends on the policy (ARH-GRD-001).
    severity_for: Callable[[Policy], Severity] | None = None
    severity_note: str | None = None
    # Exactly one of these, by what was decorated.
    check: CheckFn | None = None
    state: type[RuleState] | None = None
    # Per-policy data the state is made with (class rules only).
    compile: Callable[[Policy], Any] | None = None
    # The module that declared the rule (a plugin's rules are those of its module).
    module: str = ""
    # A plugin rule's documentation page (a built-in rule's is docs/rules.md).
    help_uri: str | None = None
    # A finding's message as docs/rules.md shows it (None: no example shown).
    example: str | None = None

    # When its findings can be known (a plugin rule's default: AFTER, never a denial).
    moment: Moment = Moment.AFTER
    # A preventive check function's probe (a preventive class rule's is its method).
    probe: ProbeFn | None = None
    # Which findings of a preventive rule the guard decides before the call, by their
    # `observed` (None: every finding at a step; ARH-SAF-001: not those in an output).
    decided_before: Callable[[Any], bool] | None = None

    @property
    def built_in(self) -> bool:
        return self.rule_id.startswith(_BUILT_IN)

    # The policy format that brought the rule: a "1.2" rule is listed in SARIF's rule
    # catalogue only when the run reports it, so that v1/v1.1 runs write the same bytes.
    since: str = "1"

    def effective_severity(self, policy: Policy) -> Severity:
        return self.severity if self.severity_for is None else self.severity_for(policy)


REGISTRY: dict[str, Rule] = {}
# The rules of the plugins imported so far (IDs not starting with ARH-); a run uses
# only those of the plugins its policy names (rules/plugins.py).
PLUGIN_RULES: dict[str, Rule] = {}


class RuleIdError(ValueError):
    """A rule ID that is malformed, in the wrong category, or already used."""


def _always(_: Policy) -> bool:
    return True


def _check_id(rule_id: str, category: Category) -> None:
    """Refuse malformed, mis-categorised, duplicate or retired IDs."""
    built_in = rule_id.startswith(_BUILT_IN)
    match = (_ID_PATTERN if built_in else _PLUGIN_ID_PATTERN).fullmatch(rule_id)
    if match is None:
        shape = "" if built_in else " (a plugin rule ID looks like ACME-SAF-001)"
        raise RuleIdError(f"malformed rule ID {rule_id!r}{shape}")
    prefix = _PREFIX.get(match.group(1))
    if prefix is None:
        codes = ", ".join(_PREFIX)
        raise RuleIdError(f"rule ID {rule_id}: {match.group(1)} is not a category ({codes})")
    if prefix is not category:
        raise RuleIdError(f"rule {rule_id} declared in category {category.value}")
    if rule_id in REGISTRY or rule_id in RETIRED_IDS:
        raise RuleIdError(f"rule ID {rule_id} is already used or retired")
    taken = PLUGIN_RULES.get(rule_id)
    if taken is not None:
        raise RuleIdError(f"rule ID {rule_id} is already declared by {taken.module}")


_D = TypeVar("_D")


def _kind(rule_id: str, declared: Any, compile: Any) -> dict[str, Any]:
    """What a rule declaration decorates: a RuleState class (with its compile) or a check."""
    if isinstance(declared, type):
        if not issubclass(declared, RuleState):
            raise TypeError(f"rule {rule_id}: a class rule must subclass RuleState")
        return {"state": declared, "compile": compile}
    if callable(declared) and compile is None:
        return {"check": declared}
    raise TypeError(f"rule {rule_id}: declare a check function or a RuleState class")


def rule(
    rule_id: str,
    category: Category,
    severity: Severity,
    *,
    title: str,
    remediation: str,
    applies: Callable[[Policy], bool] = _always,
    counts: Counts = Counts.RATIO,
    compile: Callable[[Policy], Any] | None = None,
    severity_for: Callable[[Policy], Severity] | None = None,
    severity_note: str | None = None,
    help_uri: str | None = None,
    since: str = "1",
    example: str | None = None,
    moment: Moment | None = None,
    probe: ProbeFn | None = None,
    decided_before: Callable[[Any], bool] | None = None,
) -> Callable[[_D], _D]:
    """Declare a rule: decorate a `check(ctx)` function or a RuleState subclass (see the
    module docstring); what is decorated is registered and given back unchanged. A
    plugin's rule (docs/plugins.md) is declared the same way, with its own ID prefix.
    `moment`: see Moment (a PREVENTIVE rule answers `probe`; see _moment)."""
    _check_id(rule_id, category)
    if help_uri is not None and _HELP_URI.fullmatch(help_uri) is None:
        raise ValueError(f"rule {rule_id}: help_uri must be an https:// URL (got {help_uri!r})")

    def register(declared: _D) -> _D:
        _check_id(rule_id, category)  # still free: nothing took it in between
        kind = _kind(rule_id, declared, compile)
        module = _declaring_module(rule_id, declared)
        when = _moment(rule_id, moment, probe, declared)
        built_in = rule_id.startswith(_BUILT_IN)
        (REGISTRY if built_in else PLUGIN_RULES)[rule_id] = Rule(
            rule_id,
            category,
            severity,
            title,
            remediation,
            applies,
            counts,
            severity_for=severity_for,
            severity_note=severity_note,
            module=module,
            help_uri=help_uri,
            since=since,
            example=example,
            moment=when,
            probe=probe,
            decided_before=decided_before,
            **kind,
        )
        return declared

    return register


def _moment(rule_id: str, moment: Moment | None, probe: ProbeFn | None, declared: Any) -> Moment:
    """The declared moment (required of a built-in rule; a plugin rule's default: AFTER).
    A PREVENTIVE rule answers `probe`: its RuleState method, or `probe=` for a check
    function."""
    if moment is None:
        if rule_id.startswith(_BUILT_IN):
            raise TypeError(f"rule {rule_id}: a built-in rule declares its moment")
        moment = Moment.AFTER
    if probe is not None and moment is not Moment.PREVENTIVE:
        raise TypeError(f"rule {rule_id}: only a preventive rule has a probe")
    probes = probe is not None or getattr(declared, "probe", RuleState.probe) is not RuleState.probe
    if moment is Moment.PREVENTIVE and not probes:
        raise TypeError(f"rule {rule_id}: a preventive rule must define probe")
    return moment


def _declaring_module(rule_id: str, declared: Any) -> str:
    """The module that declares a rule: ARH's own for an ARH- ID, any other for a plugin's."""
    module = str(getattr(declared, "__module__", ""))
    if rule_id.startswith(_BUILT_IN) != module.startswith(_OWN_MODULES):
        if rule_id.startswith(_BUILT_IN):
            raise RuleIdError(f"rule ID {rule_id}: IDs starting with {_BUILT_IN} are ARH's own")
        raise RuleIdError(f"rule ID {rule_id}: a built-in rule's ID starts with {_BUILT_IN}")
    return module


def brief(value: Any, limit: int = 200) -> Any:
    """A value small enough to show in a finding: long strings and containers are cut."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + "..."
    if isinstance(value, list | dict):
        text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
        return value if len(text) <= limit else text[:limit] + "..."
    return value
