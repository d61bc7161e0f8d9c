"""make_composition: pure, zCDP and approximate-DP budgets add (exactly, rounded up); mismatched
or empty lists are refused."""
from fractions import Fraction

import pytest

import opendp_duff as dp

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
