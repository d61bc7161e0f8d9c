"""The measure casts: make_pureDP_to_zCDP, make_zCDP_to_approxDP (valid against the exact
Gaussian privacy profile, and at least as tight as the closed-form conversion) and make_fix_delta."""
import math
from fractions import Fraction

import pytest
from scipy import optimize, stats

import opendp_duff as dp
from opendp_duff.combinators import measure_cast as mc

ATOM = dp.atom_domain(T=float), dp.absolute_distance(T=float)


def lap(scale):
    return dp.m.make_laplace(*ATOM, scale=scale)


def gauss(scale):
    return dp.m.make_gaussian(*ATOM, scale=scale)


def test_pure_to_zcdp():
    m = dp.c.make_pureDP_to_zCDP(lap(3.0))
    got = m.map(1.0)
    assert Fraction(got) >= (Fraction(1) / Fraction(3.0)) ** 2 / 2
    assert m.output_measure == dp.zero_concentrated_divergence()
    with pytest.raises(ValueError, match="output_measure"):
        dp.c.make_pureDP_to_zCDP(gauss(1.0))


def gaussian_exact_epsilon(scale, delta):
    """The exact (eps, delta) curve of the Gaussian mechanism, sensitivity 1 ([BW18] Theorem 8)."""
    def d(eps):
        return (stats.norm.cdf(-eps * scale + 1 / (2 * scale))
                - math.exp(eps) * stats.norm.cdf(-eps * scale - 1 / (2 * scale)) - delta)
    if d(0.0) <= 0:
        return 0.0
    return optimize.brentq(d, 0, 200)


@pytest.mark.parametrize("scale", [0.5, 1.0, 2.0, 10.0])
@pytest.mark.parametrize("delta", [1e-10, 1e-6, 1e-3, 0.1])
def test_zcdp_to_approx_is_valid_and_tighter_than_lemma9(scale, delta):
    profile = dp.c.make_zCDP_to_approxDP(gauss(scale)).map(1.0)
    eps = profile(delta)
    rho = 1 / (2 * scale ** 2)
    assert eps >= gaussian_exact_epsilon(scale, delta)       # valid: never below the truth
    assert eps <= mc.zcdp_epsilon_lemma9(rho, delta)          # at least as good as [BS19] Lemma 9


def test_lemma9_matches_formula_upward():
    rho, delta = 0.3, 1e-5
    assert mc.zcdp_epsilon_lemma9(rho, delta) >= rho + 2 * math.sqrt(rho * math.log(1 / delta))


def test_fix_delta_and_check():
    m = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gauss(2.0)), delta=1e-6)
    eps, delta = m.map(1.0)
    assert delta == 1e-6
    assert m.check(1.0, (eps, 1e-6)) and not m.check(1.0, (eps * 0.99, 1e-6))
    assert not m.check(1.0, (eps, 1e-7))
    for bad in [0.0, 1.0, -0.1, math.nan, "x"]:
        with pytest.raises((TypeError, ValueError), match="delta"):
            dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gauss(2.0)), delta=bad)
