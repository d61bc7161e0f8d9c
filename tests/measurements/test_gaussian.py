"""make_gaussian: the exact map and its edge cases, bad input, and releases (never NaN, the exact
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
from opendp_duff.samplers.exact_noise import GAUSSIAN

ATOM = dp.atom_domain(T=float), dp.absolute_distance(T=float)
# KS tests at level 1e-3, rerun once: false-failure rate about 1e-6 per test.
ALPHA = 1e-3


def gaussian(scale):
    return dp.m.make_gaussian(*ATOM, scale=scale)


@pytest.mark.parametrize("d_in,scale", [(1.0, 3.0), (0.1, 0.7), (2.0, 1e-3), (0.3, 1e10)])
def test_gaussian_map_is_exact_upper(d_in, scale):
    got = gaussian(scale).map(d_in)
    exact = (Fraction(d_in) / Fraction(scale)) ** 2 / 2
    assert Fraction(got) >= exact
    assert Fraction(got) <= exact * (1 + Fraction(1, 2 ** 50))


@pytest.mark.parametrize("make", [gaussian])
def test_edge_cases(make):
    assert make(1.0).map(0.0) == 0.0
    assert make(0.0).map(1.0) == math.inf
    assert make(0.0).map(0.0) == 0.0
    assert make(math.inf).map(1.0) == 0.0
    assert make(2.0).map(math.inf) == math.inf


@pytest.mark.parametrize("make", [dp.m.make_gaussian])
@pytest.mark.parametrize("scale", [-1.0, math.nan, -math.inf, True, "1", None])
def test_bad_scale(make, scale):
    with pytest.raises((TypeError, ValueError), match="scale"):
        make(*ATOM, scale=scale)


def test_wrong_metric_or_domain():
    with pytest.raises(TypeError, match="input_domain"):
        dp.m.make_gaussian("float", dp.absolute_distance(), scale=1.0)


def test_releases_never_nan_on_members():
    with seeded_rng_for_tests(1):
        for scale in [0.0, 1.0, 1e300, math.inf]:
            for x in [0.0, -1e308, 1e308, math.inf, -math.inf]:
                y = gaussian(scale)(x)
                assert not math.isnan(y)


def test_vector_release():
    dom = dp.vector_domain(dp.atom_domain(T=float), size=3)
    assert dp.m.make_gaussian(dom, dp.l2_distance(), scale=2.0).map(2.0) == 0.5


def test_int_input_from_count():
    space = dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance()
    meas = space >> dp.t.then_count() >> dp.m.then_gaussian(scale=1.0)
    assert meas.map(1) == 0.5
    with seeded_rng_for_tests(3):
        assert isinstance(meas([1, 2, 3]), float)


def test_unbounded_or_huge_integer_domains_are_refused():
    # beyond 2^53 the conversion to float would stretch distances
    with pytest.raises(ValueError, match="2\\^53"):
        dp.m.make_gaussian(dp.atom_domain(T=int, bounds=(0, 2 ** 60)), dp.absolute_distance(T=int), scale=1.0)


@pytest.mark.parametrize("make,noise", [(gaussian, GAUSSIAN)])
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


@pytest.mark.slow
@rerun_once(seed=15)
def test_gaussian_mechanism_release_ks():
    m = dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=float)), dp.l2_distance(), scale=0.5)
    y = m(np.full(20_000, -2.0))
    assert stats.kstest(y, stats.norm(loc=-2.0, scale=0.5).cdf).pvalue > ALPHA
