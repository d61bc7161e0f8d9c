"""opendp_duff.laws over the whole float range: the law builders against exact references
(Fraction widths and gaps, Decimal exponentials) where float arithmetic overflows or underflows:
noisy max with score gaps beyond the largest float, Duff laws with one-subnormal-wide pieces and
bounds wider than the largest float, location-scale densities far from their location, and the
smooth-sensitivity laws whose scale S/s is not a float.
"""
import math
import sys
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest

import opendp_duff as dp
from opendp_duff.distributions import Laplace, StudentT
from opendp_duff.laws import (DiscreteLaw, LocationScaleLaw, PiecewiseConstantLaw, location_scale_law,
                              log_widths, relative_log_weights, step_function_law)

MAX = sys.float_info.max
TINY = 5e-324  # the smallest subnormal
FLOATS = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()


def dec(q):
    return Decimal(q.numerator) / Decimal(q.denominator)


def exact_normalised(log_weights, widths=None):
    """exp(w_i) * width_i / sum_j (...) in 60-digit decimals: w_i and width_i exact Fractions."""
    with localcontext() as ctx:
        ctx.prec = 60
        widths = widths or [Fraction(1)] * len(log_weights)
        terms = [dec(wd) * dec(w).exp() for w, wd in zip(log_weights, widths, strict=True)]
        total = sum(terms)
        return [float(t / total) for t in terms]


def exact_softmax(scores, scale):
    top = max(Fraction(s) for s in scores)
    return exact_normalised([(Fraction(s) - top) / Fraction(scale) for s in scores])


def noisy_max(scale):
    return dp.m.make_report_noisy_max_gumbel(dp.vector_domain(dp.atom_domain(T=float)),
                                             dp.inf_difference_distance(), scale=scale)


# ------------------------------------------------------------------ noisy max

@pytest.mark.parametrize("scores,scale", [
    ([1e308, -1e308], 1e308),                    # softmax of [1, -1]: [0.881, 0.119]
    ([MAX, -MAX, 0.0], MAX),
    ([-MAX, 1e300, MAX], 1e307),
    ([TINY, 0.0, -TINY], TINY),                  # subnormal gaps at a subnormal scale
    ([1.0, 2.0, -3.5], 0.7),
])
def test_noisy_max_law_is_the_exact_softmax(scores, scale):
    law = noisy_max(scale).output_law(scores)
    assert np.allclose(np.exp(law.log_pmf), exact_softmax(scores, scale), rtol=1e-13, atol=1e-300)


def test_noisy_max_law_at_huge_scale_matches_softmax_of_plus_minus_one():
    law = noisy_max(1e308).output_law([1e308, -1e308])
    assert law.prob(0) == pytest.approx(1 / (1 + math.exp(-2)), rel=1e-14)   # 0.8808
    assert law.prob(1) == pytest.approx(1 / (1 + math.exp(2)), rel=1e-14)    # 0.1192


def test_relative_log_weights_match_exact_quotients():
    rng = np.random.default_rng(11)
    pool = [MAX, -MAX, 1e308, -1e308, 1e300, -7e307, 0.0, TINY, -TINY, 1.0, -2.5, 3e-310]
    for _ in range(300):
        values = [float(v) for v in rng.choice(pool, 4)]
        top = max(values)
        scale = float(rng.choice([TINY, 1e-300, 0.5, 1.0, 1e300, 1e308, MAX]))
        got = relative_log_weights(values, top, scale)
        for v, g in zip(values, got, strict=True):
            exact = (Fraction(v) - Fraction(top)) / Fraction(scale)
            if exact < -MAX:
                assert g == -math.inf or g == pytest.approx(-MAX, rel=1e-15)
            else:
                assert g == pytest.approx(float(exact), rel=4e-16, abs=0.0)


# ------------------------------------------------------------------ widths and Duff laws

def test_log_widths_match_exact_widths():
    ends = [-MAX, -1e308, -1.0, -TINY, 0.0, TINY, 2 * TINY, 3 * TINY, 1e-310, 1.0, 1e308, MAX]
    for a in ends:
        for b in ends:
            got = float(log_widths([a], [b])[0])
            width = Fraction(b) - Fraction(a)
            if width <= 0:
                assert got == -math.inf
            else:
                with localcontext() as ctx:
                    ctx.prec = 40
                    assert got == pytest.approx(float(dec(width).ln()), rel=1e-15, abs=1e-15)


def duff(stat, bounds, scale, **kw):
    then = {"median": dp.m.then_duff_median, "quantile": dp.m.then_duff_quantile,
            "mean": dp.m.then_duff_mean}[stat]
    return FLOATS >> dp.t.then_clamp(bounds=bounds) >> dp.t.then_sort() >> then(scale=scale, **kw)


def exact_piece_masses(u, scale):
    """Masses of the positive-width pieces of the step function u: exact widths, exact levels."""
    keep = [i for i in range(len(u)) if u.right[i] > u.left[i]]
    widths = [Fraction(float(u.right[i])) - Fraction(float(u.left[i])) for i in keep]
    top = max(int(u.levels[i]) for i in keep)
    return keep, exact_normalised([Fraction(int(u.levels[i]) - top) / Fraction(scale) for i in keep], widths)


DUFF_CASES = [
    ((TINY, 3 * TINY), [TINY, 2 * TINY, 3 * TINY]),   # two gaps one subnormal wide
    ((0.0, 2 * TINY), [TINY]),
    ((-MAX, MAX), []),                                 # one piece of width 2 MAX
    ((-MAX, MAX), [0.0, 1.0, 2.0]),
    ((-MAX, MAX), [-MAX, 1e308, MAX]),
    ((-1e308, 1e308), [-1e308, 0.0, 5e307]),
]


