"""TraceFacts: everything several rules (and the report) need, computed in one pass.

Nothing here decides a finding; it only indexes the trace so that every rule
stays linear in the number of steps.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from typing import Any

import msgspec

from ..models.common import StepType
from ..models.trace import Step, Trace

_ZERO = Decimal(0)


def _exact(value: float) -> Decimal:
    # The shortest repr of a float is the value as it was written in the trace,
    # so 0.1 + 0.2 sums to exactly 0.3.
    return Decimal(value) if isinstance(value, int) else Decimal(repr(value))


# Decimal's default context keeps 28 digits: integer sums below this are exact.
_EXACT_DECIMAL_INT = 10**28


def _decimal_sum(values: Iterable[float | None], total: Decimal = _ZERO) -> Decimal:
    """The recorded values added in order to `total`, in Decimal, as written in the trace."""
    for value in values:
        if value is not None:
            total += _exact(value)
    return total


def json_number(value: Decimal | int | None) -> float | int | None:
    """An exact total as the JSON number a user expects (240, 0.3), or None."""
    if value is None or isinstance(value, int):
        return value
    return int(value) if value == value.to_integral_value() else float(value)


def _cost_sum(steps: Iterable[Step], cost: Decimal | None = None) -> Decimal | None:
    """The recorded costs added in order to `cost`, in Decimal, as written in the trace
    (None: none recorded and no `cost`)."""
    for step in steps:
        if step.cost_usd is not None:
            cost = (cost or Decimal(0)) + _exact(step.cost_usd)
    return cost


# The exact-integer fast path for costs. A float cost x with 0 <= x < _COST_BOUND is
# summed as the integer D = round(x * 10**_COST_DIGITS) when D / 10**_COST_DIGITS == x,
# and that D * 10**-_COST_DIGITS is exactly Decimal(repr(x)):
# - int / int true division is correctly rounded (round half even, like float(str)), so
#   the check says that the decimal d = D * 10**-k (k = _COST_DIGITS) reads back as x.
# - Below _COST_BOUND the floats are spaced less than 10**-(k+1) apart, so the reals that
#   read back as x lie in an interval narrower than 10**-(k+1) (no wider than the spacing):
#   no other multiple of 10**-k reads back as x.
# - repr(x) is the shortest decimal r that reads back as x, so r has no more significant
#   digits than d. Were r not a multiple of 10**-k, its last digit would sit at 10**t with
#   t <= -(k+1), below d's last digit, so (no more digits) its leading digit sits below
#   d's leading digit 10**E, where 10**E <= d and E >= -k (d >= 10**-k as D >= 1). One
#   place below: then t = -(k+1) and r <= 10**E - 10**t, so d - r >= 10**-(k+1). Further
#   below: r < 10**(E-1), so d - r > 0.9 * 10**E > 10**-(k+1). Either way r and d could not
#   both read back as x. So r is a multiple of 10**-k that reads back as x: r is d.
#   (x = 0 and -0.0 give D = 0, and repr "0.0" / "-0.0" is 0.)
# Integer costs are exact as they are (D = x * 10**k). Every Decimal partial sum is then
# an exact multiple of 10**-k no larger than the total, so while the total of the D's
# stays below 10**28 no partial sum of the Decimal path is rounded (28 digits), and the
# totals are equal in value. Anything else takes the Decimal path for the whole trace.
# (`json_number` and the budget comparison only use the value, not the Decimal's exponent.)
_COST_DIGITS = 12
_COST_SCALE = 10**_COST_DIGITS
_COST_SCALE_FLOAT = float(_COST_SCALE)  # exact: powers of ten up to 10**22 are floats


def _spacing_bound(digits: int) -> float:
    """The largest power of two below which floats are spaced < 10**-(digits + 1) apart."""
    exponent = 0
    # floats in [2**(e-1), 2**e) are spaced 2**(e-53) apart
    while 2 ** (exponent + 1) * 10 ** (digits + 1) < 2**53:
        exponent += 1
    return float(2**exponent)


_COST_BOUND = _spacing_bound(_COST_DIGITS)


def argument_identity(arguments: dict[str, Any] | None) -> str:
    """Canonical JSON of a call's arguments (sorted keys); absent arguments are `{}`."""
    if not arguments:
        return "{}"
    try:
        if _FAST_IDENTITY is not None and type(arguments) is dict and _no_floats(arguments):
            return _FAST_IDENTITY(arguments).decode()
    except Exception:  # the general encoder gives the result or the error it always gave
        pass
    return _IDENTITY.encode(arguments)


