"""TraceFacts' fast paths give what the general code gives: exact cost totals, call identities."""

from __future__ import annotations

import enum
import json
import math
import sys
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness.models.trace import Trace
from agent_reliability_harness.rules.facts import TraceFacts, argument_identity
from agent_reliability_harness.rules.totals import _COST_BOUND, _COST_DIGITS, json_number
from helpers import make_trace, response, tool_call

pytestmark = pytest.mark.slow  # an equivalence oracle (see pyproject.toml)

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


@settings(max_examples=250, deadline=None)
@given(st.lists(_COSTS, max_size=6))
def test_cost_total_is_the_decimal_sum(values: list[Any]) -> None:
    expected = _reference_cost(values)
    total = _cost_facts(values).cost_total
    if expected is None:
        assert total is None
        return
    assert total == expected
    assert _same_number(json_number(total), json_number(expected))


@settings(max_examples=500, deadline=None)
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


# --- argument identities -------------------------------------------------------------------


def _json_identity(arguments: Any) -> str:
    """The identity as it was defined: canonical JSON of the arguments, `{}` when absent."""
    if not arguments:
        return "{}"
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _outcome(function: Any, value: Any) -> tuple[str, str]:
    try:
        return ("ok", function(value))
    except Exception as exc:
        return ("error", type(exc).__name__)


_KEYS = st.one_of(st.text(max_size=4), st.sampled_from(["a", "b", "é", "\U0001f600", "\uffff"]))
_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(-(2**70), 2**70),
    st.floats(),  # NaN, infinities, -0.0, subnormals
    st.text(),
    st.text(alphabet='\x00\x1f\x7f"\\/\b\f\n\r\t\u2028\ud800é'),
    st.sampled_from([2**64, -(2**63) - 1, 10**40, 1e16, 1e-05, 1.0]),
)
_JSON = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=250, deadline=None)
@given(st.dictionaries(_KEYS, _JSON, max_size=4))
def test_argument_identity_is_the_canonical_json(arguments: dict[str, Any]) -> None:
    assert _outcome(argument_identity, arguments) == _outcome(_json_identity, arguments)


# A small vocabulary, so that equal and nearly equal identities are frequent.
_SMALL = st.recursive(
    st.sampled_from([0, 1, 1.0, 0.0, -0.0, True, False, None, "1", "", "a", 2**64, math.nan]),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from("ab"), inner),
    max_leaves=4,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from("ab"), _SMALL, max_size=2), min_size=2, max_size=6))
def test_argument_identities_group_as_before(values: list[dict[str, Any]]) -> None:
    for a in values:
        for b in values:
            same = argument_identity(a) == argument_identity(b)
            assert same == (_json_identity(a) == _json_identity(b))


def test_identity_escapes_every_character_as_json_does() -> None:
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    assert argument_identity({every: [every]}) == _json_identity({every: [every]})


class _Str(str):
    def __lt__(self, other: object) -> bool:
        return False


class _Int(enum.IntEnum):
    ONE = 1


class _Plain(enum.Enum):
    ONE = 1


@pytest.mark.parametrize(
    "arguments",
    [
        {"a": (1, 2)},
        {"a": {1, 2}},
        {"a": b"x"},
        {"a": Decimal("1.5")},
        {"a": _Int.ONE},
        {"a": _Plain.ONE},
        {_Str("b"): 1, "a": 2, "c": 3},
        {"a": _Str("x")},
        {1: "a"},
        {2: 1, 10: 1},
        {True: 1},
        {None: 1},
        {"a": 1, 1: 2},
        {"a": "\ud800"},
        {"a": [1.5, {"b": 1e16}]},
        {"a": math.inf},
    ],
)
def test_identity_of_values_json_does_not_produce(arguments: dict[Any, Any]) -> None:
    assert _outcome(argument_identity, arguments) == _outcome(_json_identity, arguments)


def test_identity_of_deep_or_circular_arguments() -> None:
    deep: Any = "x"
    for _ in range(sys.getrecursionlimit() + 10):
        deep = [deep]
    assert _outcome(argument_identity, {"a": deep}) == _outcome(_json_identity, {"a": deep})
    circular: dict[str, Any] = {}
    circular["a"] = circular
    assert _outcome(argument_identity, circular) == _outcome(_json_identity, circular)
    assert argument_identity(None) == argument_identity({}) == "{}"


def test_groups_follow_the_identities() -> None:
    trace = Trace.from_dict(
        make_trace(
            tool_call("c1", "search", {"q": "x", "k": 1}),
            tool_call("c2", "search", {"k": 1, "q": "x"}),
            tool_call("c3", "search", {"k": 1.0, "q": "x"}),
            tool_call("c4", "search", {"k": True, "q": "x"}),
            tool_call("c5", "send", {}),
            tool_call("c6", "send"),
            tool_call("c7", "search", {"k": 1.0, "q": "x"}),
        )
    )
    groups: dict[str, list[int]] = {}
    for index, _, key in TraceFacts(trace).keyed_calls():
        groups.setdefault(key, []).append(index)
    assert list(groups.values()) == [[0, 1], [2, 6], [3], [4, 5]]
