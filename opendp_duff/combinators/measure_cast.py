"""Conversions between privacy measures."""
import math
from fractions import Fraction

from .. import _validate as v
from .. import arithmetic as ar
from ..core import Measurement
from ..errors import MakeError
from ..measures import (ApproximateDivergence, MaxDivergence, PrivacyProfile,
                        SmoothedMaxDivergence, ZeroConcentratedDivergence)


def _need(meas, measure_cls, name):
    v.instance("measurement", meas, Measurement, "a Measurement")
    if not isinstance(meas.output_measure, measure_cls):
        raise MakeError(f"measurement's output_measure ({meas.output_measure!r}) must be {name}")


def make_pureDP_to_zCDP(measurement):
    """An epsilon-DP measurement is (epsilon^2 / 2)-zCDP (Bun & Steinke 2016, Proposition 1.4).

    ``map(d_in) = eps^2 / 2`` with eps = the inner map, rounded up.

    >>> import opendp_duff as dp
    >>> lap = dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=2.0)
    >>> dp.c.make_pureDP_to_zCDP(lap).map(1.0)
    0.125
    """
    _need(measurement, MaxDivergence, "max_divergence()")
    inner = measurement.privacy_map

    def privacy_map(d_in):
        eps = inner(d_in)
        return ar.INF if eps == ar.INF else ar.up(ar.Q(eps) ** 2 / 2)

    return Measurement(measurement.input_domain, measurement.input_metric,
                       ZeroConcentratedDivergence(), measurement.function, privacy_map)


def zcdp_epsilon_lemma9(rho, delta):
    """Bun & Steinke (2016) Proposition 1.3 / file 004 Lemma 9: eps = rho + 2 sqrt(rho log(1/delta)), rounded up."""
    if rho == 0:
        return 0.0
    log_inv = -ar.log_down(delta)
    return ar.add_up(rho, ar.mul_up(2, ar.sqrt_up(ar.mul_up(rho, log_inv))))


def zcdp_epsilon_cks(rho, delta, alpha):
    """Canonne, Kamath & Steinke (2020), Proposition 12 (via Asoodeh et al.): for any alpha > 1,
    rho-zCDP implies (eps, delta)-DP with
    eps = alpha rho + (log(1/delta) + alpha log(1 - 1/alpha) - log(alpha - 1)) / (alpha - 1).
    Every term is rounded up; alpha - 1 is exact in rationals."""
    a = Fraction(alpha)
    am1 = a - 1
    log_inv_delta = Fraction(-ar.log_down(delta))
    log_1m = Fraction(ar.log_up(ar.up(1 - 1 / a)))          # <= 0, bounded above
    log_am1 = Fraction(ar.log_down(ar.down(am1)))
    # alpha log(1 - 1/alpha) <= -1 exactly (log(1 - u) <= -u); for a huge alpha the rounded-up
    # log_1m is >= 0 and a * log_1m would swamp the bound, so take the better of the two
    numer = log_inv_delta + min(a * log_1m, Fraction(-1)) - log_am1
    return max(0.0, ar.up(a * Fraction(rho) + numer / am1))


def _best_alpha(rho, delta):
    """A good alpha for the CKS bound, found in floats (any alpha > 1 is valid).

    The search runs over log(alpha - 1): for a tiny rho the best alpha is huge (up to
    ~1e160), and a golden-section search on alpha itself cannot resolve the region near
    1 + 1e-9 .. 1e5 inside such a range in 200 steps (the bound then came out far from its
    minimum, and the map of make_zCDP_to_approxDP was not monotone in d_in)."""
    log_inv = -math.log(delta)
    # capped: for a subnormal rho, log_inv / rho overflows
    top = min(max(2.0, 1.0 + 2 * math.sqrt(log_inv / rho) + 2) * 4, 1e300)
    lo, hi = math.log(1e-9), math.log(top - 1)

    def f(b):
        a = 1.0 + math.exp(b)
        return a * rho + (log_inv + a * math.log1p(-1 / a) - math.log(a - 1)) / (a - 1)

    for _ in range(200):  # golden-section search on a unimodal curve
        m1, m2 = lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618
        if f(m1) < f(m2):
            hi = m2
        else:
            lo = m1
    return 1.0 + math.exp((lo + hi) / 2)


def zcdp_to_epsilon(rho, delta):
    """The smaller of Lemma 9 and the CKS conversion, both rounded up."""
    if rho == 0:
        return 0.0
    if rho == ar.INF:
        return ar.INF
    best = zcdp_epsilon_lemma9(rho, delta)
    try:
        best = min(best, zcdp_epsilon_cks(rho, delta, _best_alpha(rho, delta)))
    except (ValueError, OverflowError, ZeroDivisionError):
        pass  # the CKS bound is an optional tightening; Lemma 9 stands alone
    return best


def make_zCDP_to_approxDP(measurement):
    """A rho-zCDP measurement as a privacy profile: (eps(delta), delta)-DP for every delta in (0, 1).

    eps(delta) is the smaller of Bun & Steinke's Lemma 9 (file 004),
    rho + 2 sqrt(rho log(1/delta)), and the tighter conversion of Canonne,
    Kamath & Steinke (2020, Proposition 12), each rounded up.  Fix delta with
    :func:`make_fix_delta`.

    >>> import opendp_duff as dp
    >>> g = dp.m.make_gaussian(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=2.0)
    >>> profile = dp.c.make_zCDP_to_approxDP(g).map(1.0)
    >>> round(profile(1e-6), 3)
    2.419
    """
    _need(measurement, ZeroConcentratedDivergence, "zero_concentrated_divergence()")
    inner = measurement.privacy_map

    def privacy_map(d_in):
        rho = inner(d_in)
        return PrivacyProfile(lambda delta: zcdp_to_epsilon(rho, delta), f"zCDP rho={rho!r}")

    return Measurement(measurement.input_domain, measurement.input_metric,
                       SmoothedMaxDivergence(), measurement.function, privacy_map)


def make_fix_delta(measurement, delta):
    """Fix delta on a privacy-profile measurement: ``map(d_in) = (profile(delta), delta)``.

    >>> import opendp_duff as dp
    >>> g = dp.m.make_gaussian(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=2.0)
    >>> m = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(g), delta=1e-6)
    >>> m.map(1.0)[1]
    1e-06
    """
    _need(measurement, SmoothedMaxDivergence, "smoothed_max_divergence()")
    delta = v.probability("delta", delta)
    inner = measurement.privacy_map
    return Measurement(measurement.input_domain, measurement.input_metric, ApproximateDivergence(),
                       measurement.function, lambda d_in: (inner(d_in)(delta), delta))
