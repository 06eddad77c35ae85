"""The numbers an inferred policy writes: bounds with a margin, budgets at a high quantile
with a margin, rounded outward to short decimals, computed in Decimal so that they are
stable and never below what a good run recorded."""

from __future__ import annotations

import math
import sys
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from ..models.common import MAX_INT

MARGIN = Decimal("0.25")  # widening of ranges, budgets and large call counts
QUANTILE = 0.95
_HUGE = Decimal("1e300")  # beyond this no bound is written (floats would overflow)


def as_float(value: int | float) -> float:
    """`value` as a float for a quantile: an integer beyond the float range is the largest
    float (the exact value is kept apart, as Samples.top)."""
    try:
        return float(value)
    except OverflowError:
        return sys.float_info.max if value > 0 else -sys.float_info.max


def writable(value: Decimal, integral: bool = False) -> bool:
    """Whether a budget can be written: beyond _HUGE (an integer: beyond MAX_INT), no; a
    policy holding it would not load, and no limit is better than a wrong one."""
    return value <= MAX_INT if integral else abs(value) <= _HUGE


def json_number(value: Decimal) -> int | float:
    """A Decimal as the JSON number to write (an int when integral)."""
    if value == value.to_integral_value():
        return int(value)
    return float(str(value))


def text(value: Decimal | int | float) -> str:
    """A number for an evidence sentence (never in exponent form)."""
    number = Decimal(value) if isinstance(value, int) else Decimal(str(value))
    shown = format(number.normalize(), "f")
    return shown


def round_up(value: Decimal, digits: int = 2) -> Decimal:
    """`value` rounded up to `digits` significant digits (0.4567 -> 0.46, 12340 -> 13000)."""
    if value <= 0:
        return Decimal(0)
    quantum = Decimal(1).scaleb(value.adjusted() - digits + 1)
    return (value / quantum).to_integral_value(rounding=ROUND_CEILING) * quantum


def quantile(values: list[float]) -> Decimal:
    """The nearest-rank QUANTILE of the values (at least one)."""
    ordered = sorted(values)
    rank = max(1, math.ceil(QUANTILE * len(ordered)))
    return Decimal(repr(ordered[rank - 1]))


def budget(values: list[float], top: Decimal) -> Decimal:
    """QUANTILE plus MARGIN, never below the largest value, rounded up to 2 digits."""
    return round_up(max(quantile(values) * (1 + MARGIN), top))


def widened(low: Decimal, high: Decimal, integral: bool) -> tuple[Decimal, Decimal] | None:
    """[low, high] widened by MARGIN of its spread on each side (the value's size, or 1,
    when every value was the same), rounded outward; never below 0 when no value was."""
    if abs(low) > _HUGE or abs(high) > _HUGE:
        return None
    spread = high - low or abs(high) or Decimal(1)
    margin = spread * MARGIN
    quantum = Decimal(1) if integral else Decimal(1).scaleb(margin.adjusted() - 1)
    lower = ((low - margin) / quantum).to_integral_value(rounding=ROUND_FLOOR) * quantum
    upper = ((high + margin) / quantum).to_integral_value(rounding=ROUND_CEILING) * quantum
    if low >= 0:
        lower = max(lower, Decimal(0))
    return lower, upper


def call_limit(most: int) -> int:
    """max_calls: the largest count when it is small (a deliberate number of calls, such
    as one refund), else that count plus MARGIN."""
    if most <= 3:
        return most
    return int((most * (1 + MARGIN)).to_integral_value(rounding=ROUND_CEILING))
