"""Exact statistics for repeated runs (policy v1.1 section 7): unbiased pass@k and pass^k,
the Wilson interval and the one-sided Fisher exact test, in integer and Fraction
arithmetic; floats appear only when a value is rounded for output.
"""

from __future__ import annotations

from decimal import Context
from fractions import Fraction
from math import comb

# The 97.5% quantile of the standard normal distribution (two-sided 95%).
Z95 = 1.959963984540054
_SQRT_CONTEXT = Context(prec=60)
_OUTPUT_DECIMALS = 6


def _check_counts(n: int, c: int) -> None:
    if n < 1 or not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n and n >= 1, got c={c}, n={n}")


def pass_at_k(n: int, c: int, k: int) -> Fraction:
    """Unbiased pass@k of a task with c of n runs passing: the chance that k runs drawn
    without replacement hold at least one pass, 1 - C(n-c, k) / C(n, k)."""
    _check_counts(n, c)
    if not 1 <= k <= n:
        raise ValueError(f"k must be in 1..{n}, got {k}")
    return 1 - Fraction(comb(n - c, k), comb(n, k))


def pass_hat_k(n: int, c: int, k: int) -> Fraction:
    """Unbiased pass^k: the chance that k runs drawn without replacement all pass,
    C(c, k) / C(n, k)."""
    _check_counts(n, c)
    if not 1 <= k <= n:
        raise ValueError(f"k must be in 1..{n}, got {k}")
    return Fraction(comb(c, k), comb(n, k))


def round_output(value: Fraction | int) -> float:
    """A value as reports print it: rounded to 6 decimals, ties to even, on the exact
    value (so 0.0000005 becomes 0.0 and 0.0000015 becomes 0.000002), then the nearest
    float, which prints as those decimals."""
    return float(round(Fraction(value), _OUTPUT_DECIMALS)) + 0.0


def _sqrt(value: Fraction) -> Fraction:
    root = (_SQRT_CONTEXT.divide(value.numerator, value.denominator)).sqrt(_SQRT_CONTEXT)
    return Fraction(root)


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[Fraction, Fraction]:
    """The Wilson score interval for `successes` of `n`, to 60 significant digits
    (exact but for the square root), clamped to [0, 1]; exact 0 when there are no
    successes and exact 1 when all n are."""
    _check_counts(n, successes)
    zz = Fraction(z) ** 2
    center = (successes + zz / 2) / (n + zz)
    half = Fraction(z) * _sqrt(Fraction(successes * (n - successes), n) + zz / 4) / (n + zz)
    low = Fraction(0) if successes == 0 else max(Fraction(0), center - half)
    high = Fraction(1) if successes == n else min(Fraction(1), center + half)
    return low, high


def _upper_tail(hits: int, n: int, other_hits: int, other_n: int) -> Fraction:
    """P(X >= hits) for X the first group's hits under the hypergeometric law with the
    table's margins fixed."""
    total = hits + other_hits
    everyone = n + other_n
    top = sum(
        comb(total, x) * comb(everyone - total, n - x) for x in range(hits, min(n, total) + 1)
    )
    return Fraction(top, comb(everyone, n))


def fisher_drop(base_passed: int, base_runs: int, cand_passed: int, cand_runs: int) -> Fraction:
    """One-sided Fisher exact test that the candidate's pass rate is lower than the
    baseline's: the chance, with both margins fixed, of the baseline holding at least
    as many of the passes as it does."""
    _check_counts(base_runs, base_passed)
    _check_counts(cand_runs, cand_passed)
    return _upper_tail(base_passed, base_runs, cand_passed, cand_runs)


def fisher_rise(base_fired: int, base_runs: int, cand_fired: int, cand_runs: int) -> Fraction:
    """One-sided Fisher exact test that the candidate's rate (a rule's firing rate) is
    higher than the baseline's: a drop in the rate of runs where it did not fire."""
    return fisher_drop(base_runs - base_fired, base_runs, cand_runs - cand_fired, cand_runs)
