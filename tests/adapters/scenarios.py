"""Vendor-neutral agent conversations; make_fixtures.py renders each in every format.

A scenario is a user request then events: model turns (text parts, tool calls,
usage) and batches of tool results. Tests derive expectations from the same data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Call:
    call_id: str
    name: str
    args: dict[str, Any]
    raw_args: str | None = None  # arguments text that is not valid JSON (where a format allows)


@dataclass(frozen=True)
class Turn:
    texts: tuple[str, ...] = ()
    calls: tuple[Call, ...] = ()
    usage: tuple[int, int] = (0, 0)  # input, output tokens


@dataclass(frozen=True)
class Result:
    call_id: str
    name: str
    output: str | dict[str, Any]
    error: str | None = None
    parts: tuple[str, ...] = ()  # multi-part output (text parts), where a format has them


@dataclass(frozen=True)
class Scenario:
    name: str
    user: str
    events: tuple[Turn | tuple[Result, ...], ...]
    needs_raw_args: bool = False  # only formats whose arguments are text can express it
    orphan: Result | None = None  # a result with no matching call, sent after everything
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def turns(self) -> list[Turn]:
        return [e for e in self.events if isinstance(e, Turn)]

    @property
    def calls(self) -> list[Call]:
        return [c for t in self.turns for c in t.calls]

    @property
    def results(self) -> dict[str, Result]:
        return {r.call_id: r for e in self.events if isinstance(e, tuple) for r in e}


LOOKUP = {"order_id": "ORD-1042"}
REFUND = {"order_id": "ORD-1042", "amount": 25.0, "currency": "USD"}
ORDER = {"order_id": "ORD-1042", "status": "delivered", "total": 25.0}

CLEAN = Scenario(
    "clean",
    "Please refund order ORD-1042.",
    (
        Turn(
            ("Let me look up the order.",),
            (Call("call_lookup1", "lookup_order", LOOKUP),),
            (120, 18),
        ),
        (Result("call_lookup1", "lookup_order", ORDER),),
        Turn((), (Call("call_refund1", "issue_refund", REFUND),), (180, 22)),
        (Result("call_refund1", "issue_refund", {"refund_id": "RF-77", "status": "issued"}),),
        Turn(("Refunded 25.00 USD for ORD-1042 (refund RF-77).",), (), (230, 15)),
    ),
)

RETRY = Scenario(
    "retry",
    "Where is order ORD-1042?",
    (
        Turn((), (Call("call_lookup1", "lookup_order", LOOKUP),), (100, 12)),
        (Result("call_lookup1", "lookup_order", "upstream timeout", error="upstream timeout"),),
        Turn(
            ("The order service timed out; trying again.",),
            (Call("call_lookup2", "lookup_order", LOOKUP),),
            (140, 20),
        ),
        (Result("call_lookup2", "lookup_order", ORDER),),
        Turn(("Order ORD-1042 was delivered.",), (), (190, 9)),
    ),
)

PARALLEL = Scenario(
    "parallel",
    "Check ORD-1042 and find the refund policy.",
    (
        Turn(
            ("Checking both at once.",),
            (
                Call("call_lookup1", "lookup_order", LOOKUP),
                Call("call_kb1", "search_kb", {"query": "refund policy", "top_k": 3}),
            ),
            (150, 40),
        ),
        (
            Result("call_kb1", "search_kb", "Refunds are allowed within 30 days."),
            Result("call_lookup1", "lookup_order", ORDER),
        ),
        Turn(("ORD-1042 was delivered and can be refunded within 30 days.",), (), (260, 17)),
    ),
)

BAD_ARGS = Scenario(
    "bad-args",
    "Search the knowledge base for refunds.",
    (
        Turn(
            (),
            (Call("call_kb1", "search_kb", {}, raw_args='{"query": "refunds", top_k: 3'),),
            (90, 14),
        ),
        (Result("call_kb1", "search_kb", "invalid arguments"),),
        Turn(("I could not run the search.",), (), (120, 8)),
    ),
    needs_raw_args=True,
)

ORPHAN = Scenario(
    "orphan",
    "Look up ORD-1042.",
    (
        Turn((), (Call("call_lookup1", "lookup_order", LOOKUP),), (80, 11)),
        (Result("call_lookup1", "lookup_order", ORDER),),
        Turn(("ORD-1042 was delivered.",), (), (110, 7)),
    ),
    orphan=Result("call_ghost", "lookup_order", "late result for a call never made"),
)

MULTIPART = Scenario(
    "multipart",
    "Summarise the refund policy.",
    (
        Turn(
            ("Searching the policy.",),
            (Call("call_kb1", "search_kb", {"query": "refund policy"}),),
            (95, 16),
        ),
        (
            Result(
                "call_kb1",
                "search_kb",
                "Refunds within 30 days.\nShipping is not refunded.",
                parts=("Refunds within 30 days.", "Shipping is not refunded."),
            ),
        ),
        Turn(
            ("Refunds are accepted within 30 days. ", "Shipping costs are not refunded."),
            (),
            (170, 21),
        ),
    ),
)

SCENARIOS: tuple[Scenario, ...] = (CLEAN, RETRY, PARALLEL, BAD_ARGS, ORPHAN, MULTIPART)
