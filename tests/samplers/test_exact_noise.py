"""opendp_duff.samplers.exact_noise: exact smooth-sensitivity releases rounded to the nearest float.

* Each construction (polar normal, Bailey's Student T, Johnk's polynomial tail, LLN, ULN,
  arsinh-normal, Laplace) is checked by Kolmogorov-Smirnov against an independent closed form
  (scipy.stats or the quadrature CDFs of opendp_duff.distributions).
* Exactness of the rounding: the random bytes a release consumed are recorded and replayed; the
  release must be the nearest float of c + sigma Z at *both* ends of the uniform's dyadic
  interval, recomputed here at 100+ digits -- including crafted bytes that put c + sigma Z within
  1e-19 of 0, which forces many refinement passes.
* The law on the float grid: cells of one ulp around 1.0 have the exact probabilities.
* Never NaN or inf; the exact trimmed mean.

Statistical tests run under ``rerun_once`` (seeded, one rerun); each states its false-failure rate.
"""
import math
import sys
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

from helpers import Recorder, replay_laplace, rerun_once
from opendp_duff import distributions as D
from opendp_duff.samplers import byte_source_for_tests, seeded_rng_for_tests
from opendp_duff.samplers.exact_noise import exact_mean, exact_rounded_release

MAX = sys.float_info.max

KS_CASES = [
    ("laplace", None, stats.laplace.cdf),
    ("gaussian", None, stats.norm.cdf),
    ("student_t", 3.0, stats.t(3.0).cdf),
    ("student_t", 1.0, stats.cauchy.cdf),
    ("student_t", 2.5, stats.t(2.5).cdf),
    ("polynomial_tail", 2.0, stats.cauchy.cdf),
    ("polynomial_tail", 1.3, D.PolynomialTail(1.3).cdf),
    ("polynomial_tail", 4.5, D.PolynomialTail(4.5).cdf),
    ("uln", math.sqrt(2), D.UniformLogNormal(math.sqrt(2)).cdf),
    ("arsinh_normal", 2 / math.sqrt(3), D.ArsinhNormal(2 / math.sqrt(3)).cdf),
    ("arsinh_normal", 0.3, D.ArsinhNormal(0.3).cdf),
]


@pytest.mark.slow
@pytest.mark.parametrize("noise,shape,cdf", KS_CASES)
@rerun_once(seed=6201)
def test_constructions_have_the_right_law(noise, shape, cdf):
    # KS at level 1e-3: false-failure rate 1e-3 per attempt (1e-6 with the rerun).
    z = np.array([exact_rounded_release(0.0, 1.0, noise, shape) for _ in range(1500)])
    assert stats.kstest(z, cdf).pvalue > 1e-3


@rerun_once(seed=6202)
def test_lln_has_the_right_law():
    # LLN's CDF is a quadrature (slow): 600 draws, KS at 1e-3 (false-failure rate 1e-3 per attempt).
    law = D.LaplaceLogNormal(0.5)
    z = np.array([exact_rounded_release(0.0, 1.0, "lln", 0.5) for _ in range(600)])
    assert stats.kstest(z, law.cdf).pvalue > 1e-3


@rerun_once(seed=6203)
def test_location_and_scale_are_applied():
    # c + sigma Z with sigma = 3/7 given as an exact ratio; KS at 1e-3 (false-failure rate 1e-3 per attempt).
    z = np.array([exact_rounded_release(-2.5, (3.0, 7.0), "student_t", 3.0) for _ in range(1500)])
    assert stats.kstest((z + 2.5) * 7 / 3, stats.t(3.0).cdf).pvalue > 1e-3


# ---- exact rounding, by replaying the consumed bytes ---------------------------------------------

def same(x):
    return [(x, math.copysign(1.0, x))] * 2


floats = st.floats(allow_nan=False, allow_infinity=False)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(center=floats, scale=st.floats(0.0, 1e300), seed=st.integers(0, 2 ** 32))
def test_release_is_the_nearest_float_of_the_exact_value(center, scale, seed):
    rec = Recorder(seed)
    with byte_source_for_tests(rec):
        got = exact_rounded_release(center, scale, "laplace")
    assert math.isfinite(got)
    if scale == 0:  # no randomness: the centre itself, signed zero included
        assert len(rec.log) == 0 and same(got) == same(center)
    else:
        assert replay_laplace(rec.log, center, scale) == same(got)


@pytest.mark.parametrize("target", [1.0, 7 / 3, 40.0])
def test_crafted_near_cancellation_forces_refinement_and_stays_exact(target):
    # Crafted bytes: U = u0 + (40 zero bytes, then random bits), and the centre is -(-ln u0) to 200
    # digits as an exact ratio, so c + Z = -(U - u0)/u0 + O(1e-200) ~ -2^-384: its nearest float
    # needs about 450 bits of U (several refinement passes), and must still be exact.
    m0 = int(math.exp(-target) * 2 ** 64)
    with localcontext() as ctx:
        ctx.prec = 200
        z0 = (Decimal(m0) / Decimal(2 ** 64)).ln()     # = -Z at the crafted uniform
    c = Fraction(z0)
    c = (c.numerator, c.denominator)
    for seed in range(3):
        rec = Recorder(seed, prefix=m0.to_bytes(8, "big") + b"\x00" + bytes(40))  # sign byte: +
        with byte_source_for_tests(rec):
            got = exact_rounded_release(c, 1.0, "laplace")
        assert len(rec.log) > 9 + 48          # several refinement passes
        assert replay_laplace(rec.log, c, 1.0) == same(got)
        assert got < 0 and abs(got) < 2.0 ** -380 * 2 ** 64 / m0   # (U - u0) / u0 < 2^-384 / u0


