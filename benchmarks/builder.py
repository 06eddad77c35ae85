"""Trace building blocks for the benchmark corpus: text, usage figures, a step builder.

Everything draws from the caller's seeded random.Random; nothing reads a clock.
"""

from __future__ import annotations

import random
from typing import Any

WORDS = [
    "order",
    "shipment",
    "refund",
    "customer",
    "account",
    "policy",
    "return",
    "window",
    "carrier",
    "invoice",
    "warehouse",
    "tracking",
    "delivery",
    "address",
    "payment",
    "balance",
    "credit",
    "support",
    "agent",
    "review",
    "status",
    "pending",
    "approved",
    "escalation",
    "priority",
    "schedule",
    "exchange",
    "warranty",
    "receipt",
]
Step = dict[str, Any]
Trace = dict[str, Any]


def text(rng: random.Random, low: int, high: int) -> str:
    size = rng.randint(low, high)
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(WORDS)
        words.append(word)
        length += len(word) + 1
    return " ".join(words).capitalize() + "."


def usage(rng: random.Random, step: Step) -> Step:
    step["latency_ms"] = rng.randint(80, 2500)
    step["cost_usd"] = round(rng.uniform(0.0005, 0.01), 4)
    step["input_tokens"] = rng.randint(50, 1500)
    step["output_tokens"] = rng.randint(10, 600)
    return step


class Builder:
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
            step["output"] = {"result": text(rng, 150, 450), "ref": f"R{rng.randint(1, 10**6)}"}
        self.steps.append(usage(rng, step))
        return step

    def respond(self, grounded: bool = False) -> Step:
        rng = self.rng
        step: Step = {
            "step_id": f"s{len(self.steps) + 1}",
            "type": "model_response",
            "text": text(rng, 200, 600),
        }
        if grounded:
            step["requires_grounding"] = True
            step["citations"] = [
                {"source": "kb", "url": f"https://kb.example.com/a/{rng.randint(1, 9999)}"}
                for _ in range(rng.randint(1, 3))
            ]
        self.steps.append(usage(rng, step))
        return step


def calls(b: Builder, tool: str) -> list[Step]:
    return [s for s in b.steps if s.get("tool_name") == tool]


def insert(b: Builder, step: Step) -> None:
    b.steps.insert(len(b.steps) - 1, step)
    for position, item in enumerate(b.steps, start=1):
        item["step_id"] = f"s{position}"


def new_call(b: Builder, tool: str, arguments: dict[str, Any]) -> Step:
    step = b.call(tool, arguments)
    b.steps.pop()
    insert(b, step)
    return step
