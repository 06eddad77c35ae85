"""Evaluation: one compiled policy, many traces; each trace -> one TraceReport.

The Evaluator selects the rules that apply to the policy once; per trace it
builds TraceFacts once, runs those rules, stamps registry metadata on their
hits, sorts the findings and scores the trace.
"""

from __future__ import annotations

from .models.common import Category
from .models.policy import Policy
from .models.report import Finding, TraceReport
from .models.trace import Trace
from .rules import Rule, RuleContext, TraceFacts, all_rules
from .rules.facts import json_number
from .scoring import DEFAULT_FAIL_UNDER, category_scores, passes, round_score, trace_score


class Evaluator:
    """A policy compiled for evaluation; reuse it for every trace of a run."""

    def __init__(self, policy: Policy, fail_under: float = DEFAULT_FAIL_UNDER) -> None:
        if not 0 <= fail_under <= 100:
            raise ValueError(f"fail_under must be between 0 and 100 (got {fail_under})")
        self.policy = policy
        self.fail_under = fail_under
        self._rules: tuple[tuple[Rule, object], ...] = tuple(
            (r, r.effective_severity(policy)) for r in all_rules() if r.applies(policy)
        )
        # What the per-trace loop needs of each rule, looked up once.
        self._plan = tuple(
            (rule.check, rule.category, rule, severity) for rule, severity in self._rules
        )
        self._categories = tuple(dict.fromkeys(rule.category for rule, _ in self._rules))

    def evaluate(
        self,
        trace: Trace,
        source_path: str | None = None,
        source_line: int | None = None,
        step_lines: tuple[int, ...] = (),
    ) -> TraceReport:
        """Run every applicable rule over one trace and score it."""
        facts = TraceFacts(trace)
        ctx = RuleContext(trace, self.policy, facts)
        steps = trace.steps
        findings: list[Finding] = []
        # [checks, failed] per category of the applicable rules.
        totals: dict[Category, list[int]] = {c: [0, 0] for c in self._categories}
        for check, category, rule, severity in self._plan:
            result = check(ctx)
            counts = totals[category]
            counts[0] += result.checks
            counts[1] += result.failed
            if not result.hits:
                continue
            for hit in result.hits:
                index = hit.step_index
                findings.append(
                    Finding(
                        rule_id=rule.rule_id,
                        severity=severity,  # type: ignore[arg-type]
                        category=category.value,
                        message=hit.message,
                        step_id=None if index is None else steps[index].step_id,
                        expected=hit.expected,
                        observed=hit.observed,
                        remediation=rule.remediation,
                        step_index=index,
                    )
                )
        if len(findings) > 1:
            findings.sort(key=Finding.sort_key)
        scores = category_scores(self.policy, facts, totals, findings)
        score = round_score(trace_score(scores))
        coverage = facts.citation_coverage
        return TraceReport(
            trace_id=trace.trace_id,
            agent_name=trace.agent_name,
            workflow=trace.workflow,
            policy_id=self.policy.policy_id,
            score=score,
            passed=passes(findings, score, self.fail_under),
            total_latency_ms=json_number(facts.latency_total),
            total_cost_usd=json_number(facts.cost_total),
            total_tokens=facts.token_total,
            citation_coverage=None if coverage is None else round(coverage, 4),
            source_path=source_path,
            findings=tuple(findings),
            category_scores={c.value: round_score(s) for c, s in scores.items()},
            source_line=source_line,
            step_lines=step_lines,
        )


def evaluate(trace: Trace, policy: Policy, fail_under: float = DEFAULT_FAIL_UNDER) -> TraceReport:
    """Evaluate one trace against a policy (compiles the rule selection each call)."""
    return Evaluator(policy, fail_under).evaluate(trace)
