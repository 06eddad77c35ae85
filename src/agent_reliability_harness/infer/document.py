"""The inferred policy documents: the base policy (tools, budgets, sequence, completion)
and, per task with enough good runs, a child policy that `extends` it with the task's
expected trajectory and `applies_to` that task alone."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .agents import glob_literal
from .build import MIN_SUPPORT, Evidence, allowed_tools
from .entities import preconditions
from .learn import RunStats, Samples
from .numbers import budget, json_number, quantile, text, writable
from .order import acyclic, chains, holding_pairs
from .trajectory import expected_calls

BUDGETS = (
    ("max_step_latency_ms", "step_latency", "the slowest step of a run"),
    ("max_total_latency_ms", "latency", "a run's total latency"),
    ("max_total_cost_usd", "cost", "a run's total cost"),
    ("max_total_tokens", "tokens", "a run's total tokens"),
)


def _budget(
    name: str, what: str, samples: Samples, evidence: Evidence, out: dict[str, Any]
) -> None:
    if len(samples.values) < MIN_SUPPORT or samples.top is None:
        return
    value = budget(list(samples.values), samples.top)
    if not writable(value, integral=name == "max_total_tokens"):
        return
    out[name] = json_number(value) if name != "max_total_tokens" else int(value)
    evidence.say(
        f"budgets.{name}",
        f"{name} {text(value)}: 95th percentile of {what} over {len(samples.values)} runs "
        f"({text(quantile(list(samples.values)))}) plus 25%, at least the largest "
        f"({text(samples.top)})",
        out,
    )


def budgets(stats: RunStats, evidence: Evidence) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, attribute, what in BUDGETS:
        _budget(name, what, getattr(stats, attribute), evidence, out)
    return out


def sequence(stats: RunStats, evidence: Evidence) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if stats.runs >= MIN_SUPPORT:
        required = sorted(name for name, tool in stats.tools.items() if tool.runs == stats.runs)
        if required:
            out["required_tools"] = required
            evidence.say(
                "sequence.required_tools",
                f"required_tools {', '.join(required)}: called in all {stats.runs} good runs",
                out,
            )
    pairs = acyclic(holding_pairs(stats.before, MIN_SUPPORT))
    found = chains(pairs)
    if found:
        out["call_order"] = found
        for index, chain in enumerate(found):
            support = min(pairs[(a, b)] for i, a in enumerate(chain) for b in chain[i + 1 :])
            evidence.say(
                f"sequence.call_order[{index}]",
                f"call_order {' -> '.join(chain)}: first calls in this order in every good run "
                f"that makes both ({support} or more runs per pair)",
                out,
            )
    return out


def completion(stats: RunStats, evidence: Evidence) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if stats.runs >= MIN_SUPPORT and stats.bad_endings == 0:
        out["require_final_response"] = True
        answered = stats.endings.get("", 0)
        others = "" if answered == stats.runs else ", the others with an ok call of a final tool"
        evidence.say(
            "completion.require_final_response",
            f"require_final_response: {answered} of {stats.runs} good runs end with a response "
            f"with text{others}",
            out,
        )
        finals = sorted(name for name in stats.endings if name)
        if finals:
            out["final_tools"] = finals
            counts = ", ".join(f"{name} {stats.endings[name]}" for name in finals)
            evidence.say("completion.final_tools", f"final_tools: runs ended by {counts}", out)
    _budget_steps(stats.steps, evidence, out)
    return out


def _budget_steps(samples: Samples, evidence: Evidence, out: dict[str, Any]) -> None:
    if len(samples.values) < MIN_SUPPORT or samples.top is None:
        return
    exact = budget(list(samples.values), samples.top)
    if not writable(exact, integral=True):
        return
    value = max(int(exact), 1)
    out["max_steps"] = value
    evidence.say(
        "completion.max_steps",
        f"max_steps {value}: 95th percentile of steps over {len(samples.values)} runs plus 25%, "
        f"at least the largest ({text(samples.top)})",
        out,
    )


@dataclass(slots=True)
class Inferred:
    """The documents of one inference and the statements behind them."""

    policy: dict[str, Any]
    children: dict[str, dict[str, Any]] = field(default_factory=dict)  # task_id -> policy
    evidence: Evidence = field(default_factory=Evidence)
    skipped_tasks: dict[str, str] = field(default_factory=dict)  # task_id -> why none


def base_policy(stats: RunStats, policy_id: str, origin: str, evidence: Evidence) -> dict[str, Any]:
    """The policy every good run passes, with its evidence."""
    policy: dict[str, Any] = {
        "schema_version": "1.1",
        "policy_id": policy_id,
        "description": f"Inferred by arh infer from {stats.runs} good runs ({origin}); "
        "review before use.",
        "allow_unlisted_tools": False,
        "allowed_tools": allowed_tools(stats, evidence),
    }
    for key, part in (
        ("budgets", budgets(stats, evidence)),
        ("sequence", sequence(stats, evidence)),
        ("completion", completion(stats, evidence)),
    ):
        if part:
            policy[key] = part
    _v12(stats, evidence, policy)
    return policy


def _v12(stats: RunStats, evidence: Evidence, policy: dict[str, Any]) -> None:
    """The v1.2 keys (`preconditions`, `agents`; tools' `output` are already in), and
    `schema_version` 1.2 when the policy has any: a policy without them is the v1.1 one."""
    runs = {name: tool.runs for name, tool in stats.tools.items()}
    found = preconditions(stats.entities, runs, MIN_SUPPORT, evidence.say)
    if found:
        policy["preconditions"] = found
    agents = stats.agents.section(evidence.say)
    if agents:
        policy["agents"] = agents
    tools = policy["allowed_tools"].values()
    if found or agents or any("output" in tool for tool in tools):
        policy["schema_version"] = "1.2"
    # v1.3: claims the good runs show, proposed only (an annotation ARH never reads).
    side_effects = {n for n, t in policy["allowed_tools"].items() if t.get("side_effect")}
    proposed = stats.claims.proposals(side_effects, MIN_SUPPORT, evidence.say)
    if proposed:
        policy["x-arh-proposed"] = {"claims": proposed}


def task_policies(stats: RunStats, policy_id: str, base: str, inferred: Inferred) -> None:
    """A child policy per task whose good runs share some calls (at least MIN_SUPPORT
    runs); why not, for the others."""
    for task_id, runs in sorted((stats.tasks or {}).items()):
        if runs is None:
            inferred.skipped_tasks[task_id] = "a run has too many calls"
            continue
        if len(runs) < MIN_SUPPORT:
            inferred.skipped_tasks[task_id] = f"{len(runs)} good run"
            continue
        expected = expected_calls(runs)
        if not expected:
            inferred.skipped_tasks[task_id] = "its good runs share no call"
            continue
        child = {
            "schema_version": "1.1",
            "policy_id": f"{policy_id}/{task_id}",
            "extends": base,
            "description": f"Task {task_id}: the base, and the calls all its {len(runs)} good "
            "runs make",
            "applies_to": {"task_id": [glob_literal(task_id)]},
            "trajectory": {
                "description": f"made in this order, with these arguments, by all {len(runs)} "
                "good runs of the task",
                "expected": expected,
                "match": "in_order",
                "arguments_match": "subset",
            },
        }
        inferred.children[task_id] = child
        calls = ", ".join(e["tool"] for e in expected)
        inferred.evidence.say(
            f"tasks.{task_id}.trajectory",
            f"in_order {calls}: made, in this order, with the arguments shown, by all "
            f"{len(runs)} good runs",
        )


def policy_text(document: dict[str, Any]) -> str:
    """A policy document as written: JSON, indent 2, keys in the order built (names
    sorted), a trailing newline."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
