"""make_laplace and make_gaussian: exact maps, edge cases, bad input, releases."""
import math
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.samplers import seeded_rng_for_tests
from opendp_duff.samplers.exact_noise import GAUSSIAN, LAPLACE

ATOM = dp.atom_domain(T=float), dp.absolute_distance(T=float)


def laplace(scale):
    return dp.m.make_laplace(*ATOM, scale=scale)


def gaussian(scale):
    return dp.m.make_gaussian(*ATOM, scale=scale)


def test_issue_example():
    assert laplace(2.0).map(1.0) == 0.5


@pytest.mark.parametrize("d_in,scale", [(1.0, 3.0), (0.1, 0.7), (7.0, 1e-300), (1e300, 1e-10), (0.3, 1e10)])
def test_laplace_map_is_the_tightest_float_above_exact(d_in, scale):
    got = laplace(scale).map(d_in)
    exact = Fraction(d_in) / Fraction(scale)
    if math.isinf(got):
        assert exact > Fraction(ar_max())
    else:
        assert Fraction(got) >= exact > Fraction(math.nextafter(got, -math.inf))


@pytest.mark.parametrize("d_in,scale", [(1.0, 3.0), (0.1, 0.7), (2.0, 1e-3), (0.3, 1e10)])
def test_gaussian_map_is_exact_upper(d_in, scale):
    got = gaussian(scale).map(d_in)
    exact = (Fraction(d_in) / Fraction(scale)) ** 2 / 2
    assert Fraction(got) >= exact
    assert Fraction(got) <= exact * (1 + Fraction(1, 2 ** 50))


def ar_max():
    return 1.7976931348623157e308


@pytest.mark.parametrize("make", [laplace, gaussian])
def test_edge_cases(make):
    assert make(1.0).map(0.0) == 0.0
    assert make(0.0).map(1.0) == math.inf
    assert make(0.0).map(0.0) == 0.0
    assert make(math.inf).map(1.0) == 0.0
    assert make(2.0).map(math.inf) == math.inf


@pytest.mark.parametrize("make", [dp.m.make_laplace, dp.m.make_gaussian])
@pytest.mark.parametrize("scale", [-1.0, math.nan, -math.inf, True, "1", None])
def test_bad_scale(make, scale):
    with pytest.raises((TypeError, ValueError), match="scale"):
        make(*ATOM, scale=scale)


def test_wrong_metric_or_domain():
    with pytest.raises(ValueError, match="input_metric"):
        dp.m.make_laplace(dp.atom_domain(T=float), dp.l1_distance(), scale=1.0)
    with pytest.raises(ValueError, match="input_domain"):
        dp.m.make_laplace(dp.atom_domain(T=float, nan=True), dp.absolute_distance(), scale=1.0)
    with pytest.raises(TypeError, match="input_domain"):
        dp.m.make_gaussian("float", dp.absolute_distance(), scale=1.0)


def test_releases_never_nan_on_members():
    with seeded_rng_for_tests(1):
        for scale in [0.0, 1.0, 1e300, math.inf]:
            for x in [0.0, -1e308, 1e308, math.inf, -math.inf]:
                for make in (laplace, gaussian):
                    y = make(scale)(x)
                    assert not math.isnan(y)
        assert laplace(0.0)(3.5) == 3.5


def test_vector_release():
    dom = dp.vector_domain(dp.atom_domain(T=float), size=3)
    m = dp.m.make_laplace(dom, dp.l1_distance(), scale=1.0)
    with seeded_rng_for_tests(2):
        y = m([1.0, 2.0, 3.0])
    assert y.shape == (3,) and np.all(np.isfinite(y))
    assert dp.m.make_gaussian(dom, dp.l2_distance(), scale=2.0).map(2.0) == 0.5


def test_int_input_from_count():
    space = dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance()
    meas = space >> dp.t.then_count() >> dp.m.then_gaussian(scale=1.0)
    assert meas.map(1) == 0.5
    with seeded_rng_for_tests(3):
        assert isinstance(meas([1, 2, 3]), float)


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
    with pytest.raises(ValueError, match="2\\^53"):
        dp.m.make_gaussian(dp.atom_domain(T=int, bounds=(0, 2 ** 60)), dp.absolute_distance(T=int), scale=1.0)
    m = dp.m.make_laplace(dp.atom_domain(T=int, bounds=(0, 100)), dp.absolute_distance(T=int), scale=1.0)
    assert m.map(1) == 1.0


@pytest.mark.parametrize("make,noise", [(laplace, LAPLACE), (gaussian, GAUSSIAN)])
def test_release_is_the_exact_sampler_rounded_once(make, noise):
    # the mechanism's function is exactly round(x + scale Z) from the exact sampler
    from opendp_duff.samplers.exact_noise import exact_rounded_release
    m = make(2.0)
    for seed in range(5):
        with seeded_rng_for_tests(seed):
            a = m.function(0.25)
        with seeded_rng_for_tests(seed):
            b = exact_rounded_release(0.25, 2.0, noise)
        assert a == b


def test_tiny_scale_release_rounds_to_the_input():
    # with scale 1e-300 the exact real release is within 1e-290 of x, so it rounds to x:
    # the float grid of the release does not depend on x beyond rounding
    with seeded_rng_for_tests(6):
        assert all(laplace(1e-300)(0.1) == 0.1 for _ in range(20))
