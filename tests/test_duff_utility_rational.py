"""quantile_rational: the least fraction P/Q >= alpha with Q <= 2n + 2, by the continued-fraction
walk whose correctness (it ends at two Farey neighbours of order 2n + 2 that bracket alpha
strictly) is proved in proofs/measurements/duff/duff_quantile_body.inc.  Here it is compared
with a brute force over every denominator, exhaustively for small denominators and on the
extreme cases of the proof (alpha below 1/(2n + 2), alpha near 1, huge denominators).
"""
import math
from fractions import Fraction

import numpy as np
import pytest

from opendp_duff.duff_utility import quantile_rational


def least_above(alpha, n):
    """min over q <= 2n + 2 of ceil(alpha q) / q: the least fraction >= alpha with such a q."""
    return min(Fraction(math.ceil(alpha * q), q) for q in range(1, 2 * n + 3))


def check(alpha, n):
    P, Q = quantile_rational(alpha, n)
    assert math.gcd(P, Q) == 1 and 1 <= Q <= 2 * n + 2
    assert Fraction(P, Q) == least_above(alpha, n), (alpha, n)
    for m in range(1, 2 * n + 3):  # the rank ceil(alpha m) is unchanged for every size that matters
        assert math.ceil(alpha * m) == -((-P * m) // Q), (alpha, n, m)


@pytest.mark.slow
def test_exhaustive_small_denominators():
    for den in range(2, 41):
        for num in range(1, den):
            alpha = Fraction(num, den)
            if alpha.denominator != den:
                continue
            for n in range(0, 25):
                check(alpha, n)


def test_extreme_levels_and_huge_denominators():
    rng = np.random.default_rng(8)
    cases = [Fraction(1, 10 ** 9), Fraction(1, 2 ** 60 + 1), Fraction(10 ** 9 - 1, 10 ** 9),
             Fraction(2 ** 61 - 1, 2 ** 61), Fraction(1, 3) + Fraction(1, 2 ** 70),
             Fraction(1, 3) - Fraction(1, 2 ** 70), Fraction(355, 113) - 3]
    cases += [Fraction(int(a), 2 ** 64) for a in rng.integers(1, 2 ** 63, size=40)]
    for alpha in cases:
        for n in (0, 1, 2, 7, 50, 333):
            check(alpha, n)


def test_floats_mean_their_decimal():
    for text in ("0.1", "0.3", "0.999", "0.001", "0.123456789"):
        for n in (0, 3, 9, 100):
            assert quantile_rational(float(text), n) == quantile_rational(Fraction(text), n)
