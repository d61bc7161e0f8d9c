"""Conversions between privacy measures: pure DP to zCDP or to (eps, 0), zCDP to a privacy
profile, a privacy profile to (eps, delta) at a fixed delta, and delta-approximate zCDP to
(eps, delta)."""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable

from .. import _validate as v
from .. import estimates as est
from .. import arithmetic as ar
from ..core import Measurement, derived
from ..errors import MakeError, MakeTypeError
from ..measures import (ApproximateDivergence, ApproximateZeroConcentratedDivergence, MaxDivergence,
                        PrivacyProfile, SmoothedMaxDivergence, ZeroConcentratedDivergence)

__all__ = ["make_pureDP_to_zCDP", "make_pureDP_to_approxDP", "make_zCDP_to_approxDP", "make_fix_delta",
           "make_approximate_zCDP_to_approxDP", "restate_zCDP_as_approximate"]


def _need(meas: object, measure_cls: type, name: str) -> Measurement:
    """``meas`` if it is a Measurement with an output measure of class ``measure_cls``."""
    if not isinstance(meas, Measurement):
        raise MakeTypeError(f"measurement ({meas!r}) must be a Measurement")
    if not isinstance(meas.output_measure, measure_cls):
        raise MakeError(f"measurement's output_measure ({meas.output_measure!r}) must be {name}")
    return meas


# [proof:cast]
def _cast(measurement: Measurement, measure: Any, privacy_map: Callable[[Any], Any]) -> Measurement:
    """The same function (and interactivity) under another measure and map; certified iff
    ``measurement`` is."""
    return derived(Measurement(measurement.input_domain, measurement.input_metric, measure,
                                measurement._function, privacy_map, interactive=measurement.interactive),
                    measurement)
# [end:cast]


# [proof:restate_zCDP_as_approximate]
def restate_zCDP_as_approximate(measurement: Measurement) -> Measurement:
    """A rho-zCDP measurement restated as delta-approximate rho-zCDP with delta = 0: the same
    function, ``map(d) = (rho, 0.0)`` with rho its map (the sure events satisfy the definition),
    certified iff it is.  How a context with a (rho, delta) budget charges its zCDP statistics."""
    measurement = _need(measurement, ZeroConcentratedDivergence, "zero_concentrated_divergence()")
    inner = measurement.map          # the same input metric validates d_in again

    def privacy_map(d_in):
        return (inner(d_in), 0.0)

    return _cast(measurement, ApproximateZeroConcentratedDivergence(), privacy_map)
# [end:restate_zCDP_as_approximate]


def make_pureDP_to_zCDP(measurement: Measurement) -> Measurement:
    """Convert an eps-DP measurement to (eps^2 / 2)-zCDP.

    The released function is the same; only the privacy guarantee is restated.

    Contract:
        * Input domain / Input metric: those of ``measurement``.
        * Output measure: ``zero_concentrated_divergence()``.

    Args:
        measurement: a measurement whose output measure is ``max_divergence()``.

    Privacy map:
        ``map(d_in) = eps^2 / 2`` with ``eps = measurement.map(d_in)``, computed exactly and
        rounded up; ``map(0) = 0``; an infinite eps gives ``inf``.

    Raises:
        MakeTypeError: ``measurement`` is not a Measurement.
        MakeError: its output measure is not ``max_divergence()``.
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/combinators/measure_cast/make_pureDP_to_zCDP.tex``.

    References: [BS16] Prop. 1.4 (eps-DP implies (eps^2/2)-zCDP).

    Example:
        >>> import opendp_duff as dp
        >>> lap = dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=2.0)
        >>> dp.c.make_pureDP_to_zCDP(lap).map(1.0)
        0.125
    """
    # [proof:make_pureDP_to_zCDP]
    measurement = _need(measurement, MaxDivergence, "max_divergence()")
    inner = measurement.map          # the same input metric validates d_in again

    def privacy_map(d_in):
        eps = inner(d_in)
        return ar.INF if eps == ar.INF else ar.up(ar.Q(eps) ** 2 / 2)

    return _cast(measurement, ZeroConcentratedDivergence(), privacy_map)
    # [end:make_pureDP_to_zCDP]


