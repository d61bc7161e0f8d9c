"""Smooth-sensitivity measurements: the median and the trimmed mean plus noise scaled to their
t-smooth sensitivity ([NRS07]; [BS19] §3, §5).

The release is the nearest float to the exact real ``T(x) + S^t(x)/s * Z``, with ``Z`` drawn
exactly from one of the noise laws of :mod:`opendp_duff.smooth.noises` (the registry: each
law's shape parameter, output measure, one-step bound, distribution and exact sampler), ``T(x)``
exact (the median is an input value; the trimmed mean an exact rational) and the rounding a
fixed map that does not look at the data (``proofs/samplers/exact_rounded_release.tex``).

This module holds the constructors only.  The smooth sensitivity S^t is computed by
:mod:`opendp_duff.smooth.sensitivity`, the privacy maps by :mod:`opendp_duff.smooth.maps`,
and the parameters are chosen from a budget, without the data, by
:mod:`opendp_duff.smooth.parameters` (``dp.smooth.smooth_parameters``, ``choose_smoothing``).
For Student's T as zCDP chain :func:`opendp_duff.c.make_pureDP_to_zCDP` ([BS19] Thm 31's second
bound).  Gaussian noise (truncated CDP, [BS19] Lemma 33) is not offered: there is no tCDP measure.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable, Optional, Union

import attrs
import numpy as np

from .. import _validate as v
from .. import arithmetic as ar
from ..laws import location_scale_law
from ..core import Measurement, make_chain_mt, then
from ..domains import VectorDomain
from ..errors import MakeError
from ..metrics import ChangeOneDistance, Metric, SymmetricDistance
from ..exact_sum import exact_mean
from ..smooth.maps import group_map
from ..smooth.noises import SmoothNoise, resolve
from ..smooth.sensitivity import (smooth_sensitivity_median, smooth_sensitivity_rounding_slack,
                                  smooth_sensitivity_trimmed_mean)
from ..engines import as_array, column_engine
from ..transformations import dataset_space
from ..transformations.metric_convert import make_symmetric_to_change_one

__all__ = ["make_smooth_median", "then_smooth_median", "make_smooth_trimmed_mean", "then_smooth_trimmed_mean"]

Center = Union[float, "tuple[int, int]"]


# [proof:statistic]
@attrs.frozen
class SmoothStatistic:
    """A statistic of sorted arrays of size n in ``bounds``: ``center(arr)`` is the exact value
    the release reads (a float, or an exact ratio (N, D)), with a zero always +0.0, so the
    release never depends on the sign of a zero in the data; ``smooth(arr, t)`` is its
    t-smooth sensitivity S^t."""

    center: Callable[[np.ndarray], Center]
    smooth: Callable[[np.ndarray, float], float]


def smooth_statistic(statistic: str, n: int, m: int, bounds: tuple[float, float]) -> SmoothStatistic:
    """The lower median x_(ceil(n/2)) (``m`` ignored) or the m-trimmed mean (an exact ratio)."""
    if statistic == "median":
        mid = (n + 1) // 2 - 1  # 0-based index of x_(ceil(n/2))

        def median(arr: np.ndarray) -> float:
            return float(arr[mid]) + 0.0  # -0.0 + 0.0 is +0.0: the sign of a zero never enters

        return SmoothStatistic(median, lambda arr, t: smooth_sensitivity_median(arr, t, bounds))

    def exact(arr: np.ndarray) -> Center:   # an exact rational: a zero has numerator int 0
        return exact_mean(arr[m:n - m])

    return SmoothStatistic(exact, lambda arr, t: smooth_sensitivity_trimmed_mean(arr, t, bounds, m=m))
# [end:statistic]


# [proof:space]
def smooth_space(input_domain: VectorDomain, input_metric: Metric) -> tuple[tuple[float, float], int]:
    """Bounded, sorted vectors of known size n >= 1; change-one or (fixed size) symmetric distance."""
    elem = dataset_space(input_domain, input_metric, need_bounds=True, need_size=True, need_sorted=True,
                         any_engine=True)
    n, bounds = input_domain.size, elem.bounds
    if n is None or n < 1 or bounds is None:
        raise MakeError(f"input_domain ({input_domain!r}) must have size at least 1")
    if not math.isfinite(float(bounds[1]) - float(bounds[0])):
        raise MakeError(f"input_domain ({input_domain!r}) must have bounds of finite width b - a")
    return (float(bounds[0]), float(bounds[1])), n


def _parameters(t: float, s: float, noise: str, sigma: Optional[float], d: Optional[float],
                gamma: Optional[float], delta: Optional[float]) -> tuple[float, float, SmoothNoise, float]:
    t = v.number("t", t, positive=True)
    s = v.number("s", s, positive=True)
    record, shape = resolve(noise, sigma=sigma, d=d, gamma=gamma, delta=delta)
    assert shape is not None
    return t, s, record, shape
# [end:space]


# [proof:build]
def _build(input_domain: VectorDomain, input_metric: Metric, n: int, statistic: SmoothStatistic, t: float,
           s: float, noise: SmoothNoise, shape: float) -> Measurement:
    """The measurement x -> round(T(x) + S^t(x)/s * Z), Z exact and real, round the nearest float."""
    # The computed smooth sensitivity is exact up to a factor e^slack, hence (t + slack)-smooth:
    # the map uses that smoothing (a relative change below 1e-8).
    t_map = ar.add_up(t, smooth_sensitivity_rounding_slack(n))
    privacy_map = group_map(noise, t_map, s, shape)
    law = noise.law(shape)  # refuses shapes its sampler cannot represent, before any data
    engine = column_engine(input_domain)   # a Spark column is collected, sorted (driver memory O(n))

    def function(x: object) -> float:
        arr = as_array(engine.collect(x))
        return noise.release(statistic.center(arr), statistic.smooth(arr, t), s, shape)

    def output_law(x: object) -> object:  # the exact law of the idealised release (opendp_duff.laws)
        # centre and scale as the release reads them, exactly: a float quotient S/s could
        # overflow or underflow, and the nearest float to the trimmed mean is not its centre
        arr = as_array(engine.collect(x))
        c = statistic.center(arr)
        loc = Fraction(c[0]) / Fraction(c[1]) if isinstance(c, tuple) else c
        return location_scale_law(loc, Fraction(float(statistic.smooth(arr, t))) / Fraction(s), law)

    if isinstance(input_metric, SymmetricDistance):
        # Same-size datasets at symmetric distance d differ by floor(d/2) substitutions:
        # go through the (proven) identity transformation that says so.
        convert = make_symmetric_to_change_one(input_domain, input_metric)
        inner = Measurement(input_domain, ChangeOneDistance(), noise.measure(), function, privacy_map,
                            output_law=output_law)
        return make_chain_mt(inner, convert)
    return Measurement(input_domain, input_metric, noise.measure(), function, privacy_map, output_law=output_law)
# [end:build]


def make_smooth_median(input_domain: VectorDomain, input_metric: Metric, t: float, s: float, noise: str, *,
                       sigma: Optional[float] = None, d: Optional[float] = None, gamma: Optional[float] = None,
                       delta: Optional[float] = None) -> Measurement:
    """Release the lower median plus noise scaled to its t-smooth sensitivity.

    Releases the nearest float to the exact real x_(ceil(n/2)) + S^t(x)/s * Z, with Z drawn
    exactly from the chosen noise law and S^t from
    :func:`opendp_duff.smooth.sensitivity.smooth_sensitivity_median`.

    Contract:
        * Input domain: ``vector_domain(atom_domain(T=float, bounds=(a, b)), size=n, sorted=True)``,
          n >= 1, b - a finite, no NaN (chain ``make_clamp`` and ``make_sort``).
        * Input metric: ``change_one_distance()`` (substitution), or ``symmetric_distance()``,
          which on a fixed size n counts two per substitution.
        * Output measure: ``zero_concentrated_divergence()`` (LLN, ULN, arsinh-normal),
          ``max_divergence()`` (Student's T, polynomial tail) or ``approximate_divergence()`` (Laplace).

    Args:
        input_domain: the domain of the input (see the contract).
        input_metric: the metric on the input (see the contract).
        t: the smoothing, t > 0 (choose it without looking at the data: ``dp.smooth.choose_smoothing``).
        s: the scale divisor, s > 0 (``dp.smooth.smooth_parameters`` finds it from a budget).
        noise: ``"lln"`` (``sigma`` in (0, 100], required), ``"uln"`` (``sigma`` in [sqrt 2, 100],
            default sqrt 2), ``"arsinh_normal"`` (``sigma`` in (0, 100], default 2/sqrt 3),
            ``"student_t"`` (``d`` >= 1, default 3), ``"polynomial_tail"`` (``gamma`` > 1, default
            2 = Cauchy), ``"laplace"`` (``delta`` in (0, e^-2), required).
        sigma: the shape of LLN, ULN, arsinh-normal.
        d: the degrees of freedom of Student's T.
        gamma: the exponent of the polynomial tail.
        delta: the delta of Laplace noise.

    Privacy map:
        For k = d_in substitutions (floor(d_in / 2) under the symmetric distance), with eps the
        one-step bound of the noise at t_hat = t + smooth_sensitivity_rounding_slack(n):
        zCDP noises rho(k) = k^2 eps^2 / 2; pure noises k eps; Laplace (eps_k, delta) with
        [BS19] Thm 34 at t_k = k t_hat, s_k = s (e^{k t_hat} - 1)/(e^{t_hat} - 1).  map(0) = 0;
        every value rounded up (:mod:`opendp_duff.smooth.maps`).

    Raises:
        MakeTypeError: ``input_domain`` is not a VectorDomain, or ``input_metric`` is neither
            ``symmetric_distance()`` nor ``change_one_distance()``. ``t``, ``s`` or a noise parameter is
            not a real number.
        MakeError: the domain not sorted, unbounded, of unknown size or size 0, with bounds of infinite
            width, holding NaN or strings, or naming an engine; ``t`` or ``s`` not positive; a noise
            parameter missing, not applying to ``noise`` or out of range; an unknown ``noise``.
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/measurements/smooth_sensitivity/make_smooth_median.tex``.

    References: [NRS07] §3; [BS19] Thms 18, 22, 25, 31, 34 and Prop. 40; [GM-Duff] Prop. 3.

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=11), dp.change_one_distance()
        >>> m = space >> dp.t.then_sort() >> dp.m.then_smooth_median(t=0.1, s=0.2, noise="student_t", d=3)
        >>> round(m.map(1), 9)  # 0.1 * 4 + 0.2 * 4 / (2 sqrt 3), rounded up
        0.630940108
        >>> m.map(2) == 2 * m.map(1)
        True
    """
    # [proof:make_smooth_median]
    bounds, n = smooth_space(input_domain, input_metric)
    t, s, record, shape = _parameters(t, s, noise, sigma, d, gamma, delta)
    return _build(input_domain, input_metric, n, smooth_statistic("median", n, 0, bounds), t, s, record, shape)
    # [end:make_smooth_median]


def make_smooth_trimmed_mean(input_domain: VectorDomain, input_metric: Metric, m: int, t: float, s: float,
                             noise: str, *, sigma: Optional[float] = None, d: Optional[float] = None,
                             gamma: Optional[float] = None, delta: Optional[float] = None) -> Measurement:
    """Release the m-trimmed mean plus noise scaled to its t-smooth sensitivity.

    Releases the nearest float to the exact real (x_(m+1) + ... + x_(n-m)) / (n - 2m) + S^t(x)/s * Z,
    the mean an exact rational, S^t from :func:`opendp_duff.smooth.sensitivity.smooth_sensitivity_trimmed_mean`.

    Contract:
        * Input domain: as :func:`make_smooth_median`.
        * Input metric: as :func:`make_smooth_median`.
        * Output measure: as :func:`make_smooth_median`, according to the noise.

    Args:
        input_domain: the domain of the input (see the contract).
        input_metric: the metric on the input (see the contract).
        m: the number of records trimmed at each end, an integer with 0 <= m < n/2.
        t: the smoothing, t > 0.
        s: the scale divisor, s > 0.
        noise: as :func:`make_smooth_median`.
        sigma: as :func:`make_smooth_median`.
        d: as :func:`make_smooth_median`.
        gamma: as :func:`make_smooth_median`.
        delta: as :func:`make_smooth_median`.

    Privacy map:
        Exactly that of :func:`make_smooth_median` with the same t, s, noise and shape.

    Raises:
        MakeTypeError: ``input_domain`` is not a VectorDomain, or ``input_metric`` is neither
            ``symmetric_distance()`` nor ``change_one_distance()``. ``m``, ``t``, ``s`` or a noise
            parameter is not a real number (``m`` an integer).
        MakeError: the domain not sorted, unbounded, of unknown size or size 0, with bounds of infinite
            width, holding NaN or strings, or naming an engine; ``t`` or ``s`` not positive; a noise
            parameter missing, not applying to ``noise`` or out of range; an unknown ``noise``; ``m``
            negative or not below n / 2.
        NotAMemberTypeError, NotAMemberValueError: calling the measurement on a non-member of
            ``input_domain``, before any randomness is drawn; the message quotes no data.
        EntropyError: the random source failed when the measurement was called (checked before the
            function runs, independently of the data).
        MapError: ``map`` at a ``d_in`` that is not a distance of ``input_metric``.

    Proof: ``proofs/measurements/smooth_sensitivity/make_smooth_trimmed_mean.tex``.

    References: [BS19] §5 (Prop. 40) and Thms 18, 22, 25, 31, 34; [GM-Duff] Prop. 3.

    Example:
        >>> import opendp_duff as dp
        >>> space = dp.vector_domain(dp.atom_domain(T=float, bounds=(0.0, 1.0)), size=101), dp.change_one_distance()
        >>> meas = space >> dp.t.then_sort() >> dp.m.then_smooth_trimmed_mean(
        ...     m=10, **dp.smooth.smooth_parameters("lln", size=101, epsilon=1.0, t=0.05))
        >>> meas.map(1) <= 0.5  # rho = epsilon^2 / 2
        True
    """
    # [proof:make_smooth_trimmed_mean]
    bounds, n = smooth_space(input_domain, input_metric)
    m = v.number("m", m, integer=True, nonneg=True)
    if not 2 * m < n:
        raise MakeError(f"m ({m!r}) must be less than n/2 (n = {n})")
    t, s, record, shape = _parameters(t, s, noise, sigma, d, gamma, delta)
    statistic = smooth_statistic("trimmed_mean", n, m, bounds)
    return _build(input_domain, input_metric, n, statistic, t, s, record, shape)
    # [end:make_smooth_trimmed_mean]


then_smooth_median = then(make_smooth_median)
then_smooth_trimmed_mean = then(make_smooth_trimmed_mean)
