"""opendp_duff.tails: the outward-rounded Laplace and normal tails and the verified normal quantile,
against an independent reference (mpmath at 60 digits): the lower bound is never above the exact
tail, the upper never below, and both are within a few units in the last place.  Nothing here is
statistical."""
import math
from fractions import Fraction

import pytest

from opendp_duff import tails as T

mpmath = pytest.importorskip("mpmath")  # an independent high-precision reference (the test extra)

mpmath.mp.dps = 60
POINTS = [0.0, 1e-300, 0.25, 0.5, 1.0, 1.959963984540054, 2.5, 3.0, 5.0, 8.5, 12.0, 20.0, 37.5, 39.999, 40.0, 1e6]


def exact_normal(t):
    return mpmath.ncdf(-mpmath.mpf(t) if not isinstance(t, Fraction) else -mpmath.mpf(t.numerator) / t.denominator)


def exact_laplace(t):
    t = mpmath.mpf(t.numerator) / t.denominator if isinstance(t, Fraction) else mpmath.mpf(t)
    return mpmath.exp(-t) / 2 if t >= 0 else 1 - mpmath.exp(t) / 2


def close(lo, hi, exact, ulps=4):
    """lo <= exact <= hi, and hi within a few floats of lo (or both tiny)."""
    assert mpmath.mpf(lo) <= exact <= mpmath.mpf(hi), (lo, float(exact), hi)
    if hi > 1e-300:
        assert hi <= lo * (1 + ulps * 2.0 ** -52) + 1e-320, (lo, hi)


@pytest.mark.parametrize("t", POINTS + [-p for p in POINTS[1:8]])
def test_normal_tail_encloses_the_exact_value(t):
    close(T.normal_sf_down(t), T.normal_sf_up(t), exact_normal(t))


@pytest.mark.parametrize("t", [Fraction(1, 3), Fraction(-7, 5), Fraction(10 ** 20 + 1, 10 ** 19), 3])
def test_normal_tail_reads_rationals_and_ints_exactly(t):
    close(T.normal_sf_down(t), T.normal_sf_up(t), exact_normal(Fraction(t)))


def test_far_tail_is_the_smallest_float_and_zero():
    assert T.normal_sf_up(40) == 5e-324 and T.normal_sf_down(40) == 0.0
    assert T.normal_sf_up(-40) == 1.0


@pytest.mark.parametrize("t", [0.0, 0.1, 1.0, 13.122, 700.0, 800.0, -0.5, -3.0, Fraction(-1, 3), Fraction(29, 2)])
def test_laplace_tail_encloses_the_exact_value(t):
    close(T.laplace_sf_down(t), T.laplace_sf_up(t), exact_laplace(t))


@pytest.mark.parametrize("p", [0.4999, 0.25, 0.025, 1e-6, 5e-7, 1e-12, 1e-40])
def test_normal_quantile_is_verified_and_tight(p):
    t = T.normal_isf_up(p)
    assert exact_normal(t) <= p                                  # never smaller than the exact quantile
    assert exact_normal(math.nextafter(t, 0.0) * (1 - 1e-12)) > p   # and not much larger


def test_normal_quantile_edges():
    assert T.normal_isf_up(0.5) == 0.0 and T.normal_isf_up(0.9) == 0.0
    assert T.normal_isf_up(1e-330) == math.inf


def test_infinite_argument_is_refused():
    with pytest.raises(ValueError):
        T.normal_sf_up(math.inf)


def test_smallest_float_where_returns_a_verified_point():
    # holds is not monotone here: the answer must still be a point where it holds
    got = T.smallest_float_where(lambda t: t >= 2.0 or 0.5 <= t <= 0.6, 0.0, 4.0)
    assert got >= 2.0 or 0.5 <= got <= 0.6
    assert T.smallest_float_where(lambda t: t >= 1.5, 0.0, 8.0) == 1.5
