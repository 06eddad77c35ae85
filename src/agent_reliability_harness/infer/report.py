"""What `arh infer` prints: a few summary lines (what was learned, written and checked)
and, with --explain, the evidence of every constraint, one line each."""

from __future__ import annotations

from typing import Any

from .document import Inferred
from .run import Result

TOP_RULES = 5


def _counts(policy: dict[str, Any]) -> str:
    tools = policy.get("allowed_tools", {})
    specs = [
        spec
        for tool in tools.values()
        for group in ("required_arguments", "optional_arguments")
        for spec in tool.get(group, {}).values()
    ]
    parts = [
        f"{len(tools)} tools",
        f"{len(specs)} argument specs ({sum('enum' in s for s in specs)} enums, "
        f"{sum('pattern' in s for s in specs)} patterns, {sum('min' in s for s in specs)} ranges)",
        f"{sum(bool(t.get('side_effect')) for t in tools.values())} side-effect candidates",
        f"{len(policy.get('sequence', {}).get('required_tools', []))} required tools",
        f"{len(policy.get('sequence', {}).get('call_order', []))} call-order chains",
        f"{sum(k != 'description' for k in policy.get('budgets', {}))} budgets",
    ]
    # v1.2 (only when some are inferred, so a v1.1 policy's summary is what it was)
    for count, noun in (
        (sum("output" in t for t in tools.values()), "output contracts"),
        (len(policy.get("preconditions", [])), "preconditions"),
        (len(policy.get("agents", {})), "agents"),
        (
            len(policy.get("x-arh-proposed", {}).get("claims", [])),
            "claims proposed (x-arh-proposed)",
        ),
    ):
        if count:
            parts.append(f"{count} {noun}")
    return ", ".join(parts)


def summary_lines(result: Result) -> list[str]:
    learned, checker = result.learned, result.checked.checker
    inferred = learned.inferred
    lines = [
        f"learned from {learned.inferred_runs} of {learned.learner.runs} runs "
        f"(good: {learned.origin})",
        f"policy {inferred.policy['policy_id']}: {_counts(inferred.policy)}",
    ]
    if inferred.children or inferred.skipped_tasks:
        lines.append(
            f"task policies: {len(inferred.children)} with an expected trajectory; "
            f"{len(inferred.skipped_tasks)} tasks without (fewer than 2 good runs, or no "
            "call shared by all)"
        )
    for target, files in result.written:
        lines.append(f"wrote {target}" + (f" ({files} policy files)" if files else ""))
    share = f" ({100 * checker.flagged / checker.others:.1f}%)" if checker.others else ""
    lines.append(
        f"check: the policy passes {checker.good - checker.good_failed} of {checker.good} good "
        f"runs and flags {checker.flagged} of {checker.others} other runs{share}"
    )
    if result.checked.rules:
        top = ", ".join(f"{rule} in {count}" for rule, count in result.checked.rules[:TOP_RULES])
        lines.append(f"  errors in the flagged runs: {top}")
    return lines


def tools_summary_lines(inferred: Inferred, out: str) -> list[str]:
    """What `arh infer --from-tools FILE` without runs prints."""
    policy = inferred.policy
    untranslated = sum(
        len(tool.get("x-arh-untranslated", [])) for tool in policy["allowed_tools"].values()
    )
    lines = [
        f"policy {policy['policy_id']}: {_counts(policy)}",
        f"not translated: {untranslated} schema keywords (listed under x-arh-untranslated)",
    ]
    if out != "-":
        lines.append(f"wrote {out}")
    return lines


def explain_lines(inferred: Inferred) -> list[str]:
    """`path: statement` for every constraint, in the order they were built."""
    return [f"{path}: {statement}" for path, statement in inferred.evidence.lines]
