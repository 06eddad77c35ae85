"""Policy v1.3 `claims` proposed from good runs: a side-effect tool whose argument values
reappear verbatim in the final answer of every good run that called it successfully.

Per run, for each tool with a call whose status is ok, the argument paths (object keys,
`*` for list elements, at most MAX_DEPTH deep) whose every value is written verbatim in
the run's final answer (the last model response with non-blank text); across runs, the
counts add up (so the result does not depend on how the runs were split). A path is
proposed for a tool listed with `side_effect` when it held in every good run that called
the tool (at least MIN_SUPPORT), its values took two or more forms, and one tight shape
fits them all (digits, a literal prefix and digits, upper-case codes of one length, or
numbers). Proposals are written under the policy's `x-arh-proposed` key, which ARH never
reads: a reviewer moves the ones that hold to `claims`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..models.trace import Step, Trace

MAX_DEPTH = 3
MAX_SAMPLES = 8
MIN_TEXT = 3  # shorter strings ("no", "1A") reappear by chance
Key = tuple[str, str]  # (tool, path)


def final_answer(trace: Trace) -> str | None:
    """The text of the trace's last model response with non-blank text."""
    for step in reversed(trace.steps):
        if step.is_model_response and step.text and not step.text.isspace():
            return step.text
    return None


def _leaves(value: Any, path: str, depth: int, out: dict[str, list[Any]]) -> None:
    if isinstance(value, dict):
        if depth < MAX_DEPTH:
            for key, item in value.items():
                if isinstance(key, str) and key and "." not in key and key != "*":
                    _leaves(item, f"{path}.{key}" if path else key, depth + 1, out)
    elif isinstance(value, list):
        if path and depth < MAX_DEPTH:
            for item in value:
                _leaves(item, f"{path}.*", depth + 1, out)
    elif path and (
        (isinstance(value, str) and len(value) >= MIN_TEXT)
        or (isinstance(value, int | float) and not isinstance(value, bool))
    ):
        out.setdefault(path, []).append(value)


def _written(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


@dataclass(slots=True)
class ClaimStats:
    called: dict[str, int] = field(default_factory=dict)  # tool -> runs with an ok call
    shown: dict[Key, int] = field(default_factory=dict)  # runs whose answer held the values
    samples: dict[Key, list[Any]] = field(default_factory=dict)  # distinct, in input order

    def add_run(self, calls: list[tuple[Step, Any]], answer: str | None) -> None:
        """One run's named calls (with their decoded outputs, unused here)."""
        tools: set[str] = set()
        shown: dict[Key, list[Any]] = {}
        for step, _ in calls:
            if step.status.value != "ok" or step.tool_name is None:
                continue
            tools.add(step.tool_name)
            if not answer:
                continue
            leaves: dict[str, list[Any]] = {}
            _leaves(step.arguments or {}, "", 0, leaves)
            for path, values in leaves.items():
                if all(_written(value) in answer for value in values):
                    shown.setdefault((step.tool_name, path), values)
        for tool in tools:
            self.called[tool] = self.called.get(tool, 0) + 1
        for key, values in shown.items():
            self.shown[key] = self.shown.get(key, 0) + 1
            self._sample(key, values)

    def _sample(self, key: Key, values: list[Any]) -> None:
        kept = self.samples.setdefault(key, [])
        for value in values:
            if len(kept) < MAX_SAMPLES and value not in kept:
                kept.append(value)

    def merge(self, other: ClaimStats) -> None:
        for tool, count in other.called.items():
            self.called[tool] = self.called.get(tool, 0) + count
        for key, count in other.shown.items():
            self.shown[key] = self.shown.get(key, 0) + count
            self._sample(key, other.samples.get(key, []))

    def proposals(
        self, side_effects: set[str], minimum: int, say: Callable[[str, str], None]
    ) -> list[dict[str, Any]]:
        """The proposed claims, by tool then path, with a statement of evidence each."""
        out: list[dict[str, Any]] = []
        for (tool, path), runs in sorted(self.shown.items()):
            called = self.called.get(tool, 0)
            samples = self.samples.get((tool, path), [])
            shape = _shape(samples)
            if tool not in side_effects or runs != called or runs < minimum or shape is None:
                continue
            where = f"x-arh-proposed.claims[{len(out)}]"
            out.append(
                {
                    "name": f"{tool} {path}",
                    "when": rf"\b{shape}\b",
                    "requires": tool,
                    "values": [{"pattern": rf"\b({shape})\b", "in": path}],
                    "description": f"proposed: in all {runs} good runs that called {tool}, its "
                    f"{path} reappeared verbatim in the final answer; review, then move to "
                    "`claims` to enable",
                }
            )
            say(where, f"{tool} {path}: written in the final answer of all {runs} good runs")
        return out


_UPPER = re.compile(r"[A-Z0-9]+")
_PREFIX_DIGITS = re.compile(r"([A-Za-z_-]*?)([0-9]+)")


def _shape(samples: list[Any]) -> str | None:
    """One tight RE2 pattern that every sample fits, or None (too few forms, or none)."""
    if len({_written(s) for s in samples}) < 2:
        return None
    if all(isinstance(s, int | float) for s in samples):
        return r"[0-9][0-9,]*(?:\.[0-9]+)?"
    if not all(isinstance(s, str) for s in samples):
        return None
    parts = [_PREFIX_DIGITS.fullmatch(s) for s in samples]
    if all(parts):
        prefixes = {p.group(1) for p in parts if p}
        lengths = {len(p.group(2)) for p in parts if p}
        if len(prefixes) == 1:
            digits = f"{{{lengths.pop()}}}" if len(lengths) == 1 else "+"
            return re.escape(prefixes.pop()) + f"[0-9]{digits}"
    lengths = {len(s) for s in samples}
    if len(lengths) == 1 and all(_UPPER.fullmatch(s) for s in samples):
        return f"[A-Z0-9]{{{lengths.pop()}}}"
    return None
