"""opendp_duff.audit.exact at the ends of the float range: location-scale laws far from 0, at
scales near the largest float or subnormal, and far apart (the audit standardises them exactly);
Duff laws on bounds wider than the largest float or one subnormal wide, and noisy max with score
gaps beyond the largest float, against references computed with Fraction and Decimal arithmetic
or closed forms.
"""
import math
import sys
from decimal import Decimal, localcontext
from fractions import Fraction

import attrs
import numpy as np
import pytest
from scipy import integrate, stats

import opendp_duff as dp
from opendp_duff.audit import LocationScaleLaw, exact_privacy_loss
from opendp_duff.distributions import Gaussian, StudentT

MAX = sys.float_info.max
TINY = 5e-324
ATOM = dp.atom_domain(T=float), dp.absolute_distance(T=float)
FLOATS = dp.vector_domain(dp.atom_domain(T=float)), dp.symmetric_distance()


def dec(q):
    return Decimal(q.numerator) / Decimal(q.denominator)


def zcdp_with_law(law):
    """A zCDP measurement whose output law is ``law(x)`` (for Renyi divergences of custom laws)."""
    return attrs.evolve(dp.m.make_gaussian(*ATOM, scale=1.0), output_law=law)


# ------------------------------------------------------------------ location-scale laws

def test_laplace_at_the_largest_scale():
    lap = dp.m.make_laplace(*ATOM, scale=1e308)
    audit = exact_privacy_loss(lap, 1e308, -1e308)          # shift / scale = 2 exactly
    assert audit.value == pytest.approx(2.0, rel=1e-12)


@pytest.mark.parametrize("x,x_prime,scale", [
    (1e20, 1e20 + 16384.0, 16384.0),     # a large common location: shift 1 scale
    (0.0, 1e-320, 1e-320),               # a subnormal scale
    (-1e308, 1e308, 1e308),              # locations more than the largest float apart
])
def test_gaussian_renyi_divergences_do_not_depend_on_magnitudes(x, x_prime, scale):
    shift = float((Fraction(x_prime) - Fraction(x)) / Fraction(scale))
    g = dp.m.make_gaussian(*ATOM, scale=scale)
    audit = exact_privacy_loss(g, x, x_prime)
    for alpha, d in audit.renyi.items():                    # D_alpha = alpha shift^2 / 2
        assert d == pytest.approx(alpha * shift ** 2 / 2, rel=1e-7)
    if shift == 1.0:
        assert audit.within(g.map(abs(x_prime - x)))


@pytest.mark.parametrize("x,x_prime,scale", [(0.0, 30.0, 1.0), (-1e308, 1e308, MAX / 2 ** 9)])
def test_gaussian_renyi_at_large_alpha_times_shift(x, x_prime, scale):
    """For alpha > 1 the integrand of two Gaussians peaks at (1 - alpha) shift, far beyond where
    both densities are below e^-1000: the nodes must reach it (shifts of 30 and 570 scales)."""
    shift = float((Fraction(x_prime) - Fraction(x)) / Fraction(scale))
    audit = exact_privacy_loss(dp.m.make_gaussian(*ATOM, scale=scale), x, x_prime)
    for alpha, d in audit.renyi.items():
        assert d == pytest.approx(alpha * shift ** 2 / 2, rel=1e-9)


def test_gaussian_vector_hockey_stick_with_huge_coordinates_and_any_sigma():
    """Isotropic Gaussian vectors: delta(eps) of N(0, s^2) against N(mu, s^2) ([BW18]
    Theorem 8), with coordinates near the largest float and noise of sigma 2."""
    scale, sigma = 1e308, 2.0
    x, x_prime = [1e308, -1e308, 5.0], [-1e308, 1e308, 5.0]
    law = lambda v: LocationScaleLaw(tuple(v), scale, Gaussian(sigma))  # noqa: E731
    m = attrs.evolve(dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=float)), dp.l2_distance(T=float),
                                        scale=1.0), output_law=law)
    audit = exact_privacy_loss(m, x, x_prime, alphas=[2.0])
    mu = math.hypot(2.0, 2.0) / sigma                       # shifts (2, 2, 0) scales, noise sd 2
    assert audit.renyi[2.0] == pytest.approx(2 * mu ** 2 / 2, rel=1e-7)
    for eps in (0.0, 0.5, 1.0):
        exact = stats.norm.cdf(mu / 2 - eps / mu) - math.exp(eps) * stats.norm.cdf(-mu / 2 - eps / mu)
        got, err = audit.delta(eps)
        assert abs(got - exact) <= max(err, 1e-9)


def test_student_t_audit_is_translation_invariant():
    law = lambda v: LocationScaleLaw(float(v), 256.0, StudentT(3.0))  # noqa: E731
    m = zcdp_with_law(law)
    near = exact_privacy_loss(m, 0.0, 256.0, alphas=[1.0, 2.0, 8.0])
    far = exact_privacy_loss(m, 2.0 ** 60, 2.0 ** 60 + 256.0, alphas=[1.0, 2.0, 8.0])  # 256 = one ulp
    for alpha in (1.0, 2.0, 8.0):
        assert far.renyi[alpha] == pytest.approx(near.renyi[alpha], rel=1e-12)