# What json.dumps(sort_keys=True, ensure_ascii=False, separators=(",", ":")) uses,
# built once instead of once per call.
_IDENTITY = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))
# The fast path: msgspec writes exactly the same text for JSON made of dicts with str
# keys, lists, str, int, bool and None: the same escapes, keys sorted by code point, ints
# of any size (tested with msgspec 0.23). Whatever it raises on (keys that are not str,
# lone surrogates, deep nesting, a value some release does not support) takes the
# general encoder. Floats are left out: msgspec formats some of them otherwise (1e16 vs
# 1e+16, NaN as null). Since the fast text equals the general text, identities compare
# exactly as before whichever way each was computed.
_FAST_IDENTITY: Callable[[Any], bytes] | None
try:
    _FAST_IDENTITY = msgspec.json.Encoder(order="sorted").encode
except TypeError:  # `order` is new in msgspec 0.18.6: without it, no fast path
    _FAST_IDENTITY = None
_SCALARS = frozenset({str, int, bool, type(None)})


def _no_floats(value: Any) -> bool:
    """Whether a dict (str keys) or list holds only dicts, lists, str, int, bool and None;
    exact types, so that no subclass can sort or format itself otherwise."""
    if type(value) is dict:
        for key, item in value.items():
            kind = type(item)
            if type(key) is not str or (
                kind not in _SCALARS and not ((kind is dict or kind is list) and _no_floats(item))
            ):
                return False
        return True
    for item in value:
        kind = type(item)
        if kind not in _SCALARS and not ((kind is dict or kind is list) and _no_floats(item)):
            return False
    return True


_TOOL_CALL = StepType.TOOL_CALL


