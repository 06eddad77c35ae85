"""Issue 18 item 3: a policy argument bound of 10^309 (valid JSON, beyond the float range)
is an invalid policy with one clean line, not an internal error."""

from __future__ import annotations

from pathlib import Path

import pytest
from faultkit import assert_clean, cli, good_trace, write_json

HUGE = 10**309


@pytest.mark.parametrize("key", ["min", "max"])
def test_a_bound_beyond_the_float_range_is_an_invalid_policy(key: str, tmp_path: Path) -> None:
    rules = {"type": "int", key: HUGE}
    policy = write_json(
        tmp_path / "p.json",
        {"policy_id": "p", "allowed_tools": {"lookup": {"required_arguments": {"q": rules}}}},
    )
    trace = good_trace(tmp_path)
    for args in (["validate", "--policy", str(policy), str(trace)], ["check-policy", str(policy)]):
        code, out, err = cli(args)
        assert_clean(err, code)
        assert out == ""
        assert err.startswith(f"error: invalid policy {policy}: ")
        assert f"'q'.{key}: must be a finite number" in err


def test_a_budget_beyond_the_float_range_is_an_invalid_policy(tmp_path: Path) -> None:
    policy = write_json(
        tmp_path / "p.json", {"policy_id": "p", "budgets": {"max_total_cost_usd": HUGE}}
    )
    code, _, err = cli(["check-policy", str(policy)])
    assert_clean(err, code)
    assert err.startswith(f"error: invalid policy {policy}: ")
