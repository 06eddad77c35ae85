"""TraceFacts' fast paths give what the general code gives: exact cost totals."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness.models.trace import Trace
from agent_reliability_harness.rules.facts import (
    _COST_BOUND,
    _COST_DIGITS,
    TraceFacts,
    json_number,
)
from helpers import make_trace, response

# --- cost totals -------------------------------------------------------------------------


def _reference_cost(values: list[Any]) -> Decimal | None:
    """The cost total as it was computed before the fast path: Decimal(repr) per step."""
    cost: Decimal | None = None
    for value in values:
        if value is not None:
            exact = Decimal(value) if isinstance(value, int) else Decimal(repr(value))
            cost = (cost or Decimal(0)) + exact
    return cost


def _cost_facts(values: list[Any]) -> TraceFacts:
    steps = [response(f"s{i}", cost_usd=v) for i, v in enumerate(values)]
    return TraceFacts(Trace.from_dict(make_trace(*steps)))


def _same_number(a: object, b: object) -> bool:
    return type(a) is type(b) and repr(a) == repr(b)


def _decimal_float(places: int) -> st.SearchStrategy[float]:
    """Floats written with up to `places` decimals, like recorded prices."""
    return st.integers(0, 10**15).map(lambda n: n / 10**places)


_COSTS = st.one_of(
    st.none(),
    st.just(-0.0),
    st.just(0.0),
    st.floats(min_value=0.0, allow_nan=False, allow_infinity=False),  # huge, subnormal
    st.floats(min_value=0.0, max_value=2 * _COST_BOUND),
    st.integers(0, 2**60),
    st.integers(0, 10**40),
    st.sampled_from([0.1, 0.2, 0.7, 0.1 + 0.2, 1.1 * 3, 5e-324, 1e-12, 1e-13, 511.999, 512.0]),
    st.integers(0, 17).flatmap(_decimal_float),
    st.tuples(_decimal_float(4), _decimal_float(6)).map(lambda ab: ab[0] + ab[1]),
    st.tuples(_decimal_float(7), st.integers(1, 5000)).map(lambda ab: ab[0] * ab[1]),
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(_COSTS, max_size=6))
def test_cost_total_is_the_decimal_sum(values: list[Any]) -> None:
    expected = _reference_cost(values)
    total = _cost_facts(values).cost_total
    if expected is None:
        assert total is None
        return
    assert total == expected
    assert _same_number(json_number(total), json_number(expected))


@settings(max_examples=1500, deadline=None)
@given(st.one_of(_COSTS, st.floats(min_value=0.0, max_value=_COST_BOUND)))
def test_each_fast_cost_is_its_repr(value: Any) -> None:
    # One step at a time: the total is then the value itself, with no sum to hide an error.
    total = _cost_facts([value]).cost_total
    assert total == _reference_cost([value])


def test_cost_fast_path_takes_the_common_values() -> None:
    facts = _cost_facts([0.1, 0.2, 0.0069, 3, 1.5e-07, -0.0])
    # The fast path leaves the exponent at -_COST_DIGITS; the Decimal path would keep 0.3069...
    assert facts.cost_total == Decimal("3.3069001500")
    assert facts.cost_total is not None and facts.cost_total.as_tuple().exponent == -_COST_DIGITS
    assert _same_number(json_number(_cost_facts([0.1, 0.2]).cost_total), 0.3)
    assert _same_number(json_number(_cost_facts([1.5, 2.5]).cost_total), 4)
    # too many decimals, or too large for 12 decimals: the Decimal path, as before
    for values in ([0.1 + 0.2], [1e-13], [1e300, 1.0], [2**100, 0.5]):
        total = _cost_facts(values).cost_total
        assert total == _reference_cost(values)
        assert str(total) == str(_reference_cost(values))


def test_cost_bound_spacing() -> None:
    # Below the bound, floats are spaced less than 10**-(k+1) apart (the comment's premise),
    # and the bound is a power of two.
    below = math.nextafter(_COST_BOUND, 0.0)
    assert Fraction(math.ulp(below)) < Fraction(1, 10 ** (_COST_DIGITS + 1))
    assert math.frexp(_COST_BOUND)[0] == 0.5


def test_cost_totals_beyond_28_digits_round_as_before() -> None:
    values = [10**15, 0.000000000001, 10**15]  # 10**27 + 10**27 units: the fast path's limit
    assert _cost_facts(values).cost_total == _reference_cost(values)
    values = [2**53, 0.5, 2**53, 2**53, 0.25, 10**17]
    assert _cost_facts(values).cost_total == _reference_cost(values)