def make_pureDP_to_approxDP(measurement: Measurement) -> Measurement:
    """Convert an eps-DP measurement to (eps, 0)-DP.

    The released function is the same; only the privacy guarantee is restated, in the
    measure that (eps, delta) mechanisms and contexts use.

    Contract:
        * Input domain / Input metric: those of ``measurement``.
        * Output measure: ``approximate_divergence()``.

    Args:
        measurement: a measurement whose output measure is ``max_divergence()``.

    Privacy map:
        ``map(d_in) = (eps, 0.0)`` with ``eps = measurement.map(d_in)``; no arithmetic (eps is
        already rounded up); ``map(0) = (0, 0)``; an infinite eps gives ``(inf, 0.0)``.

    Raises:
        MakeTypeError: ``measurement`` is not a Measurement.
        MakeError: its output measure is not ``max_divergence()``.
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/combinators/measure_cast/make_pureDP_to_approxDP.tex``.

    References: [DR14] Def. 2.4 (eps-DP is (eps, 0)-DP).

    Example:
        >>> import opendp_duff as dp
        >>> lap = dp.m.make_laplace(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=2.0)
        >>> dp.c.make_pureDP_to_approxDP(lap).map(1.0)
        (0.5, 0.0)
    """
    # [proof:make_pureDP_to_approxDP]
    measurement = _need(measurement, MaxDivergence, "max_divergence()")
    inner = measurement.map          # the same input metric validates d_in again

    def privacy_map(d_in):
        return (inner(d_in), 0.0)

    return _cast(measurement, ApproximateDivergence(), privacy_map)
    # [end:make_pureDP_to_approxDP]


# [proof:zcdp_epsilon]
def zcdp_epsilon_lemma9(rho: float, delta: float) -> float:
    """rho + 2 sqrt(rho log(1/delta)), rounded up ([BS16] Prop. 1.3), for rho >= 0, 0 <= delta < 1."""
    if rho == 0:
        return 0.0
    log_inv = -ar.log_down(delta)                         # >= log(1/delta); inf at delta = 0
    return ar.add_up(rho, ar.mul_up(2, ar.sqrt_up(ar.mul_up(rho, log_inv))))


def zcdp_epsilon_cks(rho: float, delta: float, alpha: float) -> float:
    """[CKS20] Prop. 12 at order alpha > 1, rounded up, for finite rho > 0 and 0 < delta < 1:
    max(0, alpha rho + (log(1/delta) + alpha log(1 - 1/alpha) - log(alpha - 1)) / (alpha - 1))."""
    a = Fraction(alpha)
    am1 = a - 1                                           # exact, > 0
    log_inv_delta = -Fraction(ar.log_down(delta))         # >= log(1/delta)
    log_1m = Fraction(ar.log1p_up(-1 / a))                # >= log(1 - 1/alpha)
    log_am1 = Fraction(ar.log_down(am1))                  # <= log(alpha - 1)
    # alpha log(1 - 1/alpha) <= -1 (log(1 - u) <= -u): both terms are upper bounds, take the less
    numer = log_inv_delta + min(a * log_1m, Fraction(-1)) - log_am1
    return max(0.0, ar.up(a * Fraction(rho) + numer / am1))


@lru_cache(maxsize=1024)
def zcdp_to_epsilon(rho: float, delta: float) -> float:
    """The epsilon of rho-zCDP at delta in [0, 1): the smaller of the two bounds above."""
    if rho == 0:
        return 0.0
    if rho == ar.INF or delta == 0:
        return ar.INF
    best = zcdp_epsilon_lemma9(rho, delta)
    alpha = _best_alpha(rho, delta)
    if 1 < alpha < ar.INF:
        best = min(best, zcdp_epsilon_cks(rho, delta, alpha))
    return best
# [end:zcdp_epsilon]


