"""make_laplace: the exact map and its edge cases, bad input, and releases (never NaN, the exact
sampler rounded once, the law by Kolmogorov-Smirnov).

The KS test is seeded (``rerun_once``), at level 1e-3: false-failure rate about 1e-6."""
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import opendp_duff as dp
from helpers import rerun_once
from opendp_duff.samplers import seeded_rng_for_tests
from opendp_duff.samplers.exact_noise import LAPLACE

ATOM = dp.atom_domain(T=float), dp.absolute_distance(T=float)
# KS tests at level 1e-3, rerun once: false-failure rate about 1e-6 per test.
ALPHA = 1e-3


def laplace(scale):
    return dp.m.make_laplace(*ATOM, scale=scale)


def test_scale_two_costs_half_per_unit_of_d_in():
    assert laplace(2.0).map(1.0) == 0.5


@pytest.mark.parametrize("d_in,scale", [(1.0, 3.0), (0.1, 0.7), (7.0, 1e-300), (1e300, 1e-10), (0.3, 1e10)])
def test_laplace_map_is_the_tightest_float_above_exact(d_in, scale):
    got = laplace(scale).map(d_in)
    exact = Fraction(d_in) / Fraction(scale)
    if math.isinf(got):
        assert exact > Fraction(ar_max())
    else:
        assert Fraction(got) >= exact > Fraction(math.nextafter(got, -math.inf))


def ar_max():
    return 1.7976931348623157e308


@pytest.mark.parametrize("make", [laplace])
def test_edge_cases(make):
    assert make(1.0).map(0.0) == 0.0
    assert make(0.0).map(1.0) == math.inf
    assert make(0.0).map(0.0) == 0.0
    assert make(math.inf).map(1.0) == 0.0
    assert make(2.0).map(math.inf) == math.inf


@pytest.mark.parametrize("make", [dp.m.make_laplace])
@pytest.mark.parametrize("scale", [-1.0, math.nan, -math.inf, True, "1", None])
def test_bad_scale(make, scale):
    with pytest.raises((TypeError, ValueError), match="scale"):
        make(*ATOM, scale=scale)


def test_wrong_metric_or_domain():
    with pytest.raises(ValueError, match="input_metric"):
        dp.m.make_laplace(dp.atom_domain(T=float), dp.l1_distance(), scale=1.0)
    with pytest.raises(ValueError, match="input_domain"):
        dp.m.make_laplace(dp.atom_domain(T=float, nan=True), dp.absolute_distance(), scale=1.0)


def test_releases_never_nan_on_members():
    with seeded_rng_for_tests(1):
        for scale in [0.0, 1.0, 1e300, math.inf]:
            for x in [0.0, -1e308, 1e308, math.inf, -math.inf]:
                y = laplace(scale)(x)
                assert not math.isnan(y)
        assert laplace(0.0)(3.5) == 3.5


def test_vector_release():
    dom = dp.vector_domain(dp.atom_domain(T=float), size=3)
    m = dp.m.make_laplace(dom, dp.l1_distance(), scale=1.0)
    with seeded_rng_for_tests(2):
        y = m([1.0, 2.0, 3.0])
    assert y.shape == (3,) and np.all(np.isfinite(y))


def test_infinite_scale_release_ignores_the_input():
    with seeded_rng_for_tests(4):
        a = [laplace(math.inf)(x) for x in (0.0, 1e300, -1e308)]
    with seeded_rng_for_tests(4):
        b = [laplace(math.inf)(0.0) for _ in range(3)]
    assert a == b and all(abs(y) == 1.7976931348623157e308 for y in a)


def test_unbounded_or_huge_integer_domains_are_refused():
    # beyond 2^53 the conversion to float would stretch distances
    with pytest.raises(ValueError, match="2\\^53"):
        dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.0)
    m = dp.m.make_laplace(dp.atom_domain(T=int, bounds=(0, 100)), dp.absolute_distance(T=int), scale=1.0)
    assert m.map(1) == 1.0


@pytest.mark.parametrize("make,noise", [(laplace, LAPLACE)])
def test_release_is_the_exact_sampler_rounded_once(make, noise):
    # the mechanism's function is exactly round(x + scale Z) from the exact sampler
    from opendp_duff.samplers.exact_noise import exact_rounded_release
    m = make(2.0)
    for seed in range(5):
        with seeded_rng_for_tests(seed):
            a = m._function(0.25)
        with seeded_rng_for_tests(seed):
            b = exact_rounded_release(0.25, 2.0, noise)
        assert a == b


def test_tiny_scale_release_rounds_to_the_input():
    # with scale 1e-300 the exact real release is within 1e-290 of x, so it rounds to x:
    # the float grid of the release does not depend on x beyond rounding
    with seeded_rng_for_tests(6):
        assert all(laplace(1e-300)(0.1) == 0.1 for _ in range(20))


@pytest.mark.slow
@rerun_once(seed=14)
def test_laplace_mechanism_release_ks():
    m = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float)), dp.l1_distance(), scale=3.0)
    y = m(np.full(20_000, 5.0))
    assert stats.kstest(y, stats.laplace(loc=5.0, scale=3.0).cdf).pvalue > ALPHA
