"""Seeded faults: each edits a clean trace and returns the rule IDs it must raise.

A fault returns None when it does not fit the trace's workflow; the corpus then
tries the next one. Clean traces raise nothing, so the expectations are exact.
"""

from __future__ import annotations

from collections.abc import Callable

from builder import Builder, calls, new_call

# A fault edits a clean trace and returns the rule IDs it must raise; None if it does not fit.
Fault = Callable[[Builder, str], "set[str] | None"]


def f_unlisted(b: Builder, _: str) -> set[str]:
    new_call(b, "wire_transfer", {"iban": "DE00 1234"})
    return {"ARH-SCH-001"}


def f_no_tool_name(b: Builder, _: str) -> set[str]:
    del new_call(b, "search_kb", {"query": "x"})["tool_name"]
    return {"ARH-SCH-002"}


def f_missing_arg(b: Builder, _: str) -> set[str]:
    new_call(b, "search_kb", {"top_k": 3})
    return {"ARH-SCH-003"}


def f_wrong_type(b: Builder, _: str) -> set[str]:
    new_call(b, "search_kb", {"query": "refund window", "top_k": "5"})
    return {"ARH-SCH-004"}


def f_undeclared(b: Builder, _: str) -> set[str]:
    new_call(b, "search_kb", {"query": "refund window", "locale": "fr"})
    return {"ARH-SCH-005"}


def f_enum(b: Builder, workflow: str) -> set[str] | None:
    if workflow != "refund":
        return None
    calls(b, "issue_refund")[0]["arguments"]["currency"] = "JPY"
    return {"ARH-SCH-007"}


def f_pattern(b: Builder, _: str) -> set[str]:
    new_call(b, "lookup_order", {"order_id": "1042"})
    return {"ARH-SCH-008"}


def f_range(b: Builder, workflow: str) -> set[str] | None:
    if workflow != "refund":
        return None
    calls(b, "issue_refund")[0]["arguments"]["amount"] = 950
    return {"ARH-SCH-009"}


def f_dup_id(b: Builder, _: str) -> set[str]:
    b.steps[1]["step_id"] = b.steps[0]["step_id"]
    return {"ARH-SCH-010"}


def f_step_latency(b: Builder, _: str) -> set[str]:
    b.steps[0]["latency_ms"] = 9100
    return {"ARH-BUD-001"}


def f_total_latency(b: Builder, _: str) -> set[str] | None:
    each = 125000 // len(b.steps) + 1
    if each > 8000:
        return None
    for step in b.steps:
        step["latency_ms"] = each
    return {"ARH-BUD-002"}


def f_cost(b: Builder, _: str) -> set[str]:
    b.steps[-1]["cost_usd"] = 1.25
    return {"ARH-BUD-003"}


def f_tokens(b: Builder, _: str) -> set[str]:
    b.steps[-1]["input_tokens"] = 250000
    return {"ARH-BUD-004"}


def f_unsafe(b: Builder, _: str) -> set[str]:
    b.steps[0]["output"]["ssn"] = "123-45-6789"
    return {"ARH-SAF-001"}


def f_no_citation(b: Builder, _: str) -> set[str]:
    del b.steps[-1]["citations"]
    return {"ARH-GRD-001", "ARH-GRD-002"}


def f_bad_url(b: Builder, _: str) -> set[str]:
    b.steps[-1]["citations"][0]["url"] = "ftp://files"
    return {"ARH-GRD-003"}


def f_forbidden(b: Builder, _: str) -> set[str]:
    new_call(b, "delete_account", {"customer_id": "C1"})
    return {"ARH-SEQ-002"}


def f_order(b: Builder, workflow: str) -> set[str] | None:
    if workflow != "refund":
        return None
    refund = calls(b, "issue_refund")[0]
    b.steps.remove(refund)
    b.steps.insert(0, refund)
    for position, item in enumerate(b.steps, start=1):
        item["step_id"] = f"s{position}"
    return {"ARH-SEQ-003"}


def f_required(b: Builder, _: str) -> set[str]:
    b.steps.pop(0)
    for position, item in enumerate(b.steps, start=1):
        item["step_id"] = f"s{position}"
    return {"ARH-SEQ-001"}


def f_max_calls(b: Builder, workflow: str) -> set[str] | None:
    if workflow != "refund":
        return None
    order = calls(b, "issue_refund")[0]["arguments"]["order_id"]
    for amount in (1.5, 2.5):
        new_call(b, "issue_refund", {"order_id": order, "amount": amount, "currency": "EUR"})
    return {"ARH-SEQ-004"}


def f_no_retry(b: Builder, _: str) -> set[str]:
    step = new_call(b, "fetch_doc", {"url": "https://docs.example.com/missing"})
    del step["output"]
    step["status"] = "error"
    step["error"] = "404 not found"
    return {"ARH-FLW-001"}


def f_storm(b: Builder, _: str) -> set[str]:
    for attempt in range(4):
        step = new_call(b, "search_kb", {"query": "storm", "top_k": 2})
        if attempt < 3:
            del step["output"]
            step["status"] = "error"
            step["error"] = "rate limited"
    return {"ARH-FLW-002"}


def f_dup_side_effect(b: Builder, _: str) -> set[str]:
    for _attempt in range(2):
        new_call(b, "send_email", {"to": "ops@example.com", "body": "Ticket closed."})
    return {"ARH-FLW-003"}


def f_no_final(b: Builder, _: str) -> set[str]:
    b.steps.pop()
    b.call("search_kb", {"query": "anything else"})
    return {"ARH-CMP-001"}


def f_max_steps(b: Builder, _: str) -> set[str]:
    for extra in range(62 - len(b.steps)):
        step = new_call(b, "search_kb", {"query": f"padding {extra}"})
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
