"""Composition, measure casts, fix_delta and binary_search_param."""
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


def test_pure_composition_adds_exactly_upward():
    comp = dp.c.make_composition([lap(3.0), lap(7.0), lap(11.0)])
    got = comp.map(1.0)
    exact = Fraction(1) / Fraction(3.0) + Fraction(1) / Fraction(7.0) + Fraction(1) / Fraction(11.0)
    assert Fraction(got) >= exact
    assert Fraction(got) <= exact * (1 + Fraction(4, 2 ** 52))
    assert len(comp(1.0)) == 3


def test_zcdp_composition_adds():
    comp = dp.c.make_composition([gauss(1.0), gauss(2.0)])
    assert comp.map(1.0) == 0.5 + 0.125


def test_approx_composition_adds_both():
    a = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gauss(1.0)), delta=1e-6)
    eps, delta = dp.c.make_composition([a, a]).map(1.0)
    assert delta == 2e-6 and eps >= 2 * a.map(1.0)[0]


def test_composition_refuses_mismatches():
    with pytest.raises(dp.MeasureMismatch):
        dp.c.make_composition([lap(1.0), gauss(1.0)])
    other = dp.m.make_laplace(dp.atom_domain(T=float, bounds=(0.0, 1.0)), dp.absolute_distance(), scale=1.0)
    with pytest.raises(dp.DomainMismatch):
        dp.c.make_composition([lap(1.0), other])
    with pytest.raises(ValueError, match="measurements"):
        dp.c.make_composition([])
    with pytest.raises(TypeError, match=r"measurements\[1\]"):
        dp.c.make_composition([lap(1.0), "x"])
    with pytest.raises(ValueError, match="output_measure"):
        dp.c.make_composition([dp.c.make_zCDP_to_approxDP(gauss(1.0))])


def test_pure_to_zcdp():
    m = dp.c.make_pureDP_to_zCDP(lap(3.0))
    got = m.map(1.0)
    assert Fraction(got) >= (Fraction(1) / Fraction(3.0)) ** 2 / 2
    assert m.output_measure == dp.zero_concentrated_divergence()
    with pytest.raises(ValueError, match="output_measure"):
        dp.c.make_pureDP_to_zCDP(gauss(1.0))


def gaussian_exact_epsilon(scale, delta):
    """The exact (eps, delta) curve of the Gaussian mechanism, sensitivity 1 (Balle & Wang 2018)."""
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
    assert eps <= mc.zcdp_epsilon_lemma9(rho, delta)          # at least as good as Lemma 9


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


def test_binary_search_smallest_scale():
    scale = dp.binary_search_param(lap, d_in=1.0, d_out=0.5)
    assert lap(scale).check(1.0, 0.5)
    assert not lap(math.nextafter(scale, 0)).check(1.0, 0.5)


def test_binary_search_largest_epsilon_like_parameter():
    # check passes for small parameters here: the search returns the largest passing one
    make = lambda inv: lap(1.0 / inv) if inv > 0 else lap(math.inf)
    inv = dp.binary_search_param(make, d_in=1.0, d_out=0.25, bounds=(0.0, 10.0))
    assert make(inv).check(1.0, 0.25) and not make(math.nextafter(inv, 11)).check(1.0, 0.25)


def test_binary_search_integer_and_errors():
    make = lambda k: dp.c.make_composition([lap(1.0)] * k)
    k = dp.binary_search_param(make, d_in=1.0, d_out=5.0, bounds=(1, 100), T=int)
    assert k == 5
    with pytest.raises(ValueError, match="straddle"):
        dp.binary_search_param(lap, 1.0, 0.5, bounds=(10.0, 20.0))
