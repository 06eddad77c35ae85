"""Repeated runs per task (policy v1.1 section 7): the per-task figures of a validate
report, its summary, and the statistical verdicts of compare. Exact values inside;
`to_json` rounds them the way reports print them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Any

from .exact import fisher_drop, fisher_rise, pass_at_k, pass_hat_k, round_output, wilson_interval


@dataclass(frozen=True, slots=True)
class RuleStats:
    """How often one rule fired (at least one finding) over a task's runs."""

    rule_id: str
    fired_runs: int
    runs: int

    @property
    def rate(self) -> Fraction:
        return Fraction(self.fired_runs, self.runs)

    @property
    def ci95(self) -> tuple[Fraction, Fraction]:
        return wilson_interval(self.fired_runs, self.runs)

    @property
    def flaky(self) -> bool:
        """Fired in some but not all runs of the task."""
        return 0 < self.fired_runs < self.runs

    def to_json(self) -> dict[str, Any]:
        low, high = self.ci95
        return {
            "rule_id": self.rule_id,
            "fired_runs": self.fired_runs,
            "rate": round_output(self.rate),
            "ci95": [round_output(low), round_output(high)],
            "flaky": self.flaky,
        }


@dataclass(frozen=True, slots=True)
class TaskStats:
    """One task: n runs, c passed, pass@k and pass^k for k = 1..n (index k - 1), and
    the rules that fired in at least one of its runs, by rule id."""

    task_id: str
    runs: int
    passed: int
    rules: tuple[RuleStats, ...] = ()

    @property
    def pass_at_k(self) -> tuple[Fraction, ...]:
        return tuple(pass_at_k(self.runs, self.passed, k) for k in range(1, self.runs + 1))

    @property
    def pass_hat_k(self) -> tuple[Fraction, ...]:
        return tuple(pass_hat_k(self.runs, self.passed, k) for k in range(1, self.runs + 1))

    def to_json(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "runs": self.runs,
            "passed": self.passed,
            "pass_at_k": {str(k): round_output(v) for k, v in enumerate(self.pass_at_k, 1)},
            "pass_hat_k": {str(k): round_output(v) for k, v in enumerate(self.pass_hat_k, 1)},
            "rules": [rule.to_json() for rule in self.rules],
        }


@dataclass(slots=True)
class TaskTally:
    """Counts runs as they stream past (one trace at a time): memory is one counter per
    task and per (task, fired rule)."""

    _runs: dict[str, int] = field(default_factory=dict)
    _passed: dict[str, int] = field(default_factory=dict)
    _fired: dict[str, dict[str, int]] = field(default_factory=dict)

    def add(self, task_id: str, passed: bool, fired: Iterable[str]) -> None:
        """One run of `task_id`; `fired`: the rules with a finding in it (repeats count once)."""
        self._runs[task_id] = self._runs.get(task_id, 0) + 1
        self._passed[task_id] = self._passed.get(task_id, 0) + bool(passed)
        counts = self._fired.setdefault(task_id, {})
        for rule_id in set(fired):
            counts[rule_id] = counts.get(rule_id, 0) + 1

    def merge(self, other: TaskTally) -> None:
        """Add another tally's counts (a worker's share of the runs): the result is the
        same whichever way the runs were split."""
        for task_id, runs in other._runs.items():
            self._runs[task_id] = self._runs.get(task_id, 0) + runs
            self._passed[task_id] = self._passed.get(task_id, 0) + other._passed[task_id]
            counts = self._fired.setdefault(task_id, {})
            for rule_id, fired in other._fired[task_id].items():
                counts[rule_id] = counts.get(rule_id, 0) + fired

    def stats(self) -> list[TaskStats]:
        """Every task so far, sorted by task_id; each task's rules sorted by rule_id."""
        out = []
        for task_id in sorted(self._runs):
            runs = self._runs[task_id]
            fired = self._fired[task_id]
            rules = tuple(RuleStats(r, fired[r], runs) for r in sorted(fired))
            out.append(TaskStats(task_id, runs, self._passed[task_id], rules))
        return out


def task_stats(outcomes: Iterable[tuple[str, bool, Iterable[str]]]) -> list[TaskStats]:
    """Per-task figures from (task_id, passed, fired rule ids) per run."""
    tally = TaskTally()
    for task_id, passed, fired in outcomes:
        tally.add(task_id, passed, fired)
    return tally.stats()


def any_repeated(stats: Iterable[TaskStats]) -> bool:
    """Whether some task has two or more runs (the `tasks` section is then on)."""
    return any(task.runs >= 2 for task in stats)


@dataclass(frozen=True, slots=True)
class RepeatedSummary:
    """The summary's figures: task count, the smallest n, and the means over tasks of
    pass^1 and of pass^k at that smallest n (None without tasks)."""

    tasks: int
    k_min: int | None
    mean_pass_hat_1: Fraction | None
    mean_pass_hat_k_min: Fraction | None

    def to_json(self) -> dict[str, Any]:
        def out(value: Fraction | None) -> float | None:
            return None if value is None else round_output(value)

        return {
            "tasks": self.tasks,
            "k_min": self.k_min,
            "mean_pass_hat_1": out(self.mean_pass_hat_1),
            "mean_pass_hat_k_min": out(self.mean_pass_hat_k_min),
        }