def test_student_t_renyi_at_a_shift_beyond_float_resolution():
    """D_2 of t_3 against t_3 shifted by 2^60 scales (the nodes near the far location are
    offsets that do not survive being added to 2^60): a reference by scipy quad in the
    coordinate u = z - location, where nothing is lost."""
    shift = 2.0 ** 60
    law = lambda v: LocationScaleLaw(float(v), 1.0, StudentT(3.0))  # noqa: E731
    audit = exact_privacy_loss(zcdp_with_law(law), 0.0, shift, alphas=[2.0])
    t3 = stats.t(3)
    c = t3.logpdf(shift)

    def g(u):   # p(u)^2 / p(u + shift), scaled by p(shift); both directions give this integral
        return math.exp(2 * t3.logpdf(u) - t3.logpdf(u + shift) + c)
    value, _ = integrate.quad(g, -np.inf, np.inf, epsabs=0.0, epsrel=1e-12, limit=200)
    assert audit.renyi[2.0] == pytest.approx(math.log(value) - c, rel=1e-8)


# ------------------------------------------------------------------ Duff laws

def duff(stat, bounds, scale):
    then = {"median": dp.m.then_duff_median, "mean": dp.m.then_duff_mean}[stat]
    return FLOATS >> dp.t.then_clamp(bounds=bounds) >> dp.t.then_sort() >> then(scale=scale)


def exact_log_density(u, scale):
    """Pieces (left, right) of positive width and their log densities, in 60-digit decimals."""
    with localcontext() as ctx:
        ctx.prec = 60
        pieces = [(Fraction(float(a)), Fraction(float(b)), int(k))
                  for a, b, k in zip(u.left, u.right, u.levels, strict=True) if b > a]
        top = max(k for _, _, k in pieces)
        z = sum(dec(b - a) * (Decimal(k - top) / dec(Fraction(scale))).exp() for a, b, k in pieces)
        return [(a, b, Decimal(k - top) / dec(Fraction(scale)) - z.ln()) for a, b, k in pieces]


def exact_divergences(x, xp, stat, bounds, scale, eps):
    """max |log p - log q| and max over directions of delta(eps), on the merged pieces."""
    p = exact_log_density(dp.duff_utility(x, stat, bounds=bounds), scale)
    q = exact_log_density(dp.duff_utility(xp, stat, bounds=bounds), scale)
    edges = sorted({e for a, b, _ in p + q for e in (a, b)})

    def at(pieces, z):
        return next(d for a, b, d in pieces if a <= z < b)
    with localcontext() as ctx:
        ctx.prec = 60
        ratio, deltas = Decimal(0), [Decimal(0), Decimal(0)]
        for a, b in zip(edges[:-1], edges[1:], strict=True):
            lp, lq = at(p, a), at(q, a)
            ratio = max(ratio, abs(lp - lq))
            w, e = dec(b - a), Decimal(eps).exp()
            deltas[0] += w * max(Decimal(0), lp.exp() - e * lq.exp())
            deltas[1] += w * max(Decimal(0), lq.exp() - e * lp.exp())
        return float(ratio), float(max(deltas))


@pytest.mark.parametrize("stat,bounds,x,xp", [
    ("median", (-MAX, MAX), [], [0.0]),
    ("median", (-MAX, MAX), [0.0, 1.0, 2.0], [0.0, 1.0, 2.0, 1e308]),
    ("mean", (-MAX, MAX), [0.0, 1.0], [0.0, 1.0, -MAX]),
    ("median", (TINY, 3 * TINY), [TINY, 2 * TINY], [TINY, 2 * TINY, 3 * TINY]),
    ("mean", (0.0, 3 * TINY), [TINY], [TINY, 3 * TINY]),
])
def test_duff_audit_on_extreme_bounds_matches_exact_sums(stat, bounds, x, xp):
    scale, eps = 0.5, 0.3
    m = duff(stat, bounds, scale)
    audit = exact_privacy_loss(m, x, xp)
    ratio, delta = exact_divergences(x, xp, stat, bounds, scale, eps)
    assert audit.value == pytest.approx(ratio, rel=1e-12) and audit.within(m.map(1))
    assert audit.delta(eps)[0] == pytest.approx(delta, rel=1e-12, abs=1e-15)


# ------------------------------------------------------------------ noisy max

def test_noisy_max_audit_with_score_gaps_beyond_the_largest_float():
    m = dp.m.make_report_noisy_max_gumbel(dp.vector_domain(dp.atom_domain(T=float)),
                                          dp.inf_difference_distance(), scale=1e308)
    x, xp = [1e308, -1e308, 0.0], [1e308, -5e307, 0.0]       # inf-difference distance 5e307

    def log_softmax(s):
        top = max(Fraction(v) for v in s)
        w = [(Fraction(v) - top) / Fraction(1e308) for v in s]
        with localcontext() as ctx:
            ctx.prec = 60
            z = sum(dec(t).exp() for t in w).ln()
            return [dec(t) - z for t in w]
    ratio = max(abs(a - b) for a, b in zip(log_softmax(x), log_softmax(xp), strict=True))
    audit = exact_privacy_loss(m, x, xp)
    assert audit.value == pytest.approx(float(ratio), rel=1e-13) and audit.within(m.map(5e307))
