"""opendp_duff.audit.empirical.clopper_pearson, the one Clopper-Pearson implementation [CP34]
behind the empirical audit: closed forms at k = 0 and k = n, and the defining binomial tail
identities (exact binomial sums in Fraction arithmetic) in between.
"""
import math
from fractions import Fraction

import numpy as np
import pytest

from opendp_duff.audit.empirical import clopper_pearson


def binomial_tail_at_least(k, n, p):
    """P(Bin(n, p) >= k), exactly for the float p."""
    p = Fraction(p)
    return sum(Fraction(math.comb(n, j)) * p ** j * (1 - p) ** (n - j) for j in range(k, n + 1))


@pytest.mark.parametrize("n", [1, 7, 40])
@pytest.mark.parametrize("level", [0.05, 0.0005])
def test_closed_forms_at_the_ends(n, level):
    lo, hi = clopper_pearson(0, n, level)
    assert float(lo) == 0.0 and float(hi) == pytest.approx(1 - level ** (1 / n), rel=1e-12)
    lo, hi = clopper_pearson(n, n, level)
    assert float(hi) == 1.0 and float(lo) == pytest.approx(level ** (1 / n), rel=1e-12)


def test_bounds_solve_the_binomial_tail_equations():
    n, level = 30, 0.025
    ks = np.arange(1, n)
    lo, hi = clopper_pearson(ks, n, level)    # vectorised over k
    for k, a, b in zip(ks.tolist(), lo.tolist(), hi.tolist(), strict=True):
        assert float(binomial_tail_at_least(k, n, a)) == pytest.approx(level, rel=1e-9)       # P(X >= k | lower)
        assert float(1 - binomial_tail_at_least(k + 1, n, b)) == pytest.approx(level, rel=1e-9)  # P(X <= k | upper)
        assert 0.0 < a < k / n < b < 1.0
