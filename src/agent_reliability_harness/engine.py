"""Evaluation: one compiled policy, many traces; each trace -> one TraceReport.

The Evaluator selects the rules that apply to the policy, and compiles what they
declare, once. Per trace, a TraceRun indexes the steps (TraceFacts) and lets each
class rule scan them, all at once or a chunk at a time for a trace too big to hold;
then it finishes every rule, stamps registry metadata on their hits (at most
MAX_FINDINGS per rule, see POLICY-SPEC.md), sorts the findings and scores the trace.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .agent_runs import AgentPlan, AgentRuns, entry_rule
from .models.common import Category, Severity
from .models.policy import Policy
from .models.report import Finding, TraceReport
from .models.trace import Step, Trace
from .rules import Hit, Rule, RuleContext, RuleResult, RuleState, TraceFacts, all_rules
from .rules.base import MAX_FINDINGS, Moment
from .rules.dataflow import PROBING
from .rules.facts import json_number
from .scoring import (
    DEFAULT_FAIL_UNDER,
    ScorePlan,
    Tally,
    combined_scores,
    passes,
    round_score,
    trace_score,
)

# The position of the "and K more" finding: after every step, so it sorts last.
_AFTER_EVERY_STEP = 2**62


class Evaluator:
    """A policy compiled for evaluation; reuse it for every trace of a run."""

    def __init__(
        self,
        policy: Policy,
        fail_under: float = DEFAULT_FAIL_UNDER,
        select: Callable[[Rule, Policy], bool] | None = None,
    ) -> None:
        """`select`: which rules apply (default: those the policy turns on)."""
        if not 0 <= fail_under <= 100:
            raise ValueError(f"fail_under must be between 0 and 100 (got {fail_under})")
        self.policy = policy
        self.fail_under = fail_under
        rules = [
            (r, r.effective_severity(policy))
            for r in all_rules(policy.plugins)
            if (r.applies(policy) if select is None else select(r, policy))
        ]
        compiled: dict[Callable[[Policy], Any], Any] = {}
        checks: list[tuple[Callable[[RuleContext], RuleResult], Rule, Severity]] = []
        states: list[tuple[type[RuleState], Any, Rule, Severity]] = []
        for rule, severity in rules:
            if rule.check is not None:
                checks.append((rule.check, rule, severity))
                continue
            assert rule.state is not None
            made = rule.compile
            if made is not None and made not in compiled:
                compiled[made] = made(policy)
            states.append((rule.state, policy if made is None else compiled[made], rule, severity))
        self.rules = tuple(rule for rule, _ in rules)
        self._checks = tuple(checks)
        self._states = tuple(states)
        # The preventive rules a session asks about a call before it runs (TraceRun.probe):
        # a check function's probe (state None), or the position of a class rule's state.
        self._probes = tuple(
            (rule, severity, rule.probe, None)
            for _, rule, severity in checks
            if rule.moment is Moment.PREVENTIVE and rule.probe is not None
        ) + tuple(
            (rule, severity, None, k)
            for k, (_, _, rule, severity) in enumerate(states)
            if rule.moment is Moment.PREVENTIVE
        )
        # Results come checks first, then states: the plan and the findings follow that.
        self._order = tuple((r, s) for _, r, s in checks) + tuple((r, s) for _, _, r, s in states)
        self._plan = ScorePlan(self._order)
        self._watched = frozenset(policy.sequence.forbidden_tools)
        self._error_outputs = policy.error_handling.error_output_patterns or None
        self._failed_when = policy.failed_when or None
        # Policy v1.2 `agents`: each entry's own Evaluator (agent_runs.py).
        self._agents = None
        if policy.agents is not None:
            self._agents = AgentPlan(policy, lambda p: Evaluator(p, fail_under, entry_rule))

    def evaluate(
        self,
        trace: Trace,
        source_path: str | None = None,
        source_line: int | None = None,
        step_lines: tuple[int, ...] = (),
    ) -> TraceReport:
        """Run every applicable rule over one trace and score it."""
        run = TraceRun(self, trace)
        run.add(trace.steps, complete=True)
        return run.finish(trace, source_path, source_line, step_lines)

    def start(self, head: Trace | None = None, probing: bool = False) -> TraceRun:
        """Evaluate a trace given a chunk of steps at a time (`add`), then `finish`.
        `head`: the trace's top-level fields when they are known first (its steps are not
        read); `probing`: a session that asks about each call before it runs (`probe`)."""
        return TraceRun(self, head, probing)


class TraceRun:
    """One trace under evaluation: its facts and each applicable class rule's state."""

    __slots__ = ("agents", "ctx", "evaluator", "facts", "states")

    def __init__(self, evaluator: Evaluator, trace: Trace | None, probing: bool = False) -> None:
        """`probing`: the steps come one at a time or in chunks, with the trace's top-level
        fields in `trace` (its steps not read), and `probe` asks about the next call."""
        self.evaluator = evaluator
        self.facts = facts = TraceFacts(
            watched=evaluator._watched,
            error_outputs=evaluator._error_outputs,
            failed_when=evaluator._failed_when,
        )
        if probing:
            facts.trace_memo[PROBING] = True
        if trace is not None:
            facts.agent_name = trace.agent_name
        self.ctx = RuleContext(trace, evaluator.policy, self.facts)
        self.states = [cls(compiled) for cls, compiled, _, _ in evaluator._states]
        plan = evaluator._agents
        self.agents: AgentRuns | None = (
            None if plan is None else plan.start(trace if probing else None, probing)
        )

    def add(
        self, steps: Sequence[Step], complete: bool = False, agent_name: str | None = None
    ) -> None:
        """The next steps of the trace, in order (`complete`: all of them at once).
        `agent_name`: the trace's, when it is known before its steps are all read."""
        facts = self.facts
        if agent_name is not None:
            facts.agent_name = agent_name
        facts.add(steps, complete)
        ctx = self.ctx
        for state in self.states:
            state.scan(ctx)
        if self.agents is not None:
            self.agents.add(steps, facts.start, facts.agent_name, complete)

    def probe(self, step: Step) -> list[Finding]:
        """The findings the preventive rules would make on the tool call `step` if it
        were the next step, before its outcome is known, from each rule's state of the
        steps added so far (one at a time or in chunks, never `complete`); nothing
        changes. A session's TraceFacts must say so before its first step (`probing`)."""
        evaluator, ctx = self.evaluator, self.ctx
        index = self.facts.step_count
        findings: list[Finding] = []
        for rule, severity, probe, k in evaluator._probes:
            if probe is None:
                assert k is not None
                hits = self.states[k].probe(ctx, index, step)
            else:
                hits = probe(ctx, index, step)
            if hits:
                findings += _findings(rule, severity, hits, 0)
        if self.agents is not None:
            findings += self.agents.probe(step, index, self.facts.agent_name)
        return findings

    def agent_name_fits(self, trace: Trace) -> bool:
        """Whether the agent_name the steps were read with is the trace's (a trace read a
        chunk at a time could name another after its steps, by repeating the key: it
        must then be read whole)."""
        known = self.facts.agent_name
        return self.agents is None or known is None or known == trace.agent_name

    def finish_parts(self, trace: Trace) -> tuple[list[Finding], dict[Category, Tally]]:
        """Every rule's findings (unsorted) and the category tallies, once every step was
        added; `trace` gives the top-level fields (its steps are not read)."""
        evaluator, facts = self.evaluator, self.facts
        facts.close()
        if facts.agent_name is None:
            facts.agent_name = trace.agent_name
        ctx = self.ctx if self.ctx.trace is trace else RuleContext(trace, evaluator.policy, facts)
        results = [check(ctx) for check, _, _ in evaluator._checks]
        results += [state.finish(ctx) for state in self.states]
        findings: list[Finding] = []
        for (rule, severity), result in zip(evaluator._order, results, strict=True):
            if result.hits:
                findings += _findings(rule, severity, result.hits, result.more)
        return findings, evaluator._plan.tallies(results)

    def finish(
        self,
        trace: Trace,
        source_path: str | None = None,
        source_line: int | None = None,
        step_lines: tuple[int, ...] = (),
    ) -> TraceReport:
        """The report, once every step was added; `trace` gives the top-level fields
        (its steps are not read)."""
        evaluator, facts = self.evaluator, self.facts
        policy = evaluator.policy
        findings, tally = self.finish_parts(trace)
        tallies = [tally]
        if self.agents is not None:
            more, agent_tallies = self.agents.finish(trace)
            findings += more
            tallies += agent_tallies
        if len(findings) > 1:
            findings.sort(key=Finding.sort_key)
        scores = combined_scores(tallies)
        score = round_score(trace_score(scores))
        coverage = facts.citation_coverage
        return TraceReport(
            trace_id=trace.trace_id,
            agent_name=trace.agent_name,
            workflow=trace.workflow,
            policy_id=policy.policy_id,
            score=score,
            passed=passes(findings, score, evaluator.fail_under),
            total_latency_ms=json_number(facts.latency_total),
            total_cost_usd=json_number(facts.cost_total),
            total_tokens=facts.token_total,
            citation_coverage=None if coverage is None else round(coverage, 4),
            source_path=source_path,
            findings=tuple(findings),
            category_scores={c.value: round_score(s) for c, s in scores.items()},
            source_line=source_line,
            step_lines=step_lines,
            task_id=trace.task_id,
            outcome=trace.outcome,
        )


