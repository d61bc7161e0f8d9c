"""The quantile level alpha is read by the one parser, opendp_duff._validate.alpha, wherever
it enters the Duff quantile: a float or numpy float means the decimal it prints as, so
``np.float32(0.1)``, ``0.1`` and ``Fraction(1, 10)`` give the same rank (the float32 binary
value 0.10000000149011612 would move it); Python floats and Fractions keep their reading.

The rank is observed through releases at scale 0, which are uniform on the one gap of level
-1: deterministic, so these tests cannot fail by chance.
"""
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.duff_utility import quantile_rational
from opendp_duff.measurements.duff import duff_quantile_sample
from opendp_duff.samplers import seeded_rng_for_tests

TENTHS = [0.1, np.float32(0.1), np.float64(0.1), np.float16(0.1), Fraction(1, 10)]
DATA = [float(i) for i in range(1, 10)]   # nine records: 0.1 (n + 1) = 1 exactly


def space(bounds=(0.0, 10.0)):
    return dp.vector_domain(dp.atom_domain(T=float, bounds=bounds), sorted=True), dp.symmetric_distance()


@pytest.mark.parametrize("alpha", TENTHS, ids=repr)
def test_every_reading_of_one_tenth_releases_in_the_same_gap(alpha):
    # rank ceil(alpha (n + 1)) = 1: the gap [0, 1]; the float32 binary value would give [1, 2]
    meas = dp.m.make_duff_quantile(*space(), alpha=alpha, scale=0.0)
    with seeded_rng_for_tests(5):
        outs = [meas(DATA) for _ in range(50)] + list(duff_quantile_sample(DATA, (0.0, 10.0), alpha, 0.0, size=50))
    assert all(0.0 <= o <= 1.0 for o in outs), alpha


@pytest.mark.parametrize("alpha", TENTHS, ids=repr)
def test_partial_form_and_utility_read_alpha_alike(alpha):
    chained = space() >> dp.m.then_duff_quantile(alpha=alpha, scale=0.0)
    with seeded_rng_for_tests(6):
        assert 0.0 <= chained(DATA) <= 1.0
    u = dp.duff_utility(DATA, "quantile", bounds=(0.0, 10.0), alpha=alpha)
    ref = dp.duff_utility(DATA, "quantile", bounds=(0.0, 10.0), alpha=Fraction(1, 10))
    pts = np.linspace(0.0, 10.0, 41)
    assert np.array_equal(u(pts), ref(pts))


def test_python_floats_and_fractions_keep_their_reading():
    # a float means Fraction(repr(float)), a Fraction itself; P/Q is the least fraction >= it
    # with Q <= 2n + 2 (checked here by brute force over the denominators)
    rng = np.random.default_rng(31)
    alphas = [float(a) for a in rng.uniform(0.0005, 0.9995, size=60)] + [Fraction(2, 7), Fraction(1, 3)]
    for alpha in alphas:
        exact = alpha if isinstance(alpha, Fraction) else Fraction(repr(alpha))
        for n in (0, 1, 4, 17):
            want = min(Fraction(-(-exact.numerator * q // exact.denominator), q) for q in range(1, 2 * n + 3))
            assert Fraction(*quantile_rational(alpha, n)) == want, (alpha, n)


@pytest.mark.parametrize("bad", [0.0, 1.0, np.float32(1.0), -0.5, float("nan"), float("inf"), Fraction(3, 2)])
def test_levels_outside_the_open_unit_interval_are_refused_everywhere(bad):
    with pytest.raises(dp.MakeError, match="alpha"):
        dp.m.make_duff_quantile(*space(), alpha=bad, scale=1.0)
    with pytest.raises(dp.MakeError, match="alpha"):
        duff_quantile_sample(DATA, (0.0, 10.0), bad, 1.0)
    with pytest.raises(dp.MakeError, match="alpha"):
        dp.duff_utility(DATA, "quantile", bounds=(0.0, 10.0), alpha=bad)


@pytest.mark.parametrize("bad", [True, np.bool_(True), "0.1", None])
def test_non_numbers_are_type_errors_everywhere(bad):
    with pytest.raises(dp.MakeTypeError, match="alpha"):
        dp.m.make_duff_quantile(*space(), alpha=bad, scale=1.0)
    with pytest.raises(dp.MakeTypeError, match="alpha"):
        duff_quantile_sample(DATA, (0.0, 10.0), bad, 1.0)
