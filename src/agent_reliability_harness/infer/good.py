"""Which runs `arh infer` learns from: every run (`--all-good`), the runs a `--good-if`
expression over `outcome` accepts, or by default those whose `outcome.success` is true
(every run when no run records an outcome at all).

`--good-if` is a small language: comparisons `KEY OP VALUE` (OP one of == != >= <= > <;
VALUE a JSON number, true, false, null, a JSON string or a 'single-quoted' one) or a bare
KEY (true when the outcome holds a truthy value there), joined by `and` / `or` (`and`
binds tighter). A comparison with a missing key, or of a number with a non-number, is false.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_TOKEN = re.compile(
    r"\s*(?:(?P<op>==|!=|>=|<=|>|<)|(?P<word>[A-Za-z_][A-Za-z0-9_.-]*)"
    r"|(?P<number>-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)|(?P<string>\"(?:[^\"\\]|\\.)*\"|'[^']*'))"
)
_LITERALS = {"true": True, "false": False, "null": None}


@dataclass(frozen=True, slots=True)
class Comparison:
    key: str
    op: str | None  # None: the bare key is tested for truth
    value: Any = None

    def holds(self, outcome: Mapping[str, Any]) -> bool:
        if self.key not in outcome:
            return False
        found = outcome[self.key]
        if self.op is None:
            return bool(found)
        if self.op in ("==", "!="):
            return _equal(found, self.value) == (self.op == "==")
        if not (_number(found) and _number(self.value)):
            return False
        verdicts = {
            ">=": found >= self.value,
            "<=": found <= self.value,
            ">": found > self.value,
            "<": found < self.value,
        }
        return bool(verdicts[self.op])


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _equal(left: Any, right: Any) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    return bool(left == right)


@dataclass(frozen=True, slots=True)
class GoodIf:
    """An expression in disjunctive form: any clause whose comparisons all hold."""

    text: str
    clauses: tuple[tuple[Comparison, ...], ...]

    def holds(self, outcome: Mapping[str, Any] | None) -> bool:
        if outcome is None:
            return False
        return any(all(c.holds(outcome) for c in clause) for clause in self.clauses)


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    at = 0
    while at < len(text):
        if text[at:].strip() == "":
            break
        match = _TOKEN.match(text, at)
        if match is None or match.end() == at:
            raise ValueError(f"cannot read {text[at:].strip()[:20]!r}")
        kind = match.lastgroup
        assert kind is not None
        out.append((kind, match.group(kind)))
        at = match.end()
    return out


def _value(kind: str, text: str) -> Any:
    if kind == "number":
        number = json.loads(text)
        return number
    if kind == "string":
        return text[1:-1] if text.startswith("'") else json.loads(text)
    if kind == "word" and text in _LITERALS:
        return _LITERALS[text]
    raise ValueError(f"expected a value, got {text!r}")


def parse_good_if(text: str) -> GoodIf:
    """The expression, or ValueError saying what is wrong with it."""
    tokens = _tokens(text)
    clauses: list[tuple[Comparison, ...]] = []
    current: list[Comparison] = []
    index = 0
    while index < len(tokens):
        kind, word = tokens[index]
        if kind != "word" or word in ("and", "or") or word in _LITERALS:
            raise ValueError(f"expected an outcome key, got {word!r}")
        index += 1
        if index < len(tokens) and tokens[index][0] == "op":
            if index + 1 >= len(tokens):
                raise ValueError(f"{tokens[index][1]} needs a value")
            current.append(Comparison(word, tokens[index][1], _value(*tokens[index + 1])))
            index += 2
        else:
            current.append(Comparison(word, None))
        if index < len(tokens):
            joiner = tokens[index][1]
            if joiner not in ("and", "or") or index + 1 == len(tokens):
                raise ValueError(f"expected 'and' or 'or' and another test, got {joiner!r}")
            if joiner == "or":
                clauses.append(tuple(current))
                current = []
            index += 1
    if not current:
        raise ValueError("is empty")
    clauses.append(tuple(current))
    return GoodIf(text, tuple(clauses))


@dataclass(frozen=True, slots=True)
class Selection:
    """How good runs are chosen: "all", "success" (the default) or a GoodIf."""

    mode: str = "success"
    good_if: GoodIf | None = None

    def bucket(self, outcome: Mapping[str, Any] | None) -> str | None:
        """ "good", "maybe" (no outcome, by default: good only if no run has one) or None,
        so that a single pass can learn before it knows whether any run has an outcome."""
        if self.mode == "all":
            return "good"
        if self.good_if is not None:
            return "good" if self.good_if.holds(outcome) else None
        if outcome is None:
            return "maybe"
        return "good" if outcome.get("success") is True else None

    def good(self, outcome: Mapping[str, Any] | None, any_outcome: bool) -> bool:
        """Whether a run with this outcome is learned from; `any_outcome`: whether some
        run of the input records an outcome (without one, the default takes them all)."""
        if self.mode == "all":
            return True
        if self.good_if is not None:
            return self.good_if.holds(outcome)
        if not any_outcome:
            return True
        return outcome is not None and outcome.get("success") is True

    def describe(self, any_outcome: bool) -> str:
        if self.mode == "all":
            return "every run, --all-good"
        if self.good_if is not None:
            return f"outcome satisfies {self.good_if.text!r}"
        if not any_outcome:
            return "every run, as none records an outcome"
        return "outcome.success is true"
