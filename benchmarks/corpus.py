"""Deterministic benchmark corpus: realistic traces, a policy, and seeded faults.

Every trace is built from a seed alone (no clock, no global random state).
About 30% carry one seeded fault and record the rule IDs it must raise; the
rest must raise none, so detection precision and recall are 1.0 by construction.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from builder import Builder, Trace, text

from faults import FAULTS

POLICY: dict[str, Any] = {
    "schema_version": "1",
    "policy_id": "bench-support-v1",
    "allow_unlisted_tools": False,
    "allowed_tools": {
        "get_customer": {"required_arguments": {"customer_id": {"type": "str"}}},
        "lookup_order": {
            "required_arguments": {"order_id": {"type": "str", "pattern": "ORD-[0-9]{4,6}"}},
            "max_calls": 8,
        },
        "search_kb": {
            "required_arguments": {"query": "str"},
            "optional_arguments": {"top_k": {"type": "int", "min": 1, "max": 10}},
        },
        "fetch_doc": {"required_arguments": {"url": "str"}},
        "issue_refund": {
            "required_arguments": {
                "order_id": {"type": "str", "pattern": "ORD-[0-9]{4,6}"},
                "amount": {"type": "float", "min": 0, "max": 500},
                "currency": {"type": "str", "enum": ["USD", "EUR", "GBP"]},
            },
            "optional_arguments": {"reason": "str"},
            "side_effect": True,
            "max_calls": 2,
        },
        "update_address": {
            "required_arguments": {"customer_id": "str", "address": "dict"},
            "side_effect": True,
        },
        "send_email": {"required_arguments": {"to": "str", "body": "str"}, "side_effect": True},
        "delete_account": {"required_arguments": {"customer_id": "str"}},
    },
    "budgets": {
        "max_step_latency_ms": 8000,
        "max_total_latency_ms": 120000,
        "max_total_cost_usd": 1.0,
        "max_total_tokens": 200000,
    },
    "unsafe_patterns": [
        "\\b\\d{3}-\\d{2}-\\d{4}\\b",
        "sk-[A-Za-z0-9]{20,}",
        "ignore (all )?previous instructions",
    ],
    "grounding": {
        "require_citations": True,
        "min_citation_coverage": 1.0,
        "require_valid_citation_urls": True,
    },
    "sequence": {
        "required_tools": ["get_customer"],
        "forbidden_tools": ["delete_account"],
        "call_order": ["get_customer", "lookup_order", "issue_refund"],
    },
    "error_handling": {"require_retry_on_error": True, "max_attempts": 3},
    "completion": {"require_final_response": True, "max_steps": 60},
}

WORKFLOWS = ("refund", "order-status", "policy-question", "address-change", "escalation")
AGENTS = ("support-copilot", "refund-copilot", "ops-assistant")
FAULT_RATE = 0.3


def _order(rng: random.Random) -> str:
    return f"ORD-{rng.randint(1000, 999999)}"


def _body(b: Builder, workflow: str, target: int) -> None:
    """A plausible run: customer lookup, workflow calls, filler research, a final answer."""
    rng = b.rng
    customer = f"C{rng.randint(1, 10**7)}"
    b.call("get_customer", {"customer_id": customer})
    order = _order(rng)
    if workflow in ("refund", "order-status", "escalation"):
        if rng.random() < 0.3:  # a failed lookup, retried with the same arguments
            b.call("lookup_order", {"order_id": order}, error="upstream timeout")
        b.call("lookup_order", {"order_id": order})
    research = 0
    while len(b.steps) < target - 3:
        research += 1
        kind = rng.random()
        if kind < 0.5:
            b.call("search_kb", {"query": f"{text(rng, 20, 60)} #{research}", "top_k": 5})
        elif kind < 0.75:
            b.call(
                "fetch_doc", {"url": f"https://docs.example.com/{research}/{rng.randint(1, 99)}"}
            )
        else:
            b.respond(grounded=rng.random() < 0.5)
    if workflow == "refund":
        b.call(
            "issue_refund",
            {"order_id": order, "amount": round(rng.uniform(5, 400), 2), "currency": "USD"},
        )
    elif workflow == "address-change":
        b.call("update_address", {"customer_id": customer, "address": {"city": "Lyon"}})
    else:
        b.call("send_email", {"to": f"{customer.lower()}@example.com", "body": text(rng, 40, 120)})
    b.respond(grounded=True)


def make_trace(seed: int, index: int) -> tuple[Trace, set[str]]:
    """Trace number `index` of the corpus `seed`, and the rule IDs it must raise."""
    rng = random.Random(seed * 1_000_003 + index)
    workflow = rng.choice(WORKFLOWS)
    builder = Builder(rng)
    _body(builder, workflow, rng.randint(7, 34))
    expected: set[str] = set()
    if rng.random() < FAULT_RATE:
        start = rng.randrange(len(FAULTS))
        for offset in range(len(FAULTS)):
            found = FAULTS[(start + offset) % len(FAULTS)](builder, workflow)
            if found is not None:
                expected = found
                break
    trace: Trace = {
        "schema_version": "1",
        "trace_id": f"bench-{seed}-{index:07d}",
        "agent_name": rng.choice(AGENTS),
        "workflow": workflow,
        "metadata": {"seed": seed, "index": index},
        "steps": builder.steps,
    }
    return trace, expected


def iter_corpus(seed: int, count: int) -> Iterator[tuple[Trace, set[str]]]:
    for index in range(count):
        yield make_trace(seed, index)


def write_jsonl(path: str, seed: int, count: int) -> dict[str, list[str]]:
    """Write `count` traces as JSONL; returns {trace_id: sorted expected rule IDs}."""
    expected: dict[str, list[str]] = {}
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        for trace, rules in iter_corpus(seed, count):
            expected[trace["trace_id"]] = sorted(rules)
            handle.write(json.dumps(trace, separators=(",", ":")) + "\n")
    return expected


def long_trace(steps: int) -> Iterator[str]:
    """One trace of `steps` steps as JSON text chunks (written without building it whole)."""
    head = {"trace_id": f"long-{steps}", "agent_name": "soak", "workflow": "soak"}
    yield json.dumps(head, separators=(",", ":"))[:-1] + ',"steps":['
    for index in range(steps):
        sep = "," if index else ""
        if index == steps - 1:
            step = {"step_id": f"s{index}", "type": "model_response", "text": "Done."}
        elif index % 3 == 2:
            step = {
                "step_id": f"s{index}",
                "type": "model_response",
                "text": f"Checked item {index}; continuing with the next one.",
                "latency_ms": 40,
            }
        else:
            step = {
                "step_id": f"s{index}",
                "type": "tool_call",
                "tool_name": "search_kb",
                "arguments": {"query": f"item {index}"},
                "output": {"result": "ok"},
                "latency_ms": 12,
            }
        yield sep + json.dumps(step, separators=(",", ":"))
    yield "]}\n"


LONG_POLICY: dict[str, Any] = {
    "policy_id": "bench-long-v1",
    "allowed_tools": {"search_kb": {"required_arguments": {"query": "str"}}},
    "unsafe_patterns": ["\\b\\d{3}-\\d{2}-\\d{4}\\b"],
    "error_handling": {"require_retry_on_error": True, "max_attempts": 3},
    "completion": {"require_final_response": True},
}