@pytest.mark.slow
@rerun_once(seed=6204)
def test_law_on_the_float_grid_around_one():
    # c = 1, sigma = 2^-52 = ulp(1): release 1 - 2^-53 k (below) or 1 + 2^-52 k (above).  The cells
    # {1 - 2^-53}, {1}, {1 + 2^-52} have exact probabilities P(Z in (-3/4, -1/4)), P(Z in [-1/4, 1/2]),
    # P(Z in (1/2, 3/2)); chi-square with 4 cells (rest pooled), level 1e-3: false-failure 1e-3 per attempt.
    n = 6000
    got = np.array([exact_rounded_release(1.0, 2.0 ** -52, "laplace") for _ in range(n)])
    cells = [1.0 - 2.0 ** -53, 1.0, 1.0 + 2.0 ** -52]
    assert np.all(np.isin(got, cells) | (got < cells[0]) | (got > cells[2]))
    cdf = stats.laplace.cdf
    p = np.array([cdf(-0.25) - cdf(-0.75), cdf(0.5) - cdf(-0.25), cdf(1.5) - cdf(0.5)])
    p = np.append(p, 1 - p.sum())
    counts = np.array([np.sum(got == c) for c in cells] + [np.sum(~np.isin(got, cells))])
    assert stats.chisquare(counts, n * p).pvalue > 1e-3


# ---- never NaN or inf ----------------------------------------------------------------------------

@pytest.mark.parametrize("noise,shape", [("laplace", None), ("student_t", 1.0), ("polynomial_tail", 1.05),
                                         ("lln", 3.0), ("uln", 5.0), ("arsinh_normal", 10.0), ("gaussian", None)])
def test_extremes_saturate_and_are_never_nan(noise, shape):
    with seeded_rng_for_tests(11):
        for center, scale in [(MAX, (MAX, 1e-300)), (-MAX, (MAX, 1e-300)), (0.0, 0.0), (5e-324, 5e-324),
                              (1.0, (1.0, MAX)), (-1e300, 1e300), (-0.0, 5e-324), (0.0, (5e-324, MAX))]:
            for _ in range(5):
                r = exact_rounded_release(center, scale, noise, shape)
                assert math.isfinite(r)
        # sigma = 0: the release is exactly the centre (also an exact ratio, rounded), signed zeros kept
        assert exact_rounded_release(0.1, 0.0, noise, shape) == 0.1
        assert math.copysign(1.0, exact_rounded_release(-0.0, (0.0, 3.0), noise, shape)) == -1.0
        assert exact_rounded_release((1, 3), 0.0, noise, shape) == 1 / 3


# ---- the exact mean ------------------------------------------------------------------------------

@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(floats, min_size=1, max_size=60), st.booleans())
def test_exact_mean_is_the_rational_mean(xs, sort):
    x = np.array(sorted(xs) if sort else xs, dtype=np.float64)
    num, den = exact_mean(x)
    assert Fraction(num, den) == sum(map(Fraction, xs)) / len(xs)


def test_exact_mean_where_the_float_mean_is_wrong():
    x = np.array([-1e16, 1.0, 1.0, 1e16])
    assert np.mean(x) != 0.5
    num, den = exact_mean(x)
    assert Fraction(num, den) == Fraction(1, 2)


# ---- no porosity: any float can be released, for any centre and scale ----------------------------

def crafted_laplace_bytes(v, center, scale, nbytes=200):
    """Bytes making the exact Laplace draw Z lie within 2^-(8 nbytes) (relative, in U) of (v - c)/sigma."""
    with localcontext() as ctx:
        ctx.prec = (8 * nbytes * 31) // 100 + 40      # digits for 8 nbytes bits, plus margin
        z = (Decimal(v) - Decimal(center)) / Decimal(scale)
        u = (-abs(z)).exp()                           # Z = sign * (-ln U)
        m = int(u * (Decimal(2) ** (8 * nbytes)))
    bits = m.to_bytes(nbytes, "big")
    return bits[:8] + (b"\x01" if z < 0 else b"\x00") + bits[8:]


@pytest.mark.parametrize("center,scale", [(2.0 ** -10, 1.0), (2.0 ** -10 + 0.01, 1.5), (-0.3, 0.25)])
@pytest.mark.parametrize("v", [2.0 ** -10 + 2.0 ** -60, -0.75 + 2.0 ** -53, 5e-324, -1.2345678901234567])
def test_every_float_is_a_possible_release(center, scale, v):
    # The float path f + fl(log(2u)) (u on the 2^-53 grid) never lands within 2^-53 of f, so for
    # f = 2^-10 it cannot release 2^-10 + 2^-60; that is porosity (the reachable set depends on f).
    # Here every float's cell has positive probability: crafted bytes put the exact release in the
    # cell of v -- for the centre/scale pairs of neighbouring datasets alike -- and the release is v.
    rec = Recorder(0, prefix=crafted_laplace_bytes(v, center, scale))
    with byte_source_for_tests(rec):
        assert exact_rounded_release(center, scale, "laplace") == v