class TraceFacts:
    """Indexes of one trace, shared by every rule, built a chunk of steps at a time.

    `TraceFacts(trace)` covers a whole trace at once. For a trace read a chunk at a time
    (`TraceFacts()`, then `add` per chunk and `close`), the chunk fields (`steps`,
    `start`, `calls`, `grounded`, `memo`) describe the steps being scanned, and the trace
    fields (counts, first and last calls, totals, `watched_calls`) what was added so far;
    after `close` every trace field is final. Whether the steps are the whole trace is
    known only here (`keyed_calls` uses it); rules read the same facts either way.
    """

    __slots__ = (
        "_cost_decimal",
        "_cost_units",
        "_latency_decimal",
        "_latency_whole",
        "calls",
        "cited_grounded",
        "complete",
        "cost_total",
        "counts",
        "first_call",
        "first_call_id",
        "grounded",
        "grounded_count",
        "id_repeats",
        "last_call",
        "last_step",
        "latency_steps",
        "latency_total",
        "memo",
        "start",
        "step_count",
        "step_positions",
        "steps",
        "token_total",
        "tool_call_count",
        "unnamed_calls",
        "watched",
        "watched_calls",
    )

    def __init__(self, trace: Trace | None = None, watched: frozenset[str] = frozenset()) -> None:
        self.counts: dict[str, int] = {}
        self.first_call: dict[str, int] = {}
        self.first_call_id: dict[str, str] = {}  # the step id at first_call
        self.last_call: dict[str, int] = {}
        self.tool_call_count = self.cited_grounded = self.grounded_count = 0
        self.latency_steps = self.step_count = 0
        self.last_step: Step | None = None
        self.token_total: int | None = None
        # Exact running totals: an int (latency in ms, cost in units of 10**-_COST_DIGITS
        # USD) while every value allows it, else a Decimal summed value by value.
        self._latency_whole = 0
        self._latency_decimal: Decimal | None = None
        self._cost_units: int | None = None  # None: no cost recorded yet
        self._cost_decimal: Decimal | None = None
        self.latency_total: Decimal | None = None
        self.cost_total: Decimal | None = None
        self.complete = False
        self.steps: Sequence[Step] = ()
        self.start = 0
        self.calls: list[tuple[int, Step]] = []
        self.grounded: list[tuple[int, Step]] = []
        self.unnamed_calls = 0
        self.memo: dict[Any, Any] = {}
        # The first position of each step id, in first-seen order; how often each id that
        # occurs more than once occurs.
        self.step_positions: dict[str, int] = {}
        self.id_repeats: dict[str, int] = {}
        # (position, step id, tool) of every call of a `watched` tool, in trace order.
        self.watched = watched
        self.watched_calls: list[tuple[int, str, str]] = []
        if trace is not None:
            self.add(trace.steps, complete=True)
            self.close()

    def add(self, steps: Sequence[Step], complete: bool = False) -> None:
        """Index the next chunk of steps. `complete`: the chunk is the whole trace, so the
        trace fields are already final while the rules scan it."""
        start = self.start = self.step_count
        self.steps = steps
        self.complete = complete
        self.memo = {}
        # (position, step) of every tool_call that names a tool, and of every response
        # that requires grounding, in this chunk.
        calls: list[tuple[int, Step]] = []
        grounded: list[tuple[int, Step]] = []
        self.calls, self.grounded = calls, grounded
        add_call, add_grounded = calls.append, grounded.append
        # The loop keeps its counters and tables in locals (cheaper than attributes).
        counts, first_call, last_call = self.counts, self.first_call, self.last_call
        first_call_id = self.first_call_id
        tool_calls = cited_grounded = latency_steps = 0
        whole_latency = 0  # integer latencies summed as int: exact, and no Decimal per step
        float_latency = False
        cost_recorded = False
        cost_units = 0  # the costs in units of 10**-_COST_DIGITS, while all are on the fast path
        cost_exact = True
        tokens: int | None = None
        for index, step in enumerate(steps, start):
            step_latency = step.latency_ms
            if step_latency is not None:
                latency_steps += 1
                if type(step_latency) is int:
                    whole_latency += step_latency
                else:
                    float_latency = True
            step_cost = step.cost_usd
            if step_cost is not None:
                cost_recorded = True
                if not cost_exact:
                    pass  # the Decimal path sums them all after the loop
                elif type(step_cost) is float and 0.0 <= step_cost < _COST_BOUND:
                    units = round(step_cost * _COST_SCALE_FLOAT)
                    cost_exact = units / _COST_SCALE == step_cost
                    cost_units += units
                elif type(step_cost) is int and step_cost >= 0:
                    cost_units += step_cost * _COST_SCALE
                else:
                    cost_exact = False
            input_tokens, output_tokens = step.input_tokens, step.output_tokens
            if input_tokens is not None or output_tokens is not None:
                tokens = (tokens or 0) + (input_tokens or 0) + (output_tokens or 0)
            if step.type is _TOOL_CALL:
                tool_calls += 1
                name = step.tool_name
                if name:
                    add_call((index, step))
                    count = counts.get(name)
                    if count is None:
                        counts[name] = 1
                        first_call[name] = index
                        first_call_id[name] = step.step_id
                    else:
                        counts[name] = count + 1
                    last_call[name] = index
            elif step.requires_grounding:
                add_grounded((index, step))
                if step.citations:
                    cited_grounded += 1
        self._index_ids(steps, start)
        if self.watched:
            watched = self.watched
            self.watched_calls += [
                (index, step.step_id, step.tool_name or "")
                for index, step in calls
                if step.tool_name in watched
            ]
        if steps:
            self.last_step = steps[-1]
        self.step_count = start + len(steps)
        self.tool_call_count += tool_calls
        self.unnamed_calls = tool_calls - len(calls)
        self.cited_grounded += cited_grounded
        self.grounded_count += len(grounded)
        self.latency_steps += latency_steps
        if tokens is not None:
            self.token_total = (self.token_total or 0) + tokens
        # The running totals stay exact ints while the Decimal sum of the same values
        # would be too (no float seen, every partial sum below 10**28); from the first
        # chunk where that ends, the values are added one by one in Decimal, continuing
        # from the exact partial sum, which is the Decimal sum's own partial sum there.
        if latency_steps:
            if self._latency_decimal is None and not (
                float_latency or self._latency_whole + whole_latency >= _EXACT_DECIMAL_INT
            ):
                self._latency_whole += whole_latency
            else:
                if self._latency_decimal is None:
                    self._latency_decimal = Decimal(self._latency_whole)
                self._latency_decimal = _decimal_sum(
                    (s.latency_ms for s in steps), self._latency_decimal
                )
        if cost_recorded:
            running = self._cost_units
            if (
                self._cost_decimal is None
                and cost_exact
                and (running or 0) + cost_units < _EXACT_DECIMAL_INT
            ):
                self._cost_units = (running or 0) + cost_units
            else:
                if self._cost_decimal is None:
                    self._cost_decimal = (
                        Decimal(running).scaleb(-_COST_DIGITS) if running is not None else None
                    )
                self._cost_decimal = _cost_sum(steps, self._cost_decimal)

    def _index_ids(self, steps: Sequence[Step], start: int) -> None:
        positions = self.step_positions
        known = len(positions)
        positions.update(
            (step.step_id, index)
            for index, step in enumerate(steps, start)
            if step.step_id not in positions
        )
        if len(positions) - known == len(steps):
            return  # the usual case: no id repeated
        repeats = self.id_repeats
        for index, step in enumerate(steps, start):
            step_id = step.step_id
            if positions[step_id] != index:
                repeats[step_id] = repeats.get(step_id, 1) + 1

    def close(self) -> None:
        """Make the totals final (after the last chunk)."""
        if self.latency_steps:
            self.latency_total = (
                self._latency_decimal
                if self._latency_decimal is not None
                else Decimal(self._latency_whole)
            )
        if self._cost_decimal is not None:
            self.cost_total = self._cost_decimal
        elif self._cost_units is not None:
            self.cost_total = Decimal(self._cost_units).scaleb(-_COST_DIGITS)

    @property
    def citation_coverage(self) -> float | None:
        if not self.grounded_count:
            return None
        return self.cited_grounded / self.grounded_count

    def keyed_calls(self) -> list[tuple[int, Step, str]]:
        """The chunk's named tool calls with their group key: calls with equal keys made
        identical attempts (same tool, same arguments). Computed once per chunk.

        The key is the tool name, NUL, and the argument identity: one string, which a
        trace of a million calls keeps a million of. It is unambiguous, since the
        identity is JSON text, where a NUL is always escaped. A trace read a chunk at a
        time keeps a long identity as a 128-bit digest instead (`_digest`), so that the
        keys do not hold a copy of every call's arguments."""
        keyed: list[tuple[int, Step, str]] | None = self.memo.get(_KEYED)
        if keyed is None:
            counts = self.counts if self.complete else None
            keyed = []
            for index, step in self.calls:
                tool = step.tool_name or ""
                # A tool called once in the whole trace is a group of its own, whatever its
                # arguments: its identity is never compared, so it is not computed ("" is no
                # JSON text). Only a complete trace knows that.
                if counts is not None and counts[tool] == 1:
                    keyed.append((index, step, tool + "\0"))
                    continue
                identity = argument_identity(step.arguments)
                if counts is None and len(identity) > _LONG_IDENTITY:
                    identity = _digest(identity)
                keyed.append((index, step, f"{tool}\0{identity}"))
            self.memo[_KEYED] = keyed
        return keyed


_KEYED = "facts.keyed_calls"
_LONG_IDENTITY = 64


def _digest(identity: str) -> str:
    """A stand-in for a long argument identity: `#` and its BLAKE2b-128 digest in hex. No
    identity starts with `#` (it is a JSON object), and two different identities share
    a digest with a probability of about 2**-128 per pair."""
    return (
        "#" + hashlib.blake2b(identity.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    )
