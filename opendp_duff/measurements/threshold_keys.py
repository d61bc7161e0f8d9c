"""make_threshold_keys: release the keys whose noisy count passes a threshold (key discovery).

When the keys of a GROUP BY are data (product codes, free text), listing them would reveal the
people who hold the rare ones.  The mechanism adds noise to each positive count and releases
only the keys whose noisy count reaches a public threshold, with their noisy counts
([KKMN09]; the partition selection problem of [DVGM22]).  A key held by few people is released
only with a small probability, which is the delta of the guarantee; pure DP cannot release keys
that depend on one person, so there is no epsilon-only variant.

Noise is drawn exactly (:mod:`opendp_duff.samplers.exact_noise`) and rounded once to the nearest
float; the comparison with the threshold is an exact float comparison.  The map, the calibration
helper :func:`threshold_keys_parameters` and the pass probability
:func:`threshold_pass_probability` share one bound on the probability that a key held on one
side only is released.  Proof: ``proofs/measurements/threshold_keys/make_threshold_keys.tex``.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from .. import _validate as v
from .. import arithmetic as ar
from .._constants import EXACT_INT_BOUND
from ..tails import laplace_sf_down, laplace_sf_up, normal_sf_down, normal_sf_up, smallest_float_where
from ..core import Measurement, then
from ..errors import MakeError
from ..map_domain import MapDomain
from ..measures import ApproximateDivergence, ApproximateZeroConcentratedDivergence
from ..metrics import L01InfDistance, Metric, PartitionBound
from ..samplers import current_rng, standard_laplace, standard_normal
from ..samplers.exact_noise import GAUSSIAN, LAPLACE
from ._common import exact_release

__all__ = ["make_threshold_keys", "then_threshold_keys", "threshold_keys_parameters",
           "threshold_pass_probability"]

_NOISES = {"laplace": (LAPLACE, standard_laplace, laplace_sf_up, laplace_sf_down),
           "gaussian": (GAUSSIAN, standard_normal, normal_sf_up, normal_sf_down)}


def make_threshold_keys(input_domain: MapDomain, input_metric: Metric, scale: float, threshold: float,
                        noise: str = "laplace") -> Measurement:
    """Release the keys whose noisy count reaches ``threshold``, with their noisy counts.

    For each key with a positive count c, the noisy count is the nearest float to the exact real
    c + scale Z (Z standard Laplace or normal); the release is the dict of the keys whose noisy
    count is >= threshold, in increasing key order (so it does not depend on the input's order).

    Contract:
        * Input domain: a map domain of counts: ``map_domain(atom_domain(T), atom_domain(T=int,
          bounds=(lo, hi)))`` with T str, int or float (or keys of several columns: tuples of
          such values, ``count_map_domain((T1, T2, ...))``), 0 <= lo and hi <= 2^53 (the output
          domain of ``make_count_by_key``).  A key with count 0 is never released.
        * Input metric: ``l01inf_distance()``, d_in = (l0, l1, linf).
        * Output measure: ``approximate_divergence()`` for Laplace noise ((epsilon, delta)-DP);
          ``approximate_zero_concentrated_divergence()`` for Gaussian noise (delta-approximate
          rho-zCDP).

    Args:
        input_domain: the map domain of counts (see the contract).
        input_metric: ``l01inf_distance()``.
        scale: the noise scale (the Laplace scale, or the Gaussian standard deviation), >= 0 or
            ``inf``.
        threshold: the release threshold, a finite number (the comparison is with the float
            noisy count).
        noise: ``"laplace"`` or ``"gaussian"``.

    Privacy map:
        With m = min(l0, l1) keys held on one side only, each with count at most c = min(linf,
        l1), and p >= P(a key of count c is released) (:func:`threshold_pass_probability`):
        ``delta = 1 - (1 - p)^m``, rounded up; the first part is ``epsilon = min(l1, l0 linf)
        / scale`` (Laplace) or ``rho = min(l0 linf^2, l1 linf) / (2 scale^2)`` (Gaussian), rounded
        up.  Any of l0, l1, linf equal to 0 gives (0, 0); scale 0 gives an infinite first part;
        scale ``inf`` gives 0 and p = 1/2 (the noisy count is +-MAX with a fair sign).  p is
        P(c + scale Z > T-) with T- the float below the threshold: the float release reaches T only
        if the real one exceeds T-.

    A key held by one person (count 1) is released with probability at most p for c = 1: with
    ``threshold_keys_parameters`` at delta = 1e-6 and l0 = 1, at most 1e-6.

    Raises:
        MakeTypeError: ``input_domain`` is not a MapDomain, or ``scale`` or ``threshold`` is not a real
            number.
        MakeError: values that are not bounded int counts; ``input_metric`` not ``l01inf_distance()``;
            ``scale`` negative or NaN; ``threshold`` not finite; ``noise`` neither "laplace" nor
            "gaussian".
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/measurements/threshold_keys/make_threshold_keys.tex``.

    References: [KKMN09] (thresholded noisy counts); [DVGM22] (partition selection); [BS16]
    (approximate zCDP, the Gaussian mechanism, Proposition 1.6); [DMNS06].

    Example:
        >>> import opendp_duff as dp
        >>> rows = dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()
        >>> m = rows >> dp.t.then_count_by_key() >> dp.m.then_threshold_keys(scale=1.0, threshold=40.0)
        >>> epsilon, delta = m.map(1)
        >>> epsilon, delta < 1e-16
        (1.0, True)
        >>> list(m(["N"] * 1000 + ["S"]))
        ['N']
    """
    # [proof:make_threshold_keys]
    _check_space(input_domain, input_metric)
    scale = v.number("scale", scale, nonneg=True, allow_inf=True)
    threshold = v.number("threshold", threshold)
    noise = v.choice("noise", noise, set(_NOISES))
    law, float_noise = _NOISES[noise][:2]
    measure = ApproximateDivergence() if noise == "laplace" else ApproximateZeroConcentratedDivergence()

    def function(x: dict[Any, int]) -> dict[Any, float]:
        keys = [k for k, c in x.items() if c > 0]
        counts = np.array([x[k] for k in keys], dtype=np.float64)     # exact: counts <= 2^53
        if scale == math.inf:   # +-MAX with a fair sign, independent of the counts
            signs = np.frombuffer(current_rng().random_bytes(len(keys)), dtype=np.uint8) & 1
            noisy = np.where(signs == 1, ar.MAX, -ar.MAX)
        else:
            noisy = exact_release(counts, scale, law, True, float_noise)
        passed = [(k, float(y)) for k, y in zip(keys, noisy, strict=True) if y >= threshold]
        return dict(sorted(passed, key=lambda item: item[0]))

    def privacy_map(d_in: PartitionBound) -> tuple[float, float]:
        l0, l1, linf = d_in
        if min(l0, l1, linf) == 0:   # the two maps are equal
            return (0.0, 0.0)
        if noise == "laplace":
            first = ar.div_up(min(l1, l0 * linf), scale)
        else:
            first = _rho(min(l0 * linf * linf, l1 * linf), scale)
        return (first, _threshold_delta(d_in, scale, threshold, noise))

    return Measurement(input_domain, input_metric, measure, function, privacy_map)
    # [end:make_threshold_keys]


# [proof:_check_space]
def _check_space(input_domain: Any, input_metric: Any) -> None:
    v.instance("input_domain", input_domain, MapDomain, "a MapDomain (counts per key)")
    values = input_domain.value_domain
    if values.T is not int or values.bounds is None or values.bounds[0] < 0 or values.bounds[1] > EXACT_INT_BOUND:
        raise MakeError(f"input_domain ({input_domain!r}) must hold counts: int values with bounds "
                        "within [0, 2^53] (chain make_count_by_key)")
    if not isinstance(input_metric, L01InfDistance):
        raise MakeError(f"input_metric ({input_metric!r}) must be l01inf_distance()")
# [end:_check_space]


# [proof:threshold_bounds]
def _rho(squares: int, scale: float) -> float:
    """squares / (2 scale^2) rounded up (squares > 0): inf for scale 0, 0 for scale inf."""
    if scale == 0:
        return ar.INF
    if scale == math.inf:
        return 0.0
    return ar.up(Fraction(squares) / (2 * ar.Q(scale) ** 2))


def _threshold_delta(d_in: PartitionBound, scale: float, threshold: float, noise: str) -> float:
    """delta >= 1 - (1 - p)^m: m = min(l0, l1) keys on one side only, p for the count min(linf, l1)."""
    l0, l1, linf = d_in
    p = threshold_pass_probability(min(linf, l1), scale, threshold, noise)[1]
    return _at_least_one_up(p, min(l0, l1))


def _at_least_one_up(p: float, m: int) -> float:
    """A float >= 1 - (1 - p)^m, for p in [0, 1] and m >= 1: -expm1(m log1p(-p)) rounded outward."""
    if p >= 1:
        return 1.0
    exponent = -ar.mul_up(m, -ar.log1p_down(-p))        # <= m log(1 - p) <= 0
    return min(1.0, -ar.expm1_down(exponent))


def threshold_pass_probability(count: int, scale: float, threshold: float,
                               noise: str = "laplace") -> tuple[float, float]:
    """Floats (lo, hi) enclosing the probability that ``make_threshold_keys`` releases a key of
    this count: lo <= P(R(count + scale Z) >= threshold) <= hi, R the rounding to the nearest
    float.  ``lo`` bounds P(count + scale Z >= T) from below and ``hi`` bounds
    P(count + scale Z > T-) from above, T- the float below T; count 0 gives (0, 0), scale 0 the
    exact 0 or 1, scale ``inf`` the exact 1/2.

    Example:
        >>> from opendp_duff.measurements.threshold_keys import threshold_pass_probability
        >>> lo, hi = threshold_pass_probability(1, 1.0, 15.0)
        >>> 4.15e-7 < lo <= hi < 4.16e-7          # e^-14 / 2 for a key held by one person
        True
    """
    count = v.number("count", count, integer=True, nonneg=True)
    scale = v.number("scale", scale, nonneg=True, allow_inf=True)
    threshold = v.number("threshold", threshold)
    sf_up, sf_down = _NOISES[v.choice("noise", noise, set(_NOISES))][2:]
    if count == 0:
        return (0.0, 0.0)
    if scale == 0:
        exact = 1.0 if count >= threshold else 0.0
        return (exact, exact)
    if scale == math.inf:
        return (0.5, 0.5)
    below = ar.next_down(threshold)
    s = ar.Q(scale)
    hi = 1.0 if below == -math.inf else sf_up((ar.Q(below) - count) / s)
    return (sf_down((ar.Q(threshold) - count) / s), hi)
# [end:threshold_bounds]


# [proof:threshold_keys_parameters]
def threshold_keys_parameters(d_in: Any, delta: float, *, epsilon: float | None = None,
                              rho: float | None = None) -> tuple[float, float]:
    """(scale, threshold) for ``make_threshold_keys`` with ``map(d_in) <= (epsilon, delta)``
    (Laplace noise, ``epsilon`` given) or ``<= (rho, delta)`` (Gaussian noise, ``rho`` given).

    The scale makes the first part meet the budget: min(l1, l0 linf)/epsilon, or
    sqrt(min(l0 linf^2, l1 linf)/(2 rho)), rounded up; the threshold is the smallest float whose
    delta, computed by the map itself, is at most ``delta`` (bisection).  The result is checked
    against the map.

    Example:
        >>> from opendp_duff.measurements.threshold_keys import threshold_keys_parameters
        >>> scale, threshold = threshold_keys_parameters((1, 1, 1), 1e-6, epsilon=1.0)
        >>> scale, round(threshold, 3)
        (1.0, 14.122)
    """
    l0, l1, linf = L01InfDistance().validate_distance(d_in)
    if isinstance(delta, (int, float)) and not isinstance(delta, bool) and delta == 0:
        raise MakeError("delta (0) must be positive: key discovery releases keys held by few people with a small "
                        "probability, which pure DP (delta = 0) forbids; use an (epsilon, delta) or zCDP budget")
    delta = v.probability("delta", delta)
    if (epsilon is None) == (rho is None):
        raise MakeError(f"give exactly one of epsilon ({epsilon!r}) and rho ({rho!r})")
    if min(l0, l1, linf) == 0:
        raise MakeError(f"d_in ({d_in!r}) must be positive in every component")
    noise = "laplace" if epsilon is not None else "gaussian"
    if epsilon is not None:
        scale = ar.div_up(min(l1, l0 * linf), v.number("epsilon", epsilon, positive=True))
    else:
        squares = min(l0 * linf * linf, l1 * linf)
        scale = ar.sqrt_up(ar.div_up(squares, ar.mul_up(2, v.number("rho", rho, positive=True))))

    bound = PartitionBound(l0, l1, linf)

    def holds(threshold: float) -> bool:
        return _threshold_delta(bound, scale, threshold, noise) <= delta

    hi = float(max(1, min(linf, l1)))
    while not holds(hi):
        hi *= 2
    threshold = smallest_float_where(holds, 0.0, hi, _guess(min(linf, l1), scale, delta / min(l0, l1), noise))
    return scale, threshold
# [end:threshold_keys_parameters]


def _guess(count: int, scale: float, p: float, noise: str) -> float:
    """A first guess of the threshold at which one key passes with probability p (floats; the
    bisection decides)."""
    if noise == "laplace":
        return count + scale * -math.log(2 * p)
    from scipy import special
    return count + scale * -float(special.ndtri(p))


then_threshold_keys = then(make_threshold_keys)