def _findings(rule: Rule, severity: Severity, hits: list[Hit], left_out: int) -> list[Finding]:
    """The rule's hits as findings; beyond MAX_FINDINGS, the first ones in report order
    and one finding for the rest (including the `left_out` hits the rule did not list)."""
    category, remediation = rule.category.value, rule.remediation
    findings = [
        Finding(
            rule_id=rule.rule_id,
            severity=severity,
            category=category,
            message=hit.message,
            step_id=hit.step_id,
            expected=hit.expected,
            observed=hit.observed,
            remediation=remediation,
            step_index=hit.step_index,
            source_step_id=hit.source_step_id,
            source_step_index=hit.source_step_index,
        )
        for hit in hits
    ]
    if len(findings) + left_out <= MAX_FINDINGS:
        return findings
    findings.sort(key=Finding.sort_key)
    more = len(findings) + left_out - MAX_FINDINGS
    del findings[MAX_FINDINGS:]
    findings.append(
        Finding(
            rule_id=rule.rule_id,
            severity=severity,
            category=category,
            message=f"... and {more} more {rule.rule_id} findings",
            observed=more,
            remediation=remediation,
            step_index=_AFTER_EVERY_STEP,
        )
    )
    return findings


def rule_result(rule: Rule, trace: Trace, policy: Policy) -> RuleResult:
    """One rule's result on a whole trace, as the engine gets it (for tests and tools)."""
    facts = TraceFacts(
        trace,
        watched=frozenset(policy.sequence.forbidden_tools),
        error_outputs=policy.error_handling.error_output_patterns,
        failed_when=policy.failed_when,
    )
    ctx = RuleContext(trace, policy, facts)
    if rule.check is not None:
        return rule.check(ctx)
    assert rule.state is not None
    state = rule.state(policy if rule.compile is None else rule.compile(policy))
    state.scan(ctx)
    return state.finish(ctx)


def evaluate(trace: Trace, policy: Policy, fail_under: float = DEFAULT_FAIL_UNDER) -> TraceReport:
    """Evaluate one trace against a policy (compiles the rule selection each call)."""
    return Evaluator(policy, fail_under).evaluate(trace)
