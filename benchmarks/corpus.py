"""Deterministic benchmark corpus: realistic traces, a policy, and seeded faults.

Every trace is built from a seed alone (no clock, no global random state).
About 30% carry one seeded fault and record the rule IDs it must raise; the
rest must raise none, so detection precision and recall are 1.0 by construction.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

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

WORDS = (
    "order shipment refund customer account policy return window carrier invoice "
    "warehouse tracking delivery address payment balance credit support agent review "
    "status pending approved escalation priority schedule exchange warranty receipt"
).split()
WORKFLOWS = ("refund", "order-status", "policy-question", "address-change", "escalation")
AGENTS = ("support-copilot", "refund-copilot", "ops-assistant")
FAULT_RATE = 0.3

Step = dict[str, Any]
Trace = dict[str, Any]


def _text(rng: random.Random, low: int, high: int) -> str:
    size = rng.randint(low, high)
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(WORDS)
        words.append(word)
        length += len(word) + 1
    return " ".join(words).capitalize() + "."


def _usage(rng: random.Random, step: Step) -> Step:
    step["latency_ms"] = rng.randint(80, 2500)
    step["cost_usd"] = round(rng.uniform(0.0005, 0.01), 4)
    step["input_tokens"] = rng.randint(50, 1500)
    step["output_tokens"] = rng.randint(10, 600)
    return step


class _Builder:
    """Appends steps with unique ids; the fault functions edit the list afterwards."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.steps: list[Step] = []

    def call(self, tool: str, arguments: dict[str, Any], error: str | None = None) -> Step:
        rng = self.rng
        step: Step = {
            "step_id": f"s{len(self.steps) + 1}",
            "type": "tool_call",
            "tool_name": tool,
            "arguments": arguments,
        }
        if error:
            step["status"] = "error"
            step["error"] = error
        else:
            step["output"] = {"result": _text(rng, 150, 450), "ref": f"R{rng.randint(1, 10**6)}"}
        self.steps.append(_usage(rng, step))
        return step

    def respond(self, grounded: bool = False) -> Step:
        rng = self.rng
        step: Step = {
            "step_id": f"s{len(self.steps) + 1}",
            "type": "model_response",
            "text": _text(rng, 200, 600),
        }
        if grounded:
            step["requires_grounding"] = True
            step["citations"] = [
                {"source": "kb", "url": f"https://kb.example.com/a/{rng.randint(1, 9999)}"}
                for _ in range(rng.randint(1, 3))
            ]
        self.steps.append(_usage(rng, step))
        return step


def _order(rng: random.Random) -> str:
    return f"ORD-{rng.randint(1000, 999999)}"


def _body(b: _Builder, workflow: str, target: int) -> None:
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
            b.call("search_kb", {"query": f"{_text(rng, 20, 60)} #{research}", "top_k": 5})
        elif kind < 0.75:
            b.call("fetch_doc", {"url": f"https://docs.example.com/{research}/{rng.randint(1, 99)}"})
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
        b.call("send_email", {"to": f"{customer.lower()}@example.com", "body": _text(rng, 40, 120)})
    b.respond(grounded=True)


# A fault edits a clean trace and returns the rule IDs it must raise; None if it does not fit.
Fault = Callable[[_Builder, str], "set[str] | None"]


def _calls(b: _Builder, tool: str) -> list[Step]:
    return [s for s in b.steps if s.get("tool_name") == tool]


def _insert(b: _Builder, step: Step) -> None:
    b.steps.insert(len(b.steps) - 1, step)
    for position, item in enumerate(b.steps, start=1):
        item["step_id"] = f"s{position}"


def _new_call(b: _Builder, tool: str, arguments: dict[str, Any]) -> Step:
    step = b.call(tool, arguments)
    b.steps.pop()
    _insert(b, step)
    return step


def f_unlisted(b: _Builder, _: str) -> set[str]:
    _new_call(b, "wire_transfer", {"iban": "DE00 1234"})
    return {"ARH-SCH-001"}


def f_no_tool_name(b: _Builder, _: str) -> set[str]:
    del _new_call(b, "search_kb", {"query": "x"})["tool_name"]
    return {"ARH-SCH-002"}


def f_missing_arg(b: _Builder, _: str) -> set[str]:
    _new_call(b, "search_kb", {"top_k": 3})
    return {"ARH-SCH-003"}


def f_wrong_type(b: _Builder, _: str) -> set[str]:
    _new_call(b, "search_kb", {"query": "refund window", "top_k": "5"})
    return {"ARH-SCH-004"}


def f_undeclared(b: _Builder, _: str) -> set[str]:
    _new_call(b, "search_kb", {"query": "refund window", "locale": "fr"})
    return {"ARH-SCH-005"}


def f_enum(b: _Builder, workflow: str) -> set[str] | None:
    if workflow != "refund":
        return None
    _calls(b, "issue_refund")[0]["arguments"]["currency"] = "JPY"
    return {"ARH-SCH-007"}


def f_pattern(b: _Builder, _: str) -> set[str]:
    _new_call(b, "lookup_order", {"order_id": "1042"})
    return {"ARH-SCH-008"}


