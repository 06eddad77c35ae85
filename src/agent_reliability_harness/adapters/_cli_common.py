"""Small helpers shared by the CLI-tool and benchmark adapters (tau-bench, SWE-agent,
Claude Code, Codex CLI, gemini-cli): typed numbers, step measurements, labels,
and the (location, item) walk of a session given as an array of its lines.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import Any

from ..models.common import finite_non_negative, is_number, show, type_name
from ._common import TraceBuilder, fail

# tau-bench and tau2-bench count a run as solved when its reward is 1 within this tolerance.
REWARD_TOLERANCE = 1e-6


def opt_amount(d: dict[str, Any] | None, key: str, at: str) -> float | None:
    """A finite number >= 0 (seconds, dollars) or absent; anything else is an error."""
    if d is None:
        return None
    value = d.get(key)
    if value is None:
        return None
    try:
        return float(finite_non_negative(value))  # an integer beyond the float range: refused
    except ValueError:
        pass
    raise fail(f"{at}.{key}", f"expected a number >= 0 (got {show(value)})")


def add_measure(b: TraceBuilder, index: int, key: str, value: float | None) -> None:
    """Add a latency (ms) or cost (USD) to a step, keeping what it already carries."""
    if value is None or index >= len(b.steps):
        return
    step = b.steps[index]
    total = (step.get(key) or 0) + value
    step[key] = round(total, 6) if key == "latency_ms" else total


def label(value: Any) -> str | None:
    """A trace label from the source: a string as is, an integer as its decimal string."""
    if isinstance(value, str) and value:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def reward_outcome(reward: Any, at: str) -> dict[str, Any] | None:
    """`outcome` from a benchmark reward: the reward, and success as the benchmark grades it."""
    if reward is None:
        return None
    if not (is_number(reward) and _finite(reward)):
        raise fail(at, f"expected a finite number (got {type_name(reward)})")
    return {"reward": reward, "success": abs(reward - 1) <= REWARD_TOLERANCE}


def _finite(number: float) -> bool:
    try:
        return math.isfinite(number)
    except OverflowError:  # an integer beyond the float range
        return False


def text_of(content: Any, joiner: str = "") -> str | None:
    """Message text: a string, or the text of `{"text": ...}` parts joined; None otherwise.
    Model text parts are fragments of one message (joined as is); tool outputs use "\n"."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(p, dict) and isinstance(p.get("text"), str) for p in content
    ):
        return joiner.join(p["text"] for p in content)
    return None


def array_entries(value: list[Any]) -> Iterator[tuple[str, Any]]:
    """The (location, item) pairs of a session given as a JSON array of its lines."""
    for index, item in enumerate(value):
        yield f"[{index}]", item


def line_entries(lines: Iterable[tuple[int, Any]]) -> Iterator[tuple[str, Any]]:
    """The (location, item) pairs of a session read from a JSON Lines file."""
    for number, item in lines:
        yield f"line {number}", item


class IdlessResults:
    """Pairs results that carry no call id with the oldest id-less call, in order
    (formats whose ids may be empty strings send results in call order)."""

    def __init__(self) -> None:
        self._names: list[str] = []

    def __bool__(self) -> bool:
        return bool(self._names)

    def called(self, call_id: str | None, name: str | None) -> None:
        if not call_id and name:
            self._names.append(name)

    def name_for(self, call_id: str | None, name: str | None) -> str | None:
        """The tool name TraceBuilder.result should match by, or None to match by id."""
        if call_id:
            return name
        if name:
            if name in self._names:
                self._names.remove(name)
            return name
        return self._names.pop(0) if self._names else None
