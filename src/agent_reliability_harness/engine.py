"""Evaluation: one compiled policy, many traces; each trace -> one TraceReport.

The Evaluator selects the rules that apply to the policy once. Per trace, a
TraceRun indexes the steps (TraceFacts) and lets each rule scan them, all at once
or a chunk at a time for a trace too big to hold; then it finishes every rule,
stamps registry metadata on their hits, sorts the findings and scores the trace.
"""

from __future__ import annotations

from collections.abc import Sequence

from .models.common import Category, Severity
from .models.policy import Policy
from .models.report import Finding, TraceReport
from .models.trace import Step, Trace
from .rules import Rule, RuleContext, RuleResult, RuleState, TraceFacts, all_rules
from .rules.facts import json_number
from .scoring import DEFAULT_FAIL_UNDER, category_scores, passes, round_score, trace_score


class Evaluator:
    """A policy compiled for evaluation; reuse it for every trace of a run."""

    def __init__(self, policy: Policy, fail_under: float = DEFAULT_FAIL_UNDER) -> None:
        if not 0 <= fail_under <= 100:
            raise ValueError(f"fail_under must be between 0 and 100 (got {fail_under})")
        self.policy = policy
        self.fail_under = fail_under
        self._rules: tuple[tuple[Rule, Severity], ...] = tuple(
            (r, r.effective_severity(policy)) for r in all_rules() if r.applies(policy)
        )
        self._categories = tuple(dict.fromkeys(rule.category for rule, _ in self._rules))
        # What the per-trace code needs of each rule, by how it was declared.
        rules = self._rules
        self._checks = tuple((r.check_fn, r, s) for r, s in rules if r.check_fn is not None)
        self._step_rules = tuple((r.scan_fn, r, s) for r, s in rules if r.scan_fn is not None)
        self._stateful = tuple((r.state_cls, r, s) for r, s in rules if r.state_cls is not None)

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

    def start(self) -> TraceRun:
        """Evaluate a trace given a chunk of steps at a time (`add`), then `finish`."""
        return TraceRun(self, None)


class TraceRun:
    """One trace under evaluation: its facts and each applicable rule's state."""

    __slots__ = ("ctx", "evaluator", "facts", "results", "states")

    def __init__(self, evaluator: Evaluator, trace: Trace | None) -> None:
        self.evaluator = evaluator
        policy = evaluator.policy
        self.facts = TraceFacts()
        self.ctx = RuleContext(trace, policy, self.facts)
        self.results = [RuleResult() for _ in evaluator._step_rules]
        self.states: list[RuleState] = [cls(policy) for cls, _, _ in evaluator._stateful]

    def add(self, steps: Sequence[Step], complete: bool = False) -> None:
        """The next steps of the trace, in order (`complete`: all of them at once)."""
        self.facts.add(steps, complete)
        ctx = self.ctx
        for (scan, _, _), result in zip(self.evaluator._step_rules, self.results, strict=True):
            scan(ctx, result)
        for state in self.states:
            state.scan(ctx)

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
        facts.close()
        ctx = self.ctx
        findings: list[Finding] = []
        # [checks, failed] per category of the applicable rules.
        totals: dict[Category, list[int]] = {c: [0, 0] for c in evaluator._categories}
        results = [(check(ctx), rule, severity) for check, rule, severity in evaluator._checks]
        results += [
            (result, rule, severity)
            for (_, rule, severity), result in zip(evaluator._step_rules, self.results, strict=True)
        ]
        results += [
            (state.finish(ctx), rule, severity)
            for (_, rule, severity), state in zip(evaluator._stateful, self.states, strict=True)
        ]
        for result, rule, severity in results:
            category = rule.category
            counts = totals[category]
            counts[0] += result.checks
            counts[1] += result.failed
            if not result.hits:
                continue
            for hit in result.hits:
                findings.append(
                    Finding(
                        rule_id=rule.rule_id,
                        severity=severity,
                        category=category.value,
                        message=hit.message,
                        step_id=hit.step_id,
                        expected=hit.expected,
                        observed=hit.observed,
                        remediation=rule.remediation,
                        step_index=hit.step_index,
                    )
                )
        if len(findings) > 1:
            findings.sort(key=Finding.sort_key)
        scores = category_scores(policy, facts, totals, findings)
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


def evaluate(trace: Trace, policy: Policy, fail_under: float = DEFAULT_FAIL_UNDER) -> TraceReport:
    """Evaluate one trace against a policy (compiles the rule selection each call)."""
    return Evaluator(policy, fail_under).evaluate(trace)