# [proof:_best_alpha]
def _best_alpha(rho: float, delta: float) -> float:
    """The order alpha minimising the [CKS20] bound, in floats (any alpha > 1 is valid; this one
    is only the tightest).  The bound's derivative in alpha is rho - (L - log alpha)/(alpha - 1)^2
    with L = log(1/delta), increasing in alpha, so the minimum is the root x = alpha - 1 of
    h(x) = rho x^2 + log(1 + x) - L, which lies in [2L / (1 + sqrt(1 + 4 rho L)), min(sqrt(L/rho),
    e^L)] (from x >= log(1 + x) >= 0).  Newton's method kept inside a shrinking bracket (bisection
    on log x when a step leaves it).  Estimates, not bounds: the result does not depend on the
    platform's libm, and its accuracy only affects how tight the bound is."""
    L = -est.log_estimate(delta)
    lo = 2 * L / (1 + math.sqrt(1 + 4 * rho * L))
    hi = min(math.sqrt(L / rho), est.exp_estimate(L))
    lo, hi = max(lo, 1e-300), min(max(hi, lo), 1e300)     # a subnormal or huge rho: stay finite
    x = math.sqrt(lo) * math.sqrt(hi)
    for _ in range(200):
        h = rho * x * x + est.log1p_estimate(x) - L
        if h < 0:
            lo = x
        else:
            hi = x
        step = x - h / (2 * rho * x + 1 / (1 + x))
        if abs(step - x) <= 1e-15 * x:                   # converged
            break
        x = step if lo < step < hi else math.sqrt(lo) * math.sqrt(hi)
        if not lo < x < hi:                              # the bracket is two adjacent floats
            break
    return 1.0 + x
# [end:_best_alpha]


def make_zCDP_to_approxDP(measurement: Measurement) -> Measurement:
    """Convert a rho-zCDP measurement to a privacy profile: (eps(delta), delta)-DP for every delta.

    The released function is the same.  The map returns a :class:`~opendp_duff.PrivacyProfile`;
    fix delta with :func:`make_fix_delta` to get an (eps, delta) pair.

    Contract:
        * Input domain / Input metric: those of ``measurement``.
        * Output measure: ``smoothed_max_divergence()``.

    Args:
        measurement: a measurement whose output measure is ``zero_concentrated_divergence()``.

    Privacy map:
        ``map(d_in)`` is the profile delta -> eps(delta) for ``rho = measurement.map(d_in)``:
        eps(delta) is the smaller of ``rho + 2 sqrt(rho log(1/delta))`` [BS16] and the [CKS20]
        bound ``alpha rho + (log(1/delta) + alpha log(1 - 1/alpha) - log(alpha - 1))/(alpha - 1)``
        at the best alpha (with alpha log(1 - 1/alpha) replaced by -1 when that is smaller,
        floored at 0), each rounded up.  Edge cases: delta >= 1 gives 0; rho = 0 gives 0 at every
        delta; delta = 0 or rho = inf gives ``inf``; NaN or negative delta raises MapError.

    Raises:
        MakeTypeError: ``measurement`` is not a Measurement.
        MakeError: its output measure is not ``zero_concentrated_divergence()``.
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/combinators/measure_cast/make_zCDP_to_approxDP.tex``.

    References: [BS16] Prop. 1.3; [CKS20] Prop. 12.

    Example:
        >>> import opendp_duff as dp
        >>> g = dp.m.make_gaussian(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=2.0)
        >>> profile = dp.c.make_zCDP_to_approxDP(g).map(1.0)
        >>> round(profile(1e-6), 3)
        2.419
    """
    # [proof:make_zCDP_to_approxDP]
    measurement = _need(measurement, ZeroConcentratedDivergence, "zero_concentrated_divergence()")
    inner = measurement.map          # the same input metric validates d_in again

    def privacy_map(d_in):
        rho = inner(d_in)
        return PrivacyProfile(lambda delta: zcdp_to_epsilon(rho, delta), f"zCDP rho={rho!r}")

    return _cast(measurement, SmoothedMaxDivergence(), privacy_map)
    # [end:make_zCDP_to_approxDP]


