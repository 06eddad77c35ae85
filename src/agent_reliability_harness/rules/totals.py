"""Exact running totals of recorded latency, cost and tokens, a chunk of steps at a time.

Totals are the recorded values summed in Decimal as written in the trace (so 0.1 + 0.2
is 0.3); the running sums stay plain integers while that gives the same value.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal

from ..models.trace import Step

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
_COST_SCALE: int = 10**_COST_DIGITS
_COST_SCALE_FLOAT = float(_COST_SCALE)  # exact: powers of ten up to 10**22 are floats


def _spacing_bound(digits: int) -> float:
    """The largest power of two below which floats are spaced < 10**-(digits + 1) apart."""
    exponent = 0
    # floats in [2**(e-1), 2**e) are spaced 2**(e-53) apart
    while 2 ** (exponent + 1) * 10 ** (digits + 1) < 2**53:
        exponent += 1
    return float(2**exponent)


_COST_BOUND = _spacing_bound(_COST_DIGITS)


def add_cost_units(units: int, cost: float) -> int | None:
    """`units` plus a cost in units of 10**-_COST_DIGITS USD, or None when the cost is
    not exactly so (above): the Decimal path then sums the chunk."""
    if cost.__class__ is float and 0.0 <= cost < _COST_BOUND:
        scaled = round(cost * _COST_SCALE_FLOAT)
        return units + scaled if scaled / _COST_SCALE == cost else None
    if cost.__class__ is int and cost >= 0:
        return units + int(cost) * _COST_SCALE
    return None


class Totals:
    """The running totals of the steps added so far; final after `close`."""

    __slots__ = (
        "_cost_decimal",
        "_cost_units",
        "_latency_decimal",
        "_latency_whole",
        "cost_total",
        "latency_steps",
        "latency_total",
        "token_total",
    )

    def __init__(self) -> None:
        self.latency_steps = 0
        self.token_total: int | None = None
        # Exact running totals: an int (latency in ms, cost in units of 10**-_COST_DIGITS
        # USD) while every value allows it, else a Decimal summed value by value.
        self._latency_whole = 0
        self._latency_decimal: Decimal | None = None
        self._cost_units: int | None = None  # None: no cost recorded yet
        self._cost_decimal: Decimal | None = None
        self.latency_total: Decimal | None = None
        self.cost_total: Decimal | None = None

    def merge(  # noqa: PLR0917 - the loop's locals, passed once per chunk
        self,
        steps: Sequence[Step],
        latencies: int,
        whole_latency: int,
        float_latency: bool,
        costs: int,
        units: int | None,
        tokens: int | None,
    ) -> None:
        """Add a chunk's values, summed by the caller: `latencies` recorded, integer ones
        summing to `whole_latency` (`float_latency`: some are not integers); `costs`
        recorded, in `units` (None: not all exact so); the tokens recorded (None: none)."""
        if tokens is not None:
            self.token_total = (self.token_total or 0) + tokens
        if latencies:
            self.latency_steps += latencies
            self._add_latency(steps, whole_latency, float_latency)
        if costs:
            self._add_cost(steps, units)

    # The running totals stay exact ints while the Decimal sum of the same values would
    # be too (no float seen, every partial sum below 10**28); from the first chunk where
    # that ends, the values are added one by one in Decimal, continuing from the exact
    # partial sum, which is the Decimal sum's own partial sum there.

    def _add_latency(self, steps: Sequence[Step], whole: int, float_seen: bool) -> None:
        if self._latency_decimal is None and not (
            float_seen or self._latency_whole + whole >= _EXACT_DECIMAL_INT
        ):
            self._latency_whole += whole
            return
        if self._latency_decimal is None:
            self._latency_decimal = Decimal(self._latency_whole)
        self._latency_decimal = _decimal_sum((s.latency_ms for s in steps), self._latency_decimal)

    def _add_cost(self, steps: Sequence[Step], units: int | None) -> None:
        running = self._cost_units
        if (
            self._cost_decimal is None
            and units is not None
            and (running or 0) + units < _EXACT_DECIMAL_INT
        ):
            self._cost_units = (running or 0) + units
            return
        if self._cost_decimal is None and running is not None:
            self._cost_decimal = Decimal(running).scaleb(-_COST_DIGITS)
        self._cost_decimal = _cost_sum(steps, self._cost_decimal)

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