@pytest.mark.parametrize("bounds,x", DUFF_CASES)
@pytest.mark.parametrize("stat,kw", [("median", {}), ("quantile", {"alpha": 0.25}), ("mean", {})])
def test_duff_laws_keep_every_positive_width_piece(bounds, x, stat, kw):
    scale = 0.5
    law = duff(stat, bounds, scale, **kw).output_law(x)
    u = dp.duff_utility(x, stat, bounds=bounds, **kw)
    keep, masses = exact_piece_masses(u, scale)
    assert isinstance(law, PiecewiseConstantLaw) and law.left.size == len(keep)
    assert np.array_equal(law.left, u.left[keep]) and np.array_equal(law.right, u.right[keep])
    assert np.allclose(np.exp(law.log_masses()), masses, rtol=1e-13, atol=0.0)


def test_wide_piece_cdf_and_density():
    law = duff("median", (-MAX, MAX), 1.0).output_law([])   # uniform on [-MAX, MAX]
    points = [-MAX, -1e308, 0.0, 1e308, MAX]
    exact = [float((Fraction(z) + Fraction(MAX)) / (2 * Fraction(MAX))) for z in points]
    assert np.allclose(law.cdf(points), exact, rtol=1e-15, atol=0.0)
    assert float(law.logpdf(0.0)) == pytest.approx(-math.log(2) - math.log(MAX), rel=1e-15)


def test_step_function_law_validates_its_pieces():
    with pytest.raises(ValueError, match="finite"):
        step_function_law([0.0], [math.inf], [0], 1.0)
    with pytest.raises(ValueError, match="scale"):
        step_function_law([0.0], [1.0], [0], -1.0)
    point = step_function_law([TINY, 0.0], [TINY, 0.0], [-3, 0], 1.0)   # no positive width
    assert isinstance(point, DiscreteLaw) and point.support == (0.0,)


# ------------------------------------------------------------------ location-scale laws

def test_location_scale_logpdf_far_from_the_location():
    law = LocationScaleLaw(MAX, 1e308, Laplace(1.0))
    for z in (-MAX, -1e308, 0.0, MAX):
        y = (Fraction(z) - Fraction(MAX)) / Fraction(1e308)
        exact = -abs(float(y)) - math.log(2.0) - math.log(1e308)
        assert float(law.logpdf(z)) == pytest.approx(exact, rel=1e-15)


def test_location_scale_law_with_exact_location_and_scale():
    scale = Fraction(TINY) / 3 / 2 ** 26                 # below the smallest subnormal
    loc = Fraction(TINY) / 3                             # between two floats
    law = location_scale_law(loc, scale, Laplace(1.0))
    assert isinstance(law, LocationScaleLaw) and law.scale == scale and law.loc == loc
    log_scale = math.log(TINY) - math.log(3.0) - 26 * math.log(2.0)
    for z, y in ((0.0, -2 ** 26), (TINY, 2 ** 27)):     # (z - loc) / scale, exactly
        assert float(law.logpdf(z)) == pytest.approx(-abs(y) - math.log(2.0) - log_scale, rel=1e-15)
    huge = location_scale_law(0.0, Fraction(10) ** 400, Laplace(1.0))   # beyond the largest float
    assert isinstance(huge, LocationScaleLaw)
    assert float(huge.logpdf(0.0)) == pytest.approx(-math.log(2.0) - 400 * math.log(10.0), rel=1e-15)
    point = location_scale_law(Fraction(1, 3), Fraction(0), Laplace(1.0))   # the release: 1/3 rounded
    assert isinstance(point, DiscreteLaw) and point.support == (1 / 3,)


# ------------------------------------------------------------------ smooth-sensitivity laws

def smooth_median(bounds, s, t):
    space = dp.vector_domain(dp.atom_domain(T=float, bounds=bounds), size=9), dp.change_one_distance()
    return space >> dp.t.then_sort() >> dp.m.then_smooth_median(t=t, s=s, noise="student_t", d=3)


@pytest.mark.parametrize("bounds,s,t,x", [
    ((0.0, 1e10), 1e-300, 0.2, [i * 1e9 for i in range(9)]),   # S/s overflows a float
    ((0.0, 1.0), 1e300, 20.0, [0.5] * 9),                       # S/s underflows to 0
])
def test_smooth_law_scale_is_the_exact_quotient(bounds, s, t, x):
    law = smooth_median(bounds, s, t).output_law(x)
    S = dp.smooth_sensitivity_median(sorted(x), t, bounds)
    assert isinstance(law, LocationScaleLaw) and isinstance(law.noise, StudentT)
    assert law.scale == Fraction(S) / Fraction(s) and law.loc == sorted(x)[4]
    assert not 0.0 < float(S) / s < math.inf                    # the float quotient was wrong


def test_smooth_trimmed_mean_law_is_centred_on_the_exact_mean():
    x = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    space = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=9), dp.change_one_distance()
    m = space >> dp.t.then_sort() >> dp.m.then_smooth_trimmed_mean(m=2, t=0.2, s=0.3, noise="student_t", d=3)
    law = m.output_law(x)
    exact_mean = sum(Fraction(v) for v in x[2:7]) / 5
    assert law.loc == exact_mean and Fraction(float(exact_mean)) != exact_mean