def make_fix_delta(measurement: Measurement, delta: float) -> Measurement:
    """Fix delta on a privacy-profile measurement, giving an (eps, delta)-DP measurement.

    The released function is the same.

    Contract:
        * Input domain / Input metric: those of ``measurement``.
        * Output measure: ``approximate_divergence()``.

    Args:
        measurement: a measurement whose output measure is ``smoothed_max_divergence()``.
        delta: a number in the open interval (0, 1).

    Privacy map:
        ``map(d_in) = (profile(delta), delta)`` with ``profile = measurement.map(d_in)``; no
        arithmetic of its own (the profile rounds up); ``map(0) = (0, delta)``.

    Raises:
        MakeTypeError: ``measurement`` is not a Measurement, or ``delta`` not a real number.
        MakeError: its output measure is not ``smoothed_max_divergence()``, or ``delta`` is not in (0,
            1).
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/combinators/measure_cast/make_fix_delta.tex``.

    References: [DR14] Def. 2.4 ((eps, delta)-DP).

    Example:
        >>> import opendp_duff as dp
        >>> g = dp.m.make_gaussian(dp.atom_domain(T=float), dp.absolute_distance(T=float), scale=2.0)
        >>> m = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(g), delta=1e-6)
        >>> m.map(1.0)[1]
        1e-06
    """
    # [proof:make_fix_delta]
    measurement = _need(measurement, SmoothedMaxDivergence, "smoothed_max_divergence()")
    delta = v.probability("delta", delta)
    inner = measurement.map          # the same input metric validates d_in again

    def privacy_map(d_in):
        return (inner(d_in).epsilon(delta), delta)

    return _cast(measurement, ApproximateDivergence(), privacy_map)
    # [end:make_fix_delta]


def make_approximate_zCDP_to_approxDP(measurement: Measurement, delta: float) -> Measurement:
    """Convert a delta-approximate rho-zCDP measurement to (eps, delta)-DP, spending a further
    ``delta`` on the conversion.

    The released function is the same.  This is how a release whose measure is
    ``approximate_zero_concentrated_divergence()`` (``make_threshold_keys`` with Gaussian noise)
    enters an (eps, delta) composition or context: the compositors add measures of one kind, and
    the conversion is proved for one release, not for an adaptive sequence of them.

    Contract:
        * Input domain / Input metric: those of ``measurement``.
        * Output measure: ``approximate_divergence()``.

    Args:
        measurement: a measurement whose output measure is
            ``approximate_zero_concentrated_divergence()``.
        delta: the delta spent on the conversion from zCDP, in the open interval (0, 1).

    Privacy map:
        With ``(rho, delta_0) = measurement.map(d_in)``:
        ``map(d_in) = (eps(rho, delta) + log(1 / (1 - delta_0)), delta_0 + delta)``, where
        eps(rho, delta) is the epsilon of rho-zCDP at delta of ``make_zCDP_to_approxDP`` (the
        smaller of the [BS16] and [CKS20] bounds), the log term is rounded up and each sum is
        rounded up.  Edge cases, in order: ``delta_0 + delta >= 1`` gives ``(0, 1)`` (every pair
        of laws is (0, 1)-indistinguishable); ``rho = inf`` gives ``inf``; ``rho = 0`` and
        ``delta_0 = 0`` give ``(0, delta)``.

    Raises:
        MakeTypeError: ``measurement`` is not a Measurement, or ``delta`` is not a number.
        MakeError: the measure is another one, or ``delta`` is outside (0, 1).
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/combinators/measure_cast/make_approximate_zCDP_to_approxDP.tex``.

    References: [BS16] (approximate zCDP; Prop. 1.3, zCDP to (eps, delta)); [CKS20] Prop. 12.

    Example:
        >>> import opendp_duff as dp
        >>> rows = dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()
        >>> keys = rows >> dp.t.then_count_by_key() >> dp.m.then_threshold_keys(
        ...     scale=4.0, threshold=30.0, noise="gaussian")
        >>> cast = dp.c.make_approximate_zCDP_to_approxDP(keys, delta=1e-7)
        >>> epsilon, delta = cast.map(1)
        >>> round(epsilon, 3), delta < 2e-7
        (1.261, True)
    """
    # [proof:make_approximate_zCDP_to_approxDP]
    measurement = _need(measurement, ApproximateZeroConcentratedDivergence,
                        "approximate_zero_concentrated_divergence()")
    delta = v.probability("delta", delta)
    inner = measurement.map          # the same input metric validates d_in again

    def privacy_map(d_in):
        rho, delta_0 = inner(d_in)
        total = ar.add_up(delta_0, delta)
        if total >= 1:
            return (0.0, 1.0)
        condition = -ar.log1p_down(-delta_0)          # >= log(1 / (1 - delta_0)), 0 at delta_0 = 0
        return (ar.add_up(zcdp_to_epsilon(rho, delta), condition), total)

    return _cast(measurement, ApproximateDivergence(), privacy_map)
    # [end:make_approximate_zCDP_to_approxDP]