def f_range(b: _Builder, workflow: str) -> set[str] | None:
    if workflow != "refund":
        return None
    _calls(b, "issue_refund")[0]["arguments"]["amount"] = 950
    return {"ARH-SCH-009"}


def f_dup_id(b: _Builder, _: str) -> set[str]:
    b.steps[1]["step_id"] = b.steps[0]["step_id"]
    return {"ARH-SCH-010"}


def f_step_latency(b: _Builder, _: str) -> set[str]:
    b.steps[0]["latency_ms"] = 9100
    return {"ARH-BUD-001"}


def f_total_latency(b: _Builder, _: str) -> set[str] | None:
    each = 125000 // len(b.steps) + 1
    if each > 8000:
        return None
    for step in b.steps:
        step["latency_ms"] = each
    return {"ARH-BUD-002"}


def f_cost(b: _Builder, _: str) -> set[str]:
    b.steps[-1]["cost_usd"] = 1.25
    return {"ARH-BUD-003"}


def f_tokens(b: _Builder, _: str) -> set[str]:
    b.steps[-1]["input_tokens"] = 250000
    return {"ARH-BUD-004"}


def f_unsafe(b: _Builder, _: str) -> set[str]:
    b.steps[0]["output"]["ssn"] = "123-45-6789"
    return {"ARH-SAF-001"}


def f_no_citation(b: _Builder, _: str) -> set[str]:
    del b.steps[-1]["citations"]
    return {"ARH-GRD-001", "ARH-GRD-002"}


def f_bad_url(b: _Builder, _: str) -> set[str]:
    b.steps[-1]["citations"][0]["url"] = "ftp://files"
    return {"ARH-GRD-003"}


def f_forbidden(b: _Builder, _: str) -> set[str]:
    _new_call(b, "delete_account", {"customer_id": "C1"})
    return {"ARH-SEQ-002"}


def f_order(b: _Builder, workflow: str) -> set[str] | None:
    if workflow != "refund":
        return None
    refund = _calls(b, "issue_refund")[0]
    b.steps.remove(refund)
    b.steps.insert(0, refund)
    for position, item in enumerate(b.steps, start=1):
        item["step_id"] = f"s{position}"
    return {"ARH-SEQ-003"}


def f_required(b: _Builder, _: str) -> set[str]:
    b.steps.pop(0)
    for position, item in enumerate(b.steps, start=1):
        item["step_id"] = f"s{position}"
    return {"ARH-SEQ-001"}


def f_max_calls(b: _Builder, workflow: str) -> set[str] | None:
    if workflow != "refund":
        return None
    order = _calls(b, "issue_refund")[0]["arguments"]["order_id"]
    for amount in (1.5, 2.5):
        _new_call(b, "issue_refund", {"order_id": order, "amount": amount, "currency": "EUR"})
    return {"ARH-SEQ-004"}


def f_no_retry(b: _Builder, _: str) -> set[str]:
    step = _new_call(b, "fetch_doc", {"url": "https://docs.example.com/missing"})
    del step["output"]
    step["status"] = "error"
    step["error"] = "404 not found"
    return {"ARH-FLW-001"}


def f_storm(b: _Builder, _: str) -> set[str]:
    for attempt in range(4):
        step = _new_call(b, "search_kb", {"query": "storm", "top_k": 2})
        if attempt < 3:
            del step["output"]
            step["status"] = "error"
            step["error"] = "rate limited"
    return {"ARH-FLW-002"}


def f_dup_side_effect(b: _Builder, _: str) -> set[str]:
    for _attempt in range(2):
        _new_call(b, "send_email", {"to": "ops@example.com", "body": "Ticket closed."})
    return {"ARH-FLW-003"}


def f_no_final(b: _Builder, _: str) -> set[str]:
    b.steps.pop()
    b.call("search_kb", {"query": "anything else"})
    return {"ARH-CMP-001"}


def f_max_steps(b: _Builder, _: str) -> set[str]:
    for extra in range(62 - len(b.steps)):
        step = _new_call(b, "search_kb", {"query": f"padding {extra}"})
        step["latency_ms"] = 100
    return {"ARH-CMP-002"}


FAULTS: tuple[Fault, ...] = (
    f_unlisted,
    f_no_tool_name,
    f_missing_arg,
    f_wrong_type,
    f_undeclared,
    f_enum,
    f_pattern,
    f_range,
    f_dup_id,
    f_step_latency,
    f_total_latency,
    f_cost,
    f_tokens,
    f_unsafe,
    f_no_citation,
    f_bad_url,
    f_forbidden,
    f_order,
    f_required,
    f_max_calls,
    f_no_retry,
    f_storm,
    f_dup_side_effect,
    f_no_final,
    f_max_steps,
)


def make_trace(seed: int, index: int) -> tuple[Trace, set[str]]:
    """Trace number `index` of the corpus `seed`, and the rule IDs it must raise."""
    rng = random.Random(seed * 1_000_003 + index)
    workflow = rng.choice(WORKFLOWS)
    builder = _Builder(rng)
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
