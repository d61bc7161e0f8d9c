"""make_sum: the exact stability map (including the float rounding of the sum), its
requirements, and neighbours built to make a naive float sum move further than the bound."""
import math
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp


def sized(n, lo=0.0, hi=1.0):
    return dp.vector_domain(dp.atom_domain(T=float, bounds=(lo, hi)), size=n)


def test_sum_map_exact_values():
    n, lo, hi = 10, -2.0, 3.0
    t = dp.t.make_sum(sized(n, lo, hi), dp.change_one_distance())
    rounding = math.ulp(30.0)
    assert t.map(0) == 0.0
    assert Fraction(t.map(1)) >= Fraction(5) + Fraction(rounding)
    assert Fraction(t.map(1)) <= (Fraction(5) + Fraction(rounding)) * (1 + Fraction(1, 2 ** 51))
    sym = dp.t.make_sum(sized(n, lo, hi), dp.symmetric_distance())
    assert sym.map(1) == rounding  # odd symmetric distance between same-size datasets: floor(1/2) = 0 changes
    assert sym.map(2) == t.map(1)


def test_sum_needs_bounds_and_size_and_no_overflow():
    with pytest.raises(ValueError, match="bounded"):
        dp.t.make_sum(dp.vector_domain(dp.atom_domain(), size=3), dp.symmetric_distance())
    with pytest.raises(ValueError, match="known size"):
        dp.t.make_sum(dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0))), dp.symmetric_distance())
    with pytest.raises(ValueError, match="overflow"):
        dp.t.make_sum(sized(10, -1e308, 1e308), dp.symmetric_distance())


def test_sum_sensitivity_holds_on_rounding_adversarial_neighbours():
    # [CSVW22]: many tiny values next to a large one make a naive
    # float sum move further than its idealised sensitivity.
    n, lo, hi = 1000, 0.0, 1e16
    t = dp.t.make_sum(sized(n, lo, hi), dp.change_one_distance())
    x = np.full(n, 1.0)
    x[0] = 1e16
    x2 = x.copy()
    x2[1] = 0.0  # one substitution
    assert abs(t(x) - t(x2)) <= t.map(1)
    assert t(x) == 1e16 + 999.0  # fsum is the correctly rounded exact sum


def test_sum_random_neighbours_within_map():
    rng = np.random.default_rng(7)  # test data only
    n, lo, hi = 200, -1e5, 1e5
    t = dp.t.make_sum(sized(n, lo, hi), dp.change_one_distance())
    for _ in range(200):
        x = rng.uniform(lo, hi, n) * 10.0 ** rng.integers(-10, 0, n)
        x2 = x.copy()
        x2[rng.integers(n)] = rng.choice([lo, hi])
        assert abs(Fraction(t(x)) - Fraction(t(x2))) <= Fraction(t.map(1))