def summarize(stats: Sequence[TaskStats]) -> RepeatedSummary:
    if not stats:
        return RepeatedSummary(0, None, None, None)
    k_min = min(task.runs for task in stats)
    count = len(stats)
    hat_1 = sum((pass_hat_k(t.runs, t.passed, 1) for t in stats), Fraction(0)) / count
    hat_k = sum((pass_hat_k(t.runs, t.passed, k_min) for t in stats), Fraction(0)) / count
    return RepeatedSummary(count, k_min, hat_1, hat_k)


class Verdict(StrEnum):
    REGRESSED = "regressed"
    INCONCLUSIVE = "inconclusive"
    IMPROVED = "improved"
    UNCHANGED = "unchanged"


def as_alpha(alpha: float | str | Fraction) -> Fraction:
    """The significance level at its decimal value: 0.05 is exactly 1/20."""
    if isinstance(alpha, Fraction):
        return alpha
    return Fraction(repr(alpha) if isinstance(alpha, float) else alpha)


def _verdict(worse: bool, better: bool, p_value: Fraction, alpha: Fraction) -> Verdict:
    if worse:
        return Verdict.REGRESSED if p_value < alpha else Verdict.INCONCLUSIVE
    return Verdict.IMPROVED if better else Verdict.UNCHANGED


def pass_verdict(
    base: tuple[int, int], cand: tuple[int, int], alpha: Fraction
) -> tuple[Verdict, Fraction]:
    """(runs, passed) on each side -> the verdict and the one-sided p-value of a drop
    (reported whatever the direction, since it is what the gate tests)."""
    (b_runs, b_pass), (c_runs, c_pass) = base, cand
    p_value = fisher_drop(b_pass, b_runs, c_pass, c_runs)
    # Rates compared exactly, by cross-multiplication.
    drop, rise = c_pass * b_runs < b_pass * c_runs, c_pass * b_runs > b_pass * c_runs
    return _verdict(drop, rise, p_value, alpha), p_value


def fired_verdict(
    base: tuple[int, int], cand: tuple[int, int], alpha: Fraction
) -> tuple[Verdict, Fraction]:
    """(runs, fired) on each side -> the verdict and the one-sided p-value of a rise."""
    (b_runs, b_fired), (c_runs, c_fired) = base, cand
    p_value = fisher_rise(b_fired, b_runs, c_fired, c_runs)
    rise, drop = c_fired * b_runs > b_fired * c_runs, c_fired * b_runs < b_fired * c_runs
    return _verdict(rise, drop, p_value, alpha), p_value


@dataclass(frozen=True, slots=True)
class Change:
    """One task (rule_id None) or one rule of a task, baseline against candidate:
    (runs, passed) for a task, (runs, fired runs) for a rule."""

    task_id: str
    rule_id: str | None
    baseline: tuple[int, int]
    candidate: tuple[int, int]
    p_value: Fraction
    verdict: Verdict

    def to_json(self) -> dict[str, Any]:
        count = "passed" if self.rule_id is None else "fired_runs"
        out: dict[str, Any] = {"task_id": self.task_id}
        if self.rule_id is not None:
            out["rule_id"] = self.rule_id
        out["baseline"] = {"runs": self.baseline[0], count: self.baseline[1]}
        out["candidate"] = {"runs": self.candidate[0], count: self.candidate[1]}
        out["p_value"] = round_output(self.p_value)
        out["verdict"] = str(self.verdict)
        return out


def compare_tasks(
    baseline: Iterable[TaskStats], candidate: Iterable[TaskStats], alpha: float | Fraction = 0.05
) -> tuple[list[Change], list[Change]]:
    """(task changes, rule changes) for the tasks present on both sides, sorted by
    task_id then rule_id; a rule is compared when it fired on either side."""
    level = as_alpha(alpha)
    base = {t.task_id: t for t in baseline}
    cand = {t.task_id: t for t in candidate}
    tasks: list[Change] = []
    rules: list[Change] = []
    for task_id in sorted(base.keys() & cand.keys()):
        b, c = base[task_id], cand[task_id]
        verdict, p_value = pass_verdict((b.runs, b.passed), (c.runs, c.passed), level)
        tasks.append(
            Change(task_id, None, (b.runs, b.passed), (c.runs, c.passed), p_value, verdict)
        )
        b_fired = _fired(b.rules)
        c_fired = _fired(c.rules)
        for rule_id in sorted(b_fired.keys() | c_fired.keys()):
            b_side, c_side = (b.runs, b_fired.get(rule_id, 0)), (c.runs, c_fired.get(rule_id, 0))
            verdict, p_value = fired_verdict(b_side, c_side, level)
            rules.append(Change(task_id, rule_id, b_side, c_side, p_value, verdict))
    return tasks, rules


def _fired(rules: Iterable[RuleStats]) -> Mapping[str, int]:
    return {rule.rule_id: rule.fired_runs for rule in rules}
